"""Reading CUDA sources without a compiler: comments stripped, integer #defines evaluated (the
kernel-source checks and the tensor-map tests share them)."""

from __future__ import annotations

import re

from profiler.catalogue.expressions import evaluate
from profiler.catalogue.kernel_paths import KERNELS_DIR


def code(text: str) -> str:
    """The source without comments."""
    return re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)


def macros(text: str) -> dict[str, int]:
    """Integer #defines and constexpr ints (arithmetic over earlier ones); others are skipped. The
    members of a class template over two ints (spread_tile.cuh's Tile<BM_, BN_>) take the arguments
    of the one instantiation the source names. A default inside `#ifndef NAME` gives way to a NAME
    defined before it (a build's -D flag, as `with_headers` writes it)."""
    values: dict[str, int] = template_arguments(code(text))
    found = re.findall(r"^#define\s+(\w+)\s+([^\n]+)$|^\s*(?:static\s+)?constexpr\s+int\s+(\w+)\s*=\s*([^;\n]+);",
                       _unless_defined_before(code(text)), flags=re.M)
    for name, body in ((m[0] or m[2], m[1] or m[3]) for m in found):
        try:
            values[name] = c_int(body, values)
        except (ValueError, SyntaxError, ZeroDivisionError):
            pass
    return values


def _unless_defined_before(text: str) -> str:
    """The text without the `#ifndef NAME ... #endif` blocks whose NAME an earlier #define gave."""
    out, defined, skipping = [], set(), []
    for line in text.splitlines():
        guard = re.match(r"\s*#\s*if(?:def\b|ndef\s+(\w+)|\b)", line)
        if guard:  # #if, #ifdef and #ifndef nest; only an #ifndef of a name defined before skips
            skipping.append(guard[1] in defined)
            continue
        if re.match(r"\s*#endif\b", line) and skipping:
            skipping.pop()
            continue
        if any(skipping):
            continue
        name = re.match(r"\s*#define\s+(\w+)", line)
        if name:
            defined.add(name[1])
        out.append(line)
    return "\n".join(out)


def selected(text: str, defs: dict[str, int]) -> str:
    """The text without the branches of `#if EXPR ... #else ... #endif` that EXPR, evaluated over
    `defs`, rules out (a build's -D flags: `macros(flag_defines(spec) + source)`). Conditions it
    cannot evaluate (#ifdef, #ifndef, #elif, && and ||, unknown names) keep every branch and their
    lines."""
    out, stack = [], []  # per open #if: True/False (its branch taken or not), None (unknown)
    for line in text.splitlines():
        directive = re.match(r"\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)", line)
        kind = directive[1] if directive else None
        opens = kind in ("if", "ifdef", "ifndef")
        if kind in ("elif", "else", "endif") and not stack:
            kind = None  # unbalanced: kept as text
        enclosing = stack if opens or kind is None else stack[:-1]
        active = all(taken is not False for taken in enclosing)
        if kind == "if":
            try:
                stack.append(bool(c_int(directive[2].strip(), defs)))
            except (ValueError, SyntaxError, ZeroDivisionError):
                stack.append(None)
        elif opens:
            stack.append(None)
        elif kind == "elif":
            stack[-1] = None
        elif kind == "else" and stack[-1] is not None:
            stack[-1] = not stack[-1]
        own = None if kind is None else stack.pop() if kind == "endif" else stack[-1]
        if active and own is None:  # text, or a directive whose own condition is unknown
            out.append(line)
    return "\n".join(out)


def flag_defines(spec) -> str:
    """The #defines of the manifest's nvcc_flags (-DNAME=VALUE, -DNAME), as the compiler sees them
    before the first line."""
    return "".join(f"#define {m[1]} {m[2] or 1}\n" for f in spec.nvcc_flags
                   for m in [re.fullmatch(r"-D(\w+)(?:=(.*))?", f)] if m)


def template_arguments(text: str) -> dict[str, int]:
    """{parameter: argument} of `template <int P, int Q> struct S` for the S<p, q> the text
    instantiates (none if it names no such instantiation, or gives one parameter two values)."""
    params = {s: (p, q) for p, q, s in re.findall(r"template\s*<\s*int\s+(\w+)\s*,\s*int\s+(\w+)\s*>\s*struct\s+(\w+)", text)}
    uses = {(s, int(p), int(q)) for s, p, q in re.findall(r"\b(\w+)<\s*(\d+)\s*,\s*(\d+)\s*>", text) if s in params}
    values: dict[str, int] = {}
    for s, p, q in uses:
        for name, value in zip(params[s], (p, q)):
            if values.setdefault(name, value) != value:
                return {}
    return values


def c_int(expr: str, defs: dict[str, int]) -> int:
    """Evaluate a C integer expression over known macros (C's / on ints is Python's //); a
    namespace-qualified name (spread::NTHREADS) is looked up by its last part."""
    expr = re.sub(r"\b\w+::", "", expr)
    expr = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: str(defs[m[0]]) if m[0] in defs else m[0], expr)
    expr = re.sub(r"(\d)[uUlL]+\b", r"\1", expr).replace("/", "//")
    expr = re.sub(r"(\d+)\s*<<\s*(\d+)", lambda m: str(int(m[1]) << int(m[2])), expr)  # (1LL << 23)
    if re.search(r"[A-Za-z_]", expr):
        raise ValueError(f"unknown name in {expr!r}")
    return evaluate(expr, 0, 0, 0)


def with_headers(spec) -> str:
    """The source with the project headers it includes (#include "x.cuh", from kernels/ or the
    source's own folder) spliced in where they are included, each once: the macros and the
    pipeline a kernel shares with others live there. The manifest's -D flags come first."""
    seen: set[str] = set()

    def splice(text: str) -> str:
        def one(m: re.Match) -> str:
            name = m[1]
            path = next((d / name for d in (spec.source.parent, KERNELS_DIR) if (d / name).is_file()), None)
            if path is None or name in seen:
                return ""
            seen.add(name)
            return splice(path.read_text())
        return re.sub(r'^#include\s+"([^"]+)"[^\n]*$', one, text, flags=re.M)

    return flag_defines(spec) + splice(spec.source.read_text())
