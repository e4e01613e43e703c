"""Finding the host's tools and what they may do: ncu (GEMMPROF_NCU, PATH, the usual install
places), its version and nvcc's, and whether this user may read the GPU's performance counters."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path


NCU_ENV = "GEMMPROF_NCU"


def find_ncu(explicit: str | None = None) -> Path | None:
    """ncu from --ncu, $GEMMPROF_NCU, PATH, or the usual install places, in that order."""
    for candidate in (explicit, os.environ.get(NCU_ENV)):
        if candidate:
            p = Path(candidate)
            return p if p.is_file() else None
    found = shutil.which("ncu")
    if found:
        return Path(found)
    for guess in sorted(Path("/opt/nvidia/nsight-compute").glob("*/ncu"), reverse=True) + [Path("/usr/local/cuda/bin/ncu")]:
        if guess.is_file():
            return guess
    return None


def tool_version(exe: Path | str | None, pattern: str) -> str | None:
    if exe is None:
        return None
    try:
        out = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(pattern, out)
    return m.group(1) if m else out.strip().splitlines()[-1] if out.strip() else None


def ncu_version(exe: Path | None) -> str | None:
    return tool_version(exe, r"Version (\S+)")


def nvcc_version() -> str | None:
    return tool_version(shutil.which("nvcc"), r"release (\S+),")


def counters_permitted() -> tuple[bool | None, str]:
    """Whether this user may read GPU performance counters (what ncu needs), and why.

    The driver's RmProfilingAdminOnly=1 restricts counters to root/CAP_SYS_ADMIN
    (ncu then fails with ERR_NVGPUCTRPERM)."""
    params = Path("/proc/driver/nvidia/params")
    if not params.is_file():
        return None, "no NVIDIA driver parameters found"
    m = re.search(r"RmProfilingAdminOnly: (\d)", params.read_text())
    if m is None:
        return None, "driver does not report RmProfilingAdminOnly"
    if m.group(1) == "0":
        return True, "RmProfilingAdminOnly=0 (any user)"
    if os.geteuid() == 0:
        return True, "RmProfilingAdminOnly=1, running as root"
    return False, "RmProfilingAdminOnly=1 and not root"
