"""Child process that verifies and times one kernel over a list of shapes.

Why a child: a kernel that faults (illegal address) poisons the CUDA context of its process. Run
in a child, it takes down only itself; the parent records the error and goes on with the next
kernel. Protocol: one JSON job on stdin, one JSON line per shape on stdout.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from ..catalogue.kernel_spec import KernelSpec
from ..catalogue.manifest import REFERENCES, reference_name
from ..tiers import CONTEXT, CUBLAS, ERROR, FAIL, PASS, REFERENCE_ROWS, SKIP
from ..specs import peak_flops, peak_fp32_flops
from ..tiers import tier as tier_record
from .device import import_cupy
from .sampler import StateSampler, StateSummary
from .launch import CUBLAS_MATH_MODE, CublasRunner, Gemm, KernelRunner
from .hold import HOLD_ENV, QueueHold
from .timing import L2Flusher, Stats, TimingPolicy, time_alternating, warm_up
from .verify import check
from .records import bench_record

if TYPE_CHECKING:
    from .jobs import Shape


def _emit(record: dict) -> None:
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


@dataclass(frozen=True)
class WorkerSetup:
    """What every shape of a worker's job is measured with: CuPy, the runners by name (the
    kernel's row and CUBLAS, the tier's yardstick), the row's name and tier, the timing policy,
    the L2 flush, the GPU's properties (`cc`, `sm_count`, `sm_clock_max_mhz`), the kernel's spec
    (None for a cuBLAS row) and the queue hold (a hold.QueueHold, or None)."""

    cp: Any
    runners: dict
    name: str
    tier: str
    policy: TimingPolicy
    flush: Callable[[], None]
    props: dict
    spec: KernelSpec | None = None
    hold: QueueHold | None = None


def measure_shape(setup: WorkerSetup, shape: Shape, seed: int) -> dict:
    """Verify `setup.name` at `shape` (M, N, K), then time it alternating with cuBLAS, each batch
    queued behind `setup.hold`. One flat record. A context row is timed whatever its verification
    says, under the status CONTEXT."""
    rec = bench_record(setup.name, setup.tier, shape)
    rec.update(_verification(setup, shape, seed))
    if rec["status"] == FAIL:
        return rec  # a wrong kernel never gets a time
    timing, state = _timing(setup, shape, seed)
    rec.update(timing)
    rec.update(_peaks(setup, state, rec["gflops"]))
    rec.update(state.as_columns())
    return rec


def _verification(setup: WorkerSetup, shape: Shape, seed: int) -> dict:
    """The status and error columns of `setup.name` checked against cuBLAS at `shape`."""
    name, tier = setup.name, setup.tier
    c = check(setup.cp, setup.runners[name], setup.runners[CUBLAS], *shape, tier=tier, seed=seed)
    context = name in REFERENCE_ROWS and REFERENCE_ROWS[name].context
    out = dict(status=CONTEXT if context else PASS if c.passed else FAIL, reason=c.reason, error=c.error,
               tolerance=c.tolerance, worst_bound_ratio=c.worst_bound_ratio, error_fp64=c.error_fp64)
    if context:
        out["reason"] = f"context, not verified as {tier}: {c.reason}" if c.reason else f"context (inside the {tier} bound here)"
    elif not c.passed and setup.spec is not None and setup.spec.expect_fail:
        out["reason"] = f"expected (the manifest says this rung fails the {tier} bound): {c.reason}"
    return out


def _timing(setup: WorkerSetup, shape: Shape, seed: int) -> tuple[dict, StateSummary]:
    """The warm-up, hold and timing columns of `setup.name` and cuBLAS timed in alternation at
    `shape`, and the GPU's state while they ran."""
    cp, runners, name, hold = setup.cp, setup.runners, setup.name, setup.hold
    M, N, K = shape
    g = Gemm.random(cp, M, N, K, dtype=tier_record(setup.tier).dtype, seed=seed + 1)
    launches = {n: (lambda r=runners[n]: r(g, 1.0, 0.5)) for n in dict.fromkeys((name, CUBLAS))}
    out = {}
    for n, launch in launches.items():  # warm-up fields of cuBLAS get the cublas_ prefix
        prefix = "cublas_" if n == CUBLAS and n != name else ""
        out.update({prefix + k: v for k, v in warm_up(cp, launch, setup.policy).items()})
    timeouts = hold.timeouts if hold is not None else 0
    with StateSampler() as sampler:
        samples = time_alternating(cp, launches, setup.flush, setup.policy, hold)
    state = sampler.summary()
    out["queue_held"] = hold is not None
    out["hold_timeouts"] = hold.timeouts - timeouts if hold is not None else 0
    flop = 2 * M * N * K
    for n, s in samples.items():
        st = Stats.of(s)
        # cuBLAS's own row fills both its columns and the cuBLAS reference columns.
        for prefix in ([""] if n == name else []) + (["cublas_"] if n == CUBLAS else []):
            out.update({f"{prefix}{k}": v for k, v in asdict(st).items()})
            out[f"{prefix}gflops"] = flop / (st.median_ms * 1e-3) / 1e9
    out["pct_of_cublas"] = 100.0 * out["cublas_median_ms"] / out["median_ms"]
    return out, state


