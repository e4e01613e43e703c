"""The unit of work of `bench` and `profile` as plain data: one job per kernel and shape.

Why a list of plain records: the serial path and the fanned-out paths (one worker per GPU, a Dask
cluster) must run the same work and merge it the same way. A job pickles and travels as JSON;
`execute` runs one wherever it is called.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

from ..catalogue.dispatchers import DEFAULT_SMS, Dispatcher
from ..catalogue.kernel_spec import KernelSpec
from ..catalogue.manifest import reference_name, reference_rows

Shape = tuple[int, int, int]
BENCH, PROFILE = "bench", "profile"


@dataclass(frozen=True)
class Job:
    """One kernel at one shape (a bench job: at `shape` and the shapes in `more`, timed by one
    worker child in turn). `kernel` names the row (a dispatcher's name for a dispatched row);
    `spec` is the kernel that runs (None: cuBLAS); `row` holds fields every result row of the job
    carries (a dispatcher's `dispatched_to` and `dispatch_rule`)."""

    kind: str
    kernel: str
    tier: str
    shape: Shape
    spec: KernelSpec | None = None
    seed: int = 0
    row: dict = field(default_factory=dict)
    more: tuple[Shape, ...] = ()

    @property
    def key(self) -> str:
        """Unique within a job list; names the job in progress, logs and run.json."""
        return "{}:{}:{}:{}x{}x{}".format(self.kind, self.kernel, self.tier, *self.shape) + (f"+{len(self.more)}" if self.more else "")

    @property
    def shapes(self) -> list[Shape]:
        return [self.shape, *self.more]

    @property
    def runs(self) -> str | None:
        """The kernel whose cubin the job needs (None for cuBLAS)."""
        return self.spec.name if self.spec else None

    def to_dict(self) -> dict:
        return {"kind": self.kind, "kernel": self.kernel, "tier": self.tier, "shape": list(self.shape),
                "spec": asdict(self.spec) if self.spec else None, "seed": self.seed, "row": dict(self.row),
                "more": [list(m) for m in self.more]}

    @classmethod
    def from_dict(cls, d: dict) -> Job:
        spec = KernelSpec.from_dict(d["spec"]) if d.get("spec") else None
        return cls(d["kind"], d["kernel"], d["tier"], tuple(d["shape"]), spec, d.get("seed", 0), d.get("row", {}),
                   tuple(tuple(m) for m in d.get("more", ())))


@dataclass(frozen=True)
class BenchWork:
    """What a bench times, in this order: each tier's cuBLAS rows (`include_cublas`), the kernels
    of `specs`, then each dispatcher's choice among `kernels` on a GPU of `sms` SMs; each at every
    shape of `shapes`. The serial bench (`measure.bench.bench`) and the fanned-out one
    (`bench_jobs`) take the same record, so they run the same work."""

    specs: list[KernelSpec]
    shapes: list[Shape]
    include_cublas: bool = True
    dispatchers: list[Dispatcher] = ()
    kernels: dict[str, KernelSpec] | None = None
    sms: int = DEFAULT_SMS


def bench_jobs(work: BenchWork) -> list[Job]:
    """`work` in `measure.bench.bench`'s order, one job per kernel and shape, with the seeds that
    serial bench gives them. A dispatcher's shape that no rule covers is not a job (the caller
    records its SKIP: `dispatch_skips`)."""
    jobs: list[Job] = []
    if work.include_cublas:
        jobs += [Job(BENCH, name, tier, tuple(s)) for name, tier in reference_rows([*work.specs, *work.dispatchers])
                 for s in work.shapes]
    for spec in work.specs:
        jobs += [Job(BENCH, spec.name, spec.tier, tuple(s), spec, spec.index * 1000 + i) for i, s in enumerate(work.shapes)]
    for d in work.dispatchers:
        for shape in work.shapes:
            picked = d.pick(*shape, work.kernels or {}, work.sms)
            if picked is not None:
                spec = picked[0]
                jobs.append(Job(BENCH, d.name, d.tier, tuple(shape), spec, spec.index * 1000,
                                {"dispatched_to": spec.name, "dispatch_rule": d.reason(picked[1])}))
    return jobs


def batched(jobs: list[Job], size: int) -> list[Job]:
    """Consecutive bench jobs of one kernel (same row, same cubin) joined into jobs of up to `size`
    shapes. A worker child costs about a second to start (CuPy, the CUDA context, cuBLAS) and a
    row of a suite a third of one: one child per row would spend most of a GPU's time starting."""
    out: list[Job] = []
    for job in jobs:
        last = out[-1] if out else None
        if (last is not None and job.kind == last.kind == BENCH and (job.kernel, job.tier, job.runs, job.row)
                == (last.kernel, last.tier, last.runs, last.row) and len(last.shapes) < size):
            out[-1] = replace(last, more=(*last.more, *job.shapes))
        else:
            out.append(job)
    return out


def dispatch_skips(work: BenchWork) -> list[dict]:
    """The SKIP rows of dispatcher shapes no rule covers (no job runs for them)."""
    return [{"kernel": d.name, "tier": d.tier, "M": M, "N": N, "K": K, "status": "SKIP",
             "reason": f"no rule of {d.name} has a kernel for {M}x{N}x{K}"}
            for d in work.dispatchers for (M, N, K) in work.shapes if d.pick(M, N, K, work.kernels, work.sms) is None]


def profile_jobs(tiers: list[str], specs: list[KernelSpec], shape: Shape, with_cublas: bool = True) -> list[Job]:
    """The profile's work: each tier's cuBLAS first (no cubin to wait for), then the kernels."""
    refs = [Job(PROFILE, reference_name(t), t, tuple(shape)) for t in tiers] if with_cublas else []
    return refs + [Job(PROFILE, s.name, s.tier, tuple(shape), s, 7) for s in specs]
