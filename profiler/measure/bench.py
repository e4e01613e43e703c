"""Bench orchestration: one child process per kernel (see `worker`), results streamed back.

The parent never touches the GPU, so a kernel that faults costs only its own child: the parent
records the error and starts a fresh child for the shapes that are left.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass

from ..catalogue.dispatchers import Dispatcher
from ..catalogue.kernel_spec import KernelSpec
from ..catalogue.manifest import reference_rows
from ..subprocess_env import child_env, pin_env
from .timing import TimingPolicy
from ..tiers import ERROR, SKIP
from .jobs import BenchWork, Shape
from .records import bench_record


def run_worker(job: dict, on_record: Callable[[dict], None], timeout_s: float | None = None,
               pin: str | None = None) -> tuple[int, str]:
    """Run one worker child on `job`; call `on_record` per result line. Returns (exit code,
    last lines of its stderr). `pin`: the child sees only this GPU (CUDA_VISIBLE_DEVICES)."""
    env = child_env()
    if pin is not None:
        pin_env(env, pin)
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "profiler.measure.worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True, env=env,
        )
        try:
            proc.stdin.write(json.dumps(job))
            proc.stdin.close()
            for line in proc.stdout:
                if line.strip():
                    on_record(json.loads(line))
            code = proc.wait(timeout=timeout_s)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        err.seek(0)
        tail = "\n".join(err.read().strip().splitlines()[-6:])
    return code, tail


@dataclass(frozen=True)
class BenchTarget:
    """What one worker child verifies and times: the name and tier its records carry, and what
    runs under them (`cubin` and `spec`; None for a cuBLAS row). A dispatcher's shapes run the
    chosen kernel's cubin and spec under the dispatcher's name. `seed`: the data of the first
    shape (each next shape adds one)."""

    name: str
    tier: str
    cubin: str | None = None
    spec: KernelSpec | None = None
    seed: int = 0


def bench_kernel(target: BenchTarget, shapes: list[Shape], policy: TimingPolicy, on_record: Callable[[dict], None],
                 device: int = 0, pin: str | None = None) -> None:
    """Verify and time `target` on every shape, surviving faults: after a child dies, a fresh
    child picks up the shapes that have no result yet. `pin`: see `run_worker`."""
    name, tier = target.name, target.tier
    remaining = list(shapes)
    while remaining:
        done: list[Shape] = []

        def record(rec: dict) -> None:
            done.append((rec["M"], rec["N"], rec["K"]))
            on_record(rec)

        job = {"kernel": name, "tier": tier, "cubin": target.cubin, "shapes": remaining, "policy": asdict(policy),
               "seed": target.seed, "device": device, "spec": asdict(target.spec) if target.spec else None}
        code, tail = run_worker(job, record, pin=pin)
        remaining = [s for s in remaining if s not in done]
        if code == 3 or not remaining:  # 3: the child reported the shape that faulted
            continue
        if code == 0:  # should not happen: the child finished without reporting some shapes
            for M, N, K in remaining:
                on_record(bench_record(name, tier, (M, N, K), ERROR, "worker finished without a result for this shape"))
            return
        # The child died without a word about the shape it was on: blame that shape.
        M, N, K = remaining.pop(0)
        last = tail.splitlines()[-1] if tail else f"exit code {code}"
        on_record(bench_record(name, tier, (M, N, K), ERROR, f"worker died: {last}"[:300]))


def bench(work: BenchWork, cubins: dict[str, str], policy: TimingPolicy, on_record: Callable[[dict], None],
          device: int = 0) -> None:
    """cuBLAS first (each tier's reference, then its context rows such as cuBLAS FAST_TF32 beside
    fp32-tc), then the ladder in order, then each dispatcher (`_bench_dispatcher`). `cubins` covers
    every kernel the dispatchers may choose."""
    if work.include_cublas:
        for name, tier in reference_rows([*work.specs, *work.dispatchers]):
            bench_kernel(BenchTarget(name, tier), work.shapes, policy, on_record, device=device)
    for spec in work.specs:
        bench_kernel(BenchTarget(spec.name, spec.tier, cubins[spec.name], spec, spec.index * 1000), work.shapes, policy,
                     on_record, device=device)
    for d in work.dispatchers:
        _bench_dispatcher(d, work, cubins, policy, on_record, device)


def _bench_dispatcher(d: Dispatcher, work: BenchWork, cubins: dict[str, str], policy: TimingPolicy,
                      on_record: Callable[[dict], None], device: int = 0) -> None:
    """Per shape the kernel the rules of `d` choose on a GPU of `work.sms` SMs, recorded under the
    dispatcher's name with `dispatched_to` saying which kernel ran and `dispatch_rule` which rule
    chose it; a shape no rule covers is a SKIP, recorded first."""
    chosen: dict[str, list[Shape]] = {}
    why: dict[Shape, str] = {}
    for shape in work.shapes:
        picked = d.pick(*shape, work.kernels, work.sms)
        if picked is None:
            M, N, K = shape
            on_record(bench_record(d.name, d.tier, shape, SKIP, f"no rule of {d.name} has a kernel for {M}x{N}x{K}"))
        else:
            chosen.setdefault(picked[0].name, []).append(shape)
            why[tuple(shape)] = d.reason(picked[1])
    for name, kernel_shapes in chosen.items():
        spec = work.kernels[name]
        bench_kernel(BenchTarget(d.name, d.tier, cubins[name], spec, spec.index * 1000), kernel_shapes, policy,
                     lambda rec, name=name: on_record({**rec, "dispatched_to": name,
                                                       "dispatch_rule": why[(rec["M"], rec["N"], rec["K"])]}),
                     device=device)
