"""Specific causes that decide a verdict before the Speed Of Light reasoning does.

Each check looks for one known pathology that no amount of tiling cures: a grid that leaves SMs
idle, a last wave that costs a large share of the time, math on the padding past the matrix's
edges, math done in double, arrays or spills in local memory, atomics to a few addresses, divergent
warps, scattered global accesses, bank conflicts on every shared load, an epilogue that holds most
of the time, barriers; and, where no unit is saturated, an epilogue whose loads of C wait one at a
time behind its stores, loads outside the main loop waited for one or two at a time, and
occupancy capped so low that latency cannot hide. Each returns a
`Verdict` naming its cause (a key tests and scripts read) or None; `verdict.decide` tries them in
the order of `CHECKS`, then the Speed Of Light bounds, then `LATE_CHECKS`. Thresholds are module
constants, each with the reason for its value.

Cures read `Signals.techniques` (what the kernel already does, from its SASS) and never prescribe
a technique the kernel already uses: where the usual cure is there, they say what is left.

The checks live by kind: `idle_causes` (SMs and schedulers left idle), `code_causes` (the
kernel's code); `cause_text` holds what they write with.
"""

from __future__ import annotations

from typing import Callable

from .bounds import Verdict
from .code_causes import (atomics, bank_conflicts, barrier, divergence, epilogue, fp64, local_memory, lone_loads,
                          scattered, serial_epilogue, wasted_math)
from .idle_causes import occupancy_capped, small_grid, tail
from .loop_causes import no_math, too_small
from .signals import Signals


# Facts about the launch as a whole, before its code: no math at all, too short for the GPU, too
# few blocks for it, a costly last wave.
LAUNCH_CHECKS: tuple[Callable[[Signals], Verdict | None], ...] = (no_math, too_small, small_grid, tail)
# The order matters: math that is not the GEMM's first, then what is wrong whatever the tiling,
# then where the time sits (epilogue, barriers), then occupancy.
CHECKS: tuple[Callable[[Signals], Verdict | None], ...] = (
    wasted_math, fp64, local_memory, atomics, divergence, epilogue, scattered, bank_conflicts, barrier,
)
# Checks that read where the PC samples sit: skipped on launches with too few samples.
SAMPLED = (epilogue, atomics)
# Tried after the Speed Of Light's compute and memory bounds, before plain latency: causes of
# latency, which cost time only where no unit is saturated.
LATE_CHECKS: tuple[Callable[[Signals], Verdict | None], ...] = (serial_epilogue, lone_loads, occupancy_capped)
