"""Reading CUDA sources without a compiler: comments stripped, integer #defines evaluated (the
kernel-source checks and the tensor-map tests share them)."""

from __future__ import annotations

import re

from profiler.expressions import evaluate


def code(text: str) -> str:
    """The source without comments."""
    return re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)


def macros(text: str) -> dict[str, int]:
    """Integer #defines (arithmetic over earlier ones); others are skipped."""
    values: dict[str, int] = {}
    for name, body in re.findall(r"^#define\s+(\w+)\s+([^\n]+)$", code(text), flags=re.M):
        try:
            values[name] = c_int(body, values)
        except (ValueError, SyntaxError, ZeroDivisionError):
            pass
    return values


def c_int(expr: str, defs: dict[str, int]) -> int:
    """Evaluate a C integer expression over known macros (C's / on ints is Python's //)."""
    expr = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: str(defs[m[0]]) if m[0] in defs else m[0], expr)
    expr = re.sub(r"(\d)[uUlL]+\b", r"\1", expr).replace("/", "//")
    if re.search(r"[A-Za-z_]", expr):
        raise ValueError(f"unknown name in {expr!r}")
    return evaluate(expr, 0, 0, 0)