def _peaks(setup: WorkerSetup, state: StateSummary, gflops: float) -> dict:
    """The GPU's FP32 peak and its tier's peak at the SM clock it ran (the mean NVML saw, else
    its maximum clock), and `gflops` as a share of each."""
    props = setup.props
    clock_hz = (state.sm_clock_mhz_mean or props["sm_clock_max_mhz"]) * 1e6
    peak_fp32_gflops = peak_fp32_flops(props["cc"], props["sm_count"], clock_hz) / 1e9
    # the peak of the pipe this tier's math runs on (tensor cores for fp16): what % of peak means
    peak_gflops = peak_flops(setup.tier, props["cc"], props["sm_count"], clock_hz) / 1e9
    return {"peak_fp32_gflops": peak_fp32_gflops, "pct_of_fp32_peak": 100.0 * gflops / peak_fp32_gflops,
            "peak_gflops": peak_gflops, "pct_of_peak": 100.0 * gflops / peak_gflops}


def main() -> int:
    job = json.loads(sys.stdin.read())
    name, tier = job["kernel"], job.get("tier", "fp32")
    policy = TimingPolicy(**job.get("policy", {}))
    cp = import_cupy()
    dev = cp.cuda.Device(job.get("device", 0))
    dev.use()
    from .device import gpu_info

    info = gpu_info(job.get("device", 0))
    runners = {CUBLAS: CublasRunner(cp, tier)}  # the tier's yardstick, whatever its row's name
    spec = None
    if name in REFERENCES:  # a cuBLAS row: the yardstick itself ("cublas", "cublas-fp16") or a context row
        runners[name] = runners[CUBLAS] if name == reference_name(tier) else CublasRunner(cp, tier, name)
    else:  # the job carries the spec, so kernels outside the manifest (tests) run too
        spec = KernelSpec.from_dict(job["spec"])
        too_old = spec.gpu_too_old(info.compute_capability)
        if too_old:  # its cubin would not even load here: a SKIP with the reason, not an ERROR
            for M, N, K in job["shapes"]:
                _emit(bench_record(name, tier, (M, N, K), SKIP, too_old))
            return 0
        runners[name] = KernelRunner(cp, spec, job["cubin"])
    props = {"cc": info.compute_capability, "sm_count": info.sm_count, "sm_clock_max_mhz": info.sm_clock_max_mhz or 0}
    flush = L2Flusher(cp, info.l2_bytes)
    hold = None if os.environ.get(HOLD_ENV, "1") == "0" else QueueHold(cp)
    setup = WorkerSetup(cp, runners, name, tier, policy, flush, props, spec, hold)
    for i, (M, N, K) in enumerate(job["shapes"]):
        reason = spec.unsupported_reason(M, N, K) if spec else None
        try:
            reason = reason or (runners[name].cannot_launch(M, N, K) if spec else None)
            if reason:
                _emit(bench_record(name, tier, (M, N, K), SKIP, reason))
                continue
            rec = measure_shape(setup, (M, N, K), seed=job.get("seed", 0) + i)
        except Exception as exc:  # a CUDA fault: report it; the context may be unusable now
            _emit(bench_record(name, tier, (M, N, K), ERROR, f"{type(exc).__name__}: {exc}".strip().splitlines()[0][:300]))
            traceback.print_exc(file=sys.stderr)
            return 3
        rec["cublas_math_mode"] = CUBLAS_MATH_MODE  # the yardstick's (a context row says what it is in its reason)
        _emit(rec)
        cp.get_default_memory_pool().free_all_blocks()
    return 0


if __name__ == "__main__":
    sys.exit(main())
