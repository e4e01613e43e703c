"""Watching the GPU while it is timed: NVML's clocks, power and throttle reasons sampled on a
thread, summed up per measurement so a slowed result is marked, not mistaken for a slow kernel."""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, field

from .device import load_nvml


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
    nvml = load_nvml()
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
