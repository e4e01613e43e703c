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
from dataclasses import asdict

from ..catalogue.dispatchers import DEFAULT_SMS, Dispatcher
from ..catalogue.kernel_spec import KernelSpec
from ..catalogue.manifest import reference_rows
from ..subprocess_env import child_env, pin_env
from .timing import TimingPolicy
from ..tiers import ERROR, SKIP
from .records import bench_record

Shape = tuple[int, int, int]


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


def bench_kernel(name: str, tier: str, cubin: str | None, shapes: list[Shape], policy: TimingPolicy,
                 on_record: Callable[[dict], None], seed: int = 0, device: int = 0, spec: KernelSpec | None = None,
                 pin: str | None = None) -> None:
    """Verify and time one kernel on every shape, surviving faults: after a child dies, a fresh
    child picks up the shapes that have no result yet. `pin`: see `run_worker`."""
    remaining = list(shapes)
    while remaining:
        done: list[Shape] = []

        def record(rec: dict) -> None:
            done.append((rec["M"], rec["N"], rec["K"]))
            on_record(rec)

        job = {"kernel": name, "tier": tier, "cubin": cubin, "shapes": remaining, "policy": asdict(policy),
               "seed": seed, "device": device, "spec": asdict(spec) if spec else None}
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


def bench(specs: list[KernelSpec], cubins: dict[str, str], shapes: list[Shape], policy: TimingPolicy,
          on_record: Callable[[dict], None], include_cublas: bool = True, device: int = 0,
          dispatchers: list[Dispatcher] = (), kernels: dict[str, KernelSpec] | None = None, sms: int = DEFAULT_SMS) -> None:
    """cuBLAS first (each tier's reference, then its context rows such as cuBLAS FAST_TF32 beside
    fp32-tc), then the ladder in order, then each dispatcher: per shape the kernel its rules choose
    on a GPU of `sms` SMs, recorded under the dispatcher's name with `dispatched_to` saying which
    kernel ran and `dispatch_rule` which rule chose it. `cubins` covers every kernel they may
    choose."""
    if include_cublas:
        for name, tier in reference_rows([*specs, *dispatchers]):
            bench_kernel(name, tier, None, shapes, policy, on_record, device=device)
    for spec in specs:
        bench_kernel(spec.name, spec.tier, cubins[spec.name], shapes, policy, on_record, seed=spec.index * 1000,
                     device=device, spec=spec)
    for d in dispatchers:
        chosen: dict[str, list[Shape]] = {}
        why: dict[Shape, str] = {}
        for shape in shapes:
            picked = d.pick(*shape, kernels, sms)
            if picked is None:
                M, N, K = shape
                on_record(bench_record(d.name, d.tier, shape, SKIP, f"no rule of {d.name} has a kernel for {M}x{N}x{K}"))
            else:
                chosen.setdefault(picked[0].name, []).append(shape)
                why[tuple(shape)] = d.reason(picked[1])
        for name, kernel_shapes in chosen.items():
            spec = kernels[name]
            bench_kernel(d.name, d.tier, cubins[name], kernel_shapes, policy,
                         lambda rec, name=name: on_record({**rec, "dispatched_to": name,
                                                           "dispatch_rule": why[(rec["M"], rec["N"], rec["K"])]}),
                         seed=spec.index * 1000, device=device, spec=spec)
