"""Run a target under Nsight Compute: the command line, progress from ncu's output, and errors a
user can act on.

Clock control defaults to `none`: the card is measured at the clocks it runs (ncu would otherwise
lock them at base, 1.5 GHz instead of 1.98 GHz on the H200, and on shared machines it must not
touch them at all).
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import GemmprofError
from .device import NCU_ENV, find_ncu
from .target import NVTX_OUTER, TARGET_PREFIX

CLOCK_CONTROLS = ("none", "base", "reset")


@dataclass
class NcuOptions:
    ncu: Path
    section_set: str = "full"
    clock_control: str = "none"
    import_source: bool = True
    extra_metrics: list[str] = field(default_factory=list)


def resolve_ncu(explicit: str | None) -> Path:
    exe = find_ncu(explicit)
    if exe is None:
        where = f"{explicit} does not exist" if explicit else "ncu is not on PATH"
        raise GemmprofError(f"Nsight Compute not found: {where}", f"pass --ncu /path/to/ncu or set {NCU_ENV}")
    return exe


def ncu_command(opts: NcuOptions, report_base: Path, target_argv: list[str]) -> list[str]:
    cmd = [str(opts.ncu), "--set", opts.section_set, "--clock-control", opts.clock_control,
           "--import-source", "yes" if opts.import_source else "no",
           "--nvtx", "--nvtx-include", f"{NVTX_OUTER}/", "--target-processes", "all",
           "--export", str(report_base), "--force-overwrite"]
    if opts.extra_metrics:
        cmd += ["--metrics", ",".join(opts.extra_metrics)]
    return cmd + target_argv


def target_argv(job: str) -> list[str]:
    return [sys.executable, "-m", "profiler.measure.target", "--job", job]


_PROFILING = re.compile(r'==PROF== Profiling "(?P<kernel>[^"]+)".*?(?P<passes>\d+) passes')


@dataclass
class NcuResult:
    returncode: int
    lines: list[str]
    target: dict | None  # what the target printed about itself (verification status)
    kernels: list[tuple[str, int]]  # (kernel, replay passes) as ncu reported them


def run_ncu(cmd: list[str], env: dict, on_kernel: Callable[[str, int], None] | None = None) -> NcuResult:
    """Run ncu, stream its output, and collect the profiled kernels and the target's JSON line."""
    import json

    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    lines: list[str] = []
    kernels: list[tuple[str, int]] = []
    target = None
    try:
        for line in proc.stdout:
            line = line.rstrip("\n")
            lines.append(line)
            if line.startswith(TARGET_PREFIX):
                target = json.loads(line[len(TARGET_PREFIX):])
            elif m := _PROFILING.search(line):
                kernels.append((m["kernel"], int(m["passes"])))
                if on_kernel:
                    on_kernel(m["kernel"], int(m["passes"]))
        code = proc.wait()
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return NcuResult(code, lines, target, kernels)


def failure(result: NcuResult, what: str) -> GemmprofError | None:
    """The one-line error for a failed ncu run, or None when it profiled something."""
    text = "\n".join(result.lines)
    tail = "\n".join(l for l in result.lines[-8:] if l.strip())
    if "ERR_NVGPUCTRPERM" in text:
        return GemmprofError(
            "ncu may not read the GPU performance counters here (ERR_NVGPUCTRPERM)",
            "run as root or ask the admin to load the driver with NVreg_RestrictProfilingToAdminUsers=0; "
            "or time without counters: gemmprof profile --timing-only",
        )
    if result.returncode == 0 and not result.kernels:
        return GemmprofError(f"ncu profiled no kernel for {what}: the NVTX filter '{NVTX_OUTER}/' matched nothing",
                             f"the target must launch inside the '{NVTX_OUTER}' range; ncu said:\n{tail}")
    if result.returncode != 0:
        return GemmprofError(f"ncu failed for {what} (exit code {result.returncode}); its last lines:\n{tail}")
    return None
