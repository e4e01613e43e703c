"""The instruction mix: what each SASS instruction is (its base opcode, classed as FFMA, MMA,
global or shared load or store, async copy, barrier, ...), counted per launch and per math
instruction (how many memory instructions one FFMA or MMA costs)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .values import LAUNCH_KEYS


# What a SASS opcode (its first dotted part) means for the instruction mix. Everything else is
# 'other' (address arithmetic, control, conversions, ...).
OPCODE_CLASSES = {
    "FFMA": "ffma",
    "DFMA": "fp64", "DADD": "fp64", "DMUL": "fp64",
    "LDG": "global_load",
    "STG": "global_store",
    "LDL": "local_load",
    "STL": "local_store",
    "LDS": "shared_load",
    "LDSM": "shared_load",
    "STS": "shared_store",
    "STSM": "shared_store",
    "LDGSTS": "async_copy",
    "UTMALDG": "tma", "UTMASTG": "tma", "UBLKCP": "tma", "UTMAPF": "tma",
    "SYNCS": "mbarrier",
    "ATOM": "atomic", "ATOMG": "atomic", "RED": "atomic", "REDG": "atomic",
    "BAR": "barrier",
    "HMMA": "mma",
    "HGMMA": "mma",
    "IMMA": "mma",
    "QGMMA": "mma",
    "IGMMA": "mma",
    "DMMA": "mma",
}
# A warp's back-off while it waits (on an mbarrier, as a rule): it issues nothing and holds no unit.
SLEEP_OPCODE = "NANOSLEEP"
MIX_CLASSES = ("ffma", "fp64", "mma", "global_load", "global_store", "local_load", "local_store", "shared_load",
               "shared_store", "async_copy", "tma", "mbarrier", "atomic", "barrier", "other")
# Classes counted per math instruction (`<class>_per_math`).
PER_MATH_CLASSES = ("global_load", "global_store", "local_load", "local_store", "shared_load", "shared_store",
                    "async_copy", "atomic", "barrier")

# A SASS line: optional predicate ("@P0", "@!UP1"), then the opcode with its modifiers.
_OPCODE = re.compile(r"^\s*(?:@!?U?P[T\d]+\s+)?([A-Z][A-Z0-9_]*)")


def opcode(sass: str) -> str:
    """'@!P0 LDS.128 R4, [R2+0x10]' -> 'LDS' (the base opcode, modifiers dropped)."""
    match = _OPCODE.match(sass or "")
    return match.group(1) if match else ""


def operands(sass: str) -> list[str]:
    """'@P0 FFMA.FTZ R5, R132, R137, R5' -> ['R5', 'R132', 'R137', 'R5'] (destination first)."""
    match = _OPCODE.match(sass or "")
    if not match:
        return []
    rest = sass[match.end():]
    if rest.startswith("."):  # the opcode's modifiers, up to the first space
        rest = rest.partition(" ")[2]
    return [a.strip() for a in rest.split(",")] if rest.strip() else []


def opcodes(sass: pd.DataFrame) -> pd.Series:
    """The base opcode of every row of a `sass` table: its `opcode` column when `with_opcodes`
    added one, else parsed here (the analyses of one launch share one parse through it)."""
    if "opcode" in sass.columns:
        return sass["opcode"]
    return pd.Series([opcode(t) for t in sass["sass"].astype(str)], index=sass.index, dtype="object")


def with_opcodes(sass: pd.DataFrame | None) -> pd.DataFrame | None:
    """`sass` with an `opcode` column, so the instruction mix, techniques, regions and access
    kinds parse each instruction once."""
    if sass is None or "opcode" in sass.columns:
        return sass
    return sass.assign(opcode=opcodes(sass))


def instruction_mix(sass: pd.DataFrame) -> pd.DataFrame:
    """Warp instructions executed per class (ffma, mma, global/shared loads and stores, async
    copies, barriers, other) per launch, the SASS instructions that ran at least once
    (`distinct_run`: the code the launch fetched), and each memory class and all instructions per
    math instruction (`<class>_per_math`, `all_per_math`). The math instruction (`math_op`) is the MMA
    where the launch ran tensor-core instructions (its few FFMAs are the epilogue), the FP64
    instruction where those outnumber the FFMAs, else the FFMA."""
    if sass.empty:
        return pd.DataFrame(columns=LAUNCH_KEYS + list(MIX_CLASSES) + ["total"])
    classes = [OPCODE_CLASSES.get(o, "other") for o in opcodes(sass)]
    frame = pd.DataFrame({"report": sass["report"], "launch": sass["launch"], "cls": classes,
                          "n": sass["inst_executed"].fillna(0)})
    mix = frame.pivot_table(index=LAUNCH_KEYS, columns="cls", values="n", aggfunc="sum", fill_value=0.0)
    mix = mix.reindex(columns=list(MIX_CLASSES), fill_value=0.0)
    mix["total"] = mix.sum(axis=1)
    ran = frame[frame["n"] > 0].groupby(LAUNCH_KEYS).size()
    mix["distinct_run"] = ran.reindex(mix.index, fill_value=0).astype("float64")
    tensor = mix["mma"] > 0
    double = ~tensor & (mix["fp64"] > mix["ffma"])
    mix["math_op"] = np.where(tensor, "MMA", np.where(double, "DFMA", "FFMA"))
    mix["math"] = mix["mma"].where(tensor, mix["fp64"].where(double, mix["ffma"]))
    for cls in PER_MATH_CLASSES:
        mix[f"{cls}_per_math"] = mix[cls] / mix["math"].where(mix["math"] > 0)
    mix["all_per_math"] = mix["total"] / mix["math"].where(mix["math"] > 0)
    mix.columns.name = None
    return mix.reset_index()
