"""Which GPUs a fanned-out run uses, and what each row records about the GPU that produced it.

NVML enumerates physical GPUs whatever CUDA_VISIBLE_DEVICES says, so an index here is the index a
worker is pinned to with CUDA_VISIBLE_DEVICES."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..errors import Exit, GemmprofError


@dataclass(frozen=True)
class Gpu:
    index: str  # what CUDA_VISIBLE_DEVICES is set to: an index, or a GPU-... UUID
    uuid: str | None = None
    name: str | None = None
    sm_clock_max_mhz: int | None = None
    mem_clock_max_mhz: int | None = None

    def columns(self) -> dict:
        """The fields every result row of this GPU carries (gpu_index, gpu_uuid, ...)."""
        return {f"gpu_{k}": v for k, v in asdict(self).items()}


def _describe(nvml, handle, index: str) -> Gpu:
    def text(value):
        return value.decode() if isinstance(value, bytes) else value

    return Gpu(index, text(nvml.nvmlDeviceGetUUID(handle)), text(nvml.nvmlDeviceGetName(handle)),
               nvml.nvmlDeviceGetMaxClockInfo(handle, nvml.NVML_CLOCK_SM),
               nvml.nvmlDeviceGetMaxClockInfo(handle, nvml.NVML_CLOCK_MEM))


def list_gpus() -> list[Gpu]:
    """Every GPU of this host, by NVML; empty without NVML."""
    from ..measure.device import load_nvml as _nvml

    nvml = _nvml()
    if nvml is None:
        return []
    return [_describe(nvml, nvml.nvmlDeviceGetHandleByIndex(i), str(i)) for i in range(nvml.nvmlDeviceGetCount())]


def describe(pin: str) -> Gpu:
    """The GPU a worker is pinned to (on that worker's host); only the pin when NVML cannot say."""
    from ..measure.device import load_nvml as _nvml

    nvml = _nvml()
    if nvml is None:
        return Gpu(pin)
    try:
        handle = (nvml.nvmlDeviceGetHandleByUUID(pin) if pin.startswith(("GPU-", "MIG-"))
                  else nvml.nvmlDeviceGetHandleByIndex(int(pin)))
        return _describe(nvml, handle, pin)
    except Exception:  # an NVML error of any kind: the pin is all we know
        return Gpu(pin)


def parse_gpus(option: str, available: list[Gpu]) -> list[Gpu]:
    """`--gpus all` or `--gpus 0,1,...` against the host's GPUs; refuses unknown or repeated ones."""
    if option.strip() == "all":
        if not available:
            raise GemmprofError("--gpus all: no GPU found (NVML sees none)", "install nvidia-ml-py, or name GPUs: --gpus 0,1",
                                exit_code=Exit.NO_GPU)
        return list(available)
    items = [item.strip() for item in option.split(",") if item.strip()]
    if not items:
        raise GemmprofError(f"--gpus {option!r} names no GPU", "give 'all' or indices like 0,1")
    if len(set(items)) != len(items):
        raise GemmprofError(f"--gpus {option!r} names a GPU twice")
    by_key = {g.index: g for g in available} | {g.uuid: g for g in available if g.uuid}
    chosen = []
    for item in items:
        if item in by_key:
            chosen.append(by_key[item])
        elif available:
            raise GemmprofError(f"--gpus: no GPU {item!r} on this host",
                                "its GPUs: " + ", ".join(f"{g.index} ({g.name})" for g in available))
        elif item.isdigit() or item.startswith("GPU-"):
            chosen.append(Gpu(item))  # no NVML here: take the user's word
        else:
            raise GemmprofError(f"--gpus: {item!r} is neither an index nor a GPU UUID")
    return chosen


def check_one_model(gpus: list[Gpu], mixed: bool) -> None:
    """Timings and counters of two GPU models are not one ladder: refused unless `--mixed-gpus`."""
    names = sorted({g.name for g in gpus if g.name})
    if len(names) > 1 and not mixed:
        raise GemmprofError(f"--gpus mixes GPU models: {', '.join(names)}",
                            "name GPUs of one model, or pass --mixed-gpus (each row records its GPU)")
