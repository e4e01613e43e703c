"""What GPU we are on and what state it is in: CuPy for the device, NVML for clocks and throttling.

Everything here imports CuPy / NVML lazily so that `gemmprof env` and analysis of recorded runs
work on machines without them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import GemmprofError

# NVML clock-event ("throttle") reason bits (nvml.h, nvmlClocksEventReason*).
THROTTLE_REASONS = {
    0x1: "gpu_idle",
    0x2: "applications_clocks_setting",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal_slowdown",
    0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown",
    0x100: "display_clock_setting",
}
# Reasons that mean the clock was held below what the card would otherwise run at.
THROTTLING_MASK = 0x4 | 0x8 | 0x20 | 0x40 | 0x80


def decode_reasons(mask: int) -> list[str]:
    return [name for bit, name in THROTTLE_REASONS.items() if mask & bit]


def import_cupy():
    """CuPy with a GPU behind it, or a one-line error saying what is missing."""
    try:
        import cupy
    except ImportError:
        raise GemmprofError(
            "CuPy is not installed", "install the GPU extra: pip install 'gemmprof[gpu]' (needs a CUDA GPU)"
        ) from None
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError without a driver or device
        raise GemmprofError(f"no CUDA GPU is usable here ({exc})", "run on a machine with an NVIDIA GPU and driver") from None
    if count == 0:
        raise GemmprofError("no CUDA GPU found", "run on a machine with an NVIDIA GPU and driver")
    return cupy


def _nvml():
    try:
        import pynvml
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()
    except Exception:
        return None
    return pynvml


@dataclass
class GpuState:
    """One NVML reading of the clocks, power, temperature and throttle reasons."""

    sm_clock_mhz: int
    mem_clock_mhz: int
    power_w: float
    temperature_c: int
    throttle_mask: int

    @property
    def throttled(self) -> bool:
        return bool(self.throttle_mask & THROTTLING_MASK)


def read_gpu_state(index: int = 0) -> GpuState | None:
    nvml = _nvml()
    if nvml is None:
        return None
    h = nvml.nvmlDeviceGetHandleByIndex(index)
    reasons = getattr(nvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or nvml.nvmlDeviceGetCurrentClocksThrottleReasons
    return GpuState(
        sm_clock_mhz=nvml.nvmlDeviceGetClockInfo(h, nvml.NVML_CLOCK_SM),
        mem_clock_mhz=nvml.nvmlDeviceGetClockInfo(h, nvml.NVML_CLOCK_MEM),
        power_w=nvml.nvmlDeviceGetPowerUsage(h) / 1000.0,
        temperature_c=nvml.nvmlDeviceGetTemperature(h, nvml.NVML_TEMPERATURE_GPU),
        throttle_mask=int(reasons(h)),
    )


@dataclass
class StateSummary:
    """GPU state over a measurement: extremes of the clock, the worst power/temperature, and
    every throttle reason seen at any sample."""

    samples: int = 0
    sm_clock_mhz_min: int = 0
    sm_clock_mhz_max: int = 0
    sm_clock_mhz_mean: float = 0.0
    mem_clock_mhz: int = 0
    power_w_max: float = 0.0
    temperature_c_max: int = 0
    throttle_mask: int = 0
    throttle_reasons: list[str] = field(default_factory=list)
    throttled: bool = False

    def as_columns(self) -> dict:
        d = asdict(self)
        d["throttle_reasons"] = ",".join(d["throttle_reasons"])
        return d


class StateSampler:
    """Samples NVML in a background thread while a measurement runs (NVML calls are cheap and
    thread-safe); `summary()` condenses what it saw."""

    def __init__(self, interval_s: float = 0.01, index: int = 0):
        self.interval_s = interval_s
        self.index = index
        self.states: list[GpuState] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> StateSampler:
        first = read_gpu_state(self.index)
        if first is not None:
            self.states.append(first)
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.states.append(read_gpu_state(self.index))

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self.states.append(read_gpu_state(self.index))

    def summary(self) -> StateSummary:
        # The idle bit is set between launches; it says nothing about the measured launches.
        busy = [s for s in self.states if s is not None]
        if not busy:
            return StateSummary()
        clocks = [s.sm_clock_mhz for s in busy]
        mask = 0
        for s in busy:
            mask |= s.throttle_mask
        mask &= ~0x1
        return StateSummary(
            samples=len(busy),
            sm_clock_mhz_min=min(clocks),
            sm_clock_mhz_max=max(clocks),
            sm_clock_mhz_mean=sum(clocks) / len(clocks),
            mem_clock_mhz=max(s.mem_clock_mhz for s in busy),
            power_w_max=max(s.power_w for s in busy),
            temperature_c_max=max(s.temperature_c for s in busy),
            throttle_mask=mask,
            throttle_reasons=decode_reasons(mask),
            throttled=bool(mask & THROTTLING_MASK),
        )


@dataclass
class GpuInfo:
    name: str
    compute_capability: tuple[int, int]
    sm_count: int
    l2_bytes: int
    memory_bytes: int
    driver: str
    cuda_runtime: str
    cuda_driver_api: str
    cublas_version: str
    sm_clock_mhz: int | None
    sm_clock_max_mhz: int | None
    mem_clock_mhz: int | None
    mem_clock_max_mhz: int | None

    @property
    def arch(self) -> str:
        return f"sm_{self.compute_capability[0]}{self.compute_capability[1]}"

    @property
    def slug(self) -> str:
        return gpu_slug(self.name)


def gpu_slug(name: str) -> str:
    """Short name for run ids and file names, e.g. 'h200' for 'NVIDIA H200'."""
    words = re.sub(r"[^a-z0-9 ]", "", name.lower().replace("nvidia", "")).split()
    return "-".join(words) or "gpu"


def _version(v: int) -> str:
    """CUDA packs versions as 1000*major + 10*minor."""
    return f"{v // 1000}.{(v % 1000) // 10}"


def gpu_info(device: int = 0) -> GpuInfo:
    cp = import_cupy()
    props = cp.cuda.runtime.getDeviceProperties(device)
    with cp.cuda.Device(device):
        from cupy_backends.cuda.libs import cublas

        cublas_v = cublas.getVersion(cp.cuda.device.get_cublas_handle())
    nvml = _nvml()
    clocks: dict[str, int | None] = dict.fromkeys(("sm", "sm_max", "mem", "mem_max"))
    driver = "unknown"
    if nvml is not None:
        h = nvml.nvmlDeviceGetHandleByIndex(device)
        clocks = {
            "sm": nvml.nvmlDeviceGetClockInfo(h, nvml.NVML_CLOCK_SM),
            "sm_max": nvml.nvmlDeviceGetMaxClockInfo(h, nvml.NVML_CLOCK_SM),
            "mem": nvml.nvmlDeviceGetClockInfo(h, nvml.NVML_CLOCK_MEM),
            "mem_max": nvml.nvmlDeviceGetMaxClockInfo(h, nvml.NVML_CLOCK_MEM),
        }
        driver = nvml.nvmlSystemGetDriverVersion()
    name = props["name"]
    return GpuInfo(
        name=name.decode() if isinstance(name, bytes) else name,
        compute_capability=(props["major"], props["minor"]),
        sm_count=props["multiProcessorCount"],
        l2_bytes=props["l2CacheSize"],
        memory_bytes=props["totalGlobalMem"],
        driver=driver,
        cuda_runtime=_version(cp.cuda.runtime.runtimeGetVersion()),
        cuda_driver_api=_version(cp.cuda.runtime.driverGetVersion()),
        cublas_version=f"{cublas_v // 10000}.{(cublas_v % 10000) // 100}.{cublas_v % 100}",
        sm_clock_mhz=clocks["sm"],
        sm_clock_max_mhz=clocks["sm_max"],
        mem_clock_mhz=clocks["mem"],
        mem_clock_max_mhz=clocks["mem_max"],
    )


# --- tools on the host -----------------------------------------------------------------------

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


def gpu_fields_nvml(index: int = 0) -> dict | None:
    """GPU name, compute capability, driver and clocks from NVML alone: no CUDA context, so it
    costs milliseconds where CuPy's device query and cuBLAS handle cost a second or two. None
    when NVML is not available."""
    nvml = _nvml()
    if nvml is None:
        return None
    try:
        h = nvml.nvmlDeviceGetHandleByIndex(index)
        major, minor = nvml.nvmlDeviceGetCudaComputeCapability(h)
        name = nvml.nvmlDeviceGetName(h)
        name = name.decode() if isinstance(name, bytes) else name
        return {
            "gpu_name": name, "compute_capability": f"{major}.{minor}", "arch": f"sm_{major}{minor}",
            "gpu_slug": gpu_slug(name), "driver": nvml.nvmlSystemGetDriverVersion(),
            "gpu_memory_bytes": nvml.nvmlDeviceGetMemoryInfo(h).total,
            "sm_clock_mhz": nvml.nvmlDeviceGetClockInfo(h, nvml.NVML_CLOCK_SM),
            "sm_clock_max_mhz": nvml.nvmlDeviceGetMaxClockInfo(h, nvml.NVML_CLOCK_SM),
            "mem_clock_mhz": nvml.nvmlDeviceGetClockInfo(h, nvml.NVML_CLOCK_MEM),
            "mem_clock_max_mhz": nvml.nvmlDeviceGetMaxClockInfo(h, nvml.NVML_CLOCK_MEM),
        }
    except Exception:  # NVMLError of any kind: fall back to CUDA
        return None


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
