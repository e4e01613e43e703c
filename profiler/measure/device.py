"""What GPU we are on: its name, compute capability, memory and clocks, from CuPy or from NVML
alone. Its state while timed is `sampler`'s, the host's tools `tools`', the run's record
`provenance`'s.

Everything here imports CuPy / NVML lazily so that `gemmprof env` and analysis of recorded runs
work on machines without them.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass

from ..errors import Exit, GemmprofError


def no_cupy() -> GemmprofError:
    """The error of a machine without CuPy (the [gpu] extra), which every GPU step needs."""
    return GemmprofError("CuPy is not installed", "install the GPU extra: pip install 'gemmprof[gpu]' (needs a CUDA GPU)",
                         exit_code=Exit.NO_CUDA)


def require_cupy() -> None:
    """CuPy is importable here (without importing it, which takes seconds): what a command
    whose GPU work runs in child processes checks before it starts them."""
    import importlib.util

    if importlib.util.find_spec("cupy") is None:
        raise no_cupy()


def import_cupy():
    """CuPy with a GPU behind it, or a one-line error saying what is missing."""
    try:
        import cupy
    except ImportError:
        raise no_cupy() from None
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError without a driver or device
        raise GemmprofError(f"no CUDA GPU is usable here ({exc})", "run on a machine with an NVIDIA GPU and driver",
                            exit_code=Exit.NO_GPU) from None
    if count == 0:
        raise GemmprofError("no CUDA GPU found", "run on a machine with an NVIDIA GPU and driver", exit_code=Exit.NO_GPU)
    return cupy


def load_nvml():
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
    nvml = load_nvml()
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


def gpu_fields_nvml(index: int = 0) -> dict | None:
    """GPU name, compute capability, driver and clocks from NVML alone: no CUDA context, so it
    costs milliseconds where CuPy's device query and cuBLAS handle cost a second or two. None
    when NVML is not available."""
    nvml = load_nvml()
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
    finally:  # the session closed: nothing of this process stays attached to the GPU ncu profiles
        with contextlib.suppress(Exception):
            nvml.nvmlShutdown()


