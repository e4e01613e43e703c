"""Where a measurement came from, recorded with it: the environment (GPU, driver, tools, gemmprof
and Python versions) and the git commit of the checkout, for a run's run.json."""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import asdict
from pathlib import Path

from ..errors import GemmprofError
from .device import gpu_fields_nvml, gpu_info
from .tools import counters_permitted, find_ncu, ncu_version, nvcc_version


def git_commit(repo: Path | None) -> tuple[str | None, bool]:
    """HEAD commit of the checkout and whether it has uncommitted changes. A copy of the tree
    whose .git is missing or stale (a CI artifact, the GPU machine, which was sent the session's
    first .git) names its commit in GEMMPROF_GIT_COMMIT, which then wins. No checkout (`repo`
    None: gemmprof installed) has no commit; the git repository around the current directory
    is the user's, not gemmprof's."""
    if os.environ.get("GEMMPROF_GIT_COMMIT"):
        return os.environ["GEMMPROF_GIT_COMMIT"], False
    if repo is None:
        return None, False
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=repo, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None, False
    if head.returncode:
        return None, False
    return head.stdout.strip(), bool(dirty.stdout.strip())


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def collect_environment(ncu: str | None = None, need_gpu: bool = False, nvml_only: bool = False) -> dict:
    """Everything that matters for reproducing a measurement, as a flat dict. Without a GPU the
    GPU fields are absent and `gpu_error` says why (unless `need_gpu`, which raises instead).
    `nvml_only`: skip the CUDA/cuBLAS probe when NVML answers (the caller's child processes
    report the rest)."""
    import platform

    from .. import __version__

    env: dict = {"gemmprof_version": __version__, "python": platform.python_version(), "host": platform.node()}
    light = gpu_fields_nvml() if nvml_only else None
    if light is not None:
        env.update(light)
    else:
        try:
            info = gpu_info()
        except GemmprofError as exc:
            if need_gpu:
                raise
            env["gpu_error"] = str(exc)
        else:
            fields = asdict(info)
            fields["gpu_name"] = fields.pop("name")
            fields["gpu_memory_bytes"] = fields.pop("memory_bytes")
            fields["compute_capability"] = "{}.{}".format(*info.compute_capability)
            env.update(fields, arch=info.arch, gpu_slug=info.slug)
    exe = find_ncu(ncu)
    env["ncu_path"] = str(exe) if exe else None
    env["ncu_version"] = ncu_version(exe)
    permitted, why = counters_permitted()
    env["counters_permitted"] = permitted
    env["counters_permitted_why"] = why
    env["nvcc_version"] = nvcc_version()
    return env
