"""The one list of kernels: `kernels/ladder.toml`, loaded into `KernelSpec`s.

Bench loops, profile targets, chart labels and README tables all come from here; nothing else
enumerates kernels. Launch geometry and shared memory are small expressions over M, N, K, so the
manifest says how each kernel is launched without Python code per kernel.
"""

from __future__ import annotations

import ast
import operator
import os
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from .errors import GemmprofError
from .tiers import CUBLAS, ELEMENT_TYPES, REFERENCE_ROWS
from .tiers import TIERS as TIER_RECORDS

# Bytes of one element of each element type (fp16 inputs; fp32 inputs and every C).
ELEMENT_BYTES = {name: e.bytes for name, e in ELEMENT_TYPES.items()}


def builtin_kernels_dir() -> Path:
    """Where the built-in ladder is: `profiler/_kernels` when gemmprof is installed from a wheel
    (kernels/ shipped as package data, see pyproject.toml), the checkout's `kernels/` beside the
    package otherwise (a source tree, `pip install -e .`)."""
    package = Path(__file__).resolve().parent
    installed = package / "_kernels"
    return installed if (installed / "ladder.toml").is_file() else package.parent / "kernels"


KERNELS_DIR = builtin_kernels_dir()
# The source checkout gemmprof runs from, or None when it runs installed: the root of defaults
# that point into the project (its git commit, its sample runs), which an installed copy lacks.
CHECKOUT_ROOT = KERNELS_DIR.parent if KERNELS_DIR.name == "kernels" else None
MANIFEST_PATH = KERNELS_DIR / "ladder.toml"
# Extra manifests (the user's own kernels, the probes): os.pathsep-separated TOML paths. An
# environment variable, so bench workers and ncu targets (child processes) see the same kernels.
MANIFEST_ENV = "GEMMPROF_MANIFEST"
# The probe kernels (one planted bottleneck each), an extra manifest that ships with the ladder.
PROBES_MANIFEST = KERNELS_DIR / "probes" / "probes.toml"

# Names the manifest's expressions may use besides M, N and K.
_FUNCTIONS = {"cdiv": lambda a, b: -(-a // b), "min": min, "max": max}
_BINARY_OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}

# Comparisons and and/or, for the `when` conditions of dispatch rules (true is 1, false 0).
_COMPARE_OPS = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}

Expr = int | str

# Bounds on an expression, checked before `ast.parse` (whose recursion a long chain of terms
# exhausts): launch geometry and dispatch conditions are a line, not a program.
MAX_EXPR_CHARS = 400
MAX_EXPR_DEPTH = 24  # nested parentheses or calls


def evaluate(expr: Expr, M: int, N: int, K: int, SMS: int | None = None) -> int:
    """Evaluate an integer expression over M, N, K (arithmetic, cdiv, min, max, comparisons,
    and/or; nothing else). `SMS` (the GPU's SM count) is a name only where it is given: dispatch
    conditions have it, launch geometry does not (a cubin's grid must not depend on the GPU).
    Every way it can fail (syntax, size, division by zero, a name or operator not allowed, a
    value that is not an expression) is a ValueError."""
    try:
        return _evaluate(expr, M, N, K, SMS)
    except ZeroDivisionError:
        raise ValueError(f"{expr!r} divides by zero at M={M}, N={N}, K={K}") from None
    except SyntaxError as exc:
        raise ValueError(f"{expr!r} is not an expression ({exc.msg})") from None
    except (TypeError, RecursionError, MemoryError, OverflowError) as exc:
        raise ValueError(f"{str(expr)[:60]!r} cannot be evaluated ({type(exc).__name__})") from None


def _evaluate(expr: Expr, M: int, N: int, K: int, SMS: int | None = None) -> int:
    if isinstance(expr, bool) or not isinstance(expr, (int, str)):
        raise ValueError(f"an expression must be an integer or a string, not {type(expr).__name__} {str(expr)[:40]!r}")
    if isinstance(expr, int):
        return expr
    if len(expr) > MAX_EXPR_CHARS:
        raise ValueError(f"expression of {len(expr)} characters; at most {MAX_EXPR_CHARS}")
    depth = deepest = 0
    for ch in expr:
        depth += (ch == "(") - (ch == ")")
        deepest = max(deepest, depth)
    if deepest > MAX_EXPR_DEPTH:
        raise ValueError(f"expression nests {deepest} parentheses deep; at most {MAX_EXPR_DEPTH}")
    names = {"M": M, "N": N, "K": K} | ({} if SMS is None else {"SMS": SMS})

    def walk(node: ast.AST) -> int:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name) and node.id in names:
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY_OPS:
            return _BINARY_OPS[type(node.op)](walk(node.left), walk(node.right))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _FUNCTIONS
            and not node.keywords
        ):
            return _FUNCTIONS[node.func.id](*(walk(a) for a in node.args))
        if isinstance(node, ast.Compare) and all(type(op) in _COMPARE_OPS for op in node.ops):
            values = [walk(node.left), *(walk(c) for c in node.comparators)]
            return int(all(_COMPARE_OPS[type(op)](a, b) for op, a, b in zip(node.ops, values, values[1:])))
        if isinstance(node, ast.BoolOp):
            results = [walk(v) for v in node.values]
            return int(all(results) if isinstance(node.op, ast.And) else any(results))
        raise ValueError(f"unsupported expression {ast.unparse(node)!r}")

    return int(walk(ast.parse(expr, mode="eval")))


@dataclass(frozen=True)
class Launch:
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    smem_bytes: int


@dataclass(frozen=True)
class TensorMapSpec:
    """One TMA tensor map a kernel takes (manifest key `tensor_maps`): the launcher encodes it for
    the operand's row-major buffer and passes it, by value, after the fixed argument list."""

    operand: str  # "A", "B" or "C"
    box: tuple[int, int]  # elements copied per TMA: (inner = along the contiguous dimension, outer)
    swizzle: int = 128  # bytes: 0 (none), 32, 64 or 128; with a swizzle, box[0] spans at most that

    @classmethod
    def parse(cls, entry: dict, label: str) -> TensorMapSpec:
        unknown = sorted(set(entry) - {"operand", "box", "swizzle"})
        if unknown or "operand" not in entry or "box" not in entry:
            raise ValueError(f"{label}: a tensor map needs operand and box" + (f"; unknown keys {unknown}" if unknown else ""))
        tm = cls(entry["operand"], tuple(entry["box"]), entry.get("swizzle", 128))
        if tm.operand not in ("A", "B", "C"):
            raise ValueError(f"{label}: tensor map operand must be A, B or C, got {tm.operand!r}")
        if len(tm.box) != 2 or not all(isinstance(b, int) and 1 <= b <= 256 for b in tm.box):
            raise ValueError(f"{label}: tensor map box must be two integers in 1..256, got {list(tm.box)}")
        if tm.swizzle not in (0, 32, 64, 128):
            raise ValueError(f"{label}: tensor map swizzle must be 0, 32, 64 or 128 bytes, got {tm.swizzle}")
        return tm

    def element_type(self, tier: str) -> str:
        """A and B have the tier's input type; C is always float."""
        return TIER_RECORDS[tier].input if self.operand in ("A", "B") else "fp32"

    def element_bytes(self, tier: str) -> int:
        return ELEMENT_BYTES[self.element_type(tier)]

    def check(self, tier: str, label: str) -> None:
        """TMA's rules on the box: inner extent a multiple of 16 bytes, within the swizzle span."""
        inner = self.box[0] * self.element_bytes(tier)
        if inner % 16:
            raise ValueError(f"{label}: tensor map of {self.operand}: box inner extent {inner} bytes is not a multiple of 16")
        if self.swizzle and inner > self.swizzle:
            raise ValueError(f"{label}: tensor map of {self.operand}: box inner extent {inner} bytes exceeds the {self.swizzle}-byte swizzle")


@dataclass(frozen=True)
class KernelSpec:
    """One rung of the ladder, as the manifest describes it."""

    name: str
    file: str
    entry: str
    tier: str  # a tiers.TIERS name: "fp32", "fp16" (half in, float accumulate and out), "fp32-tc"
    idea: str
    grid: tuple[Expr, ...]
    block: tuple[Expr, ...]
    smem_bytes: Expr = 0
    predecessor: str | None = None
    # Divisibility the kernel needs, e.g. {"M": 128, "N": 128, "K": 8}; absent = any size.
    contract: dict[str, int] = field(default_factory=dict)
    spill_free: bool = True
    # On the ladder to show what a shortcut costs (1xTF32): verification must FAIL it. Its FAIL is
    # never timed, and neither `bench`'s exit status nor the GPU tests count it as a failure.
    expect_fail: bool = False
    arch: str | None = None  # e.g. "sm_90a" for wgmma; None = the device's own
    min_cc: int = 0  # lowest compute capability (e.g. 80 for cp.async) the kernel runs on
    nvcc_flags: tuple[str, ...] = ()
    # TMA tensor maps the kernel takes after the fixed arguments, in this order (Hopper rungs).
    tensor_maps: tuple[TensorMapSpec, ...] = ()
    # Matrices the kernel reads through 1D linear textures ("A", "B"): one cudaTextureObject_t per
    # entry, in this order, as extra trailing kernel arguments (see TEXTURE_ROW_DIM and launch.py).
    textures: tuple[str, ...] = ()
    # Probe kernels only (kernels/probes): the bottleneck planted in the kernel (a diagnosis cause
    # key) and the shape [M, N, K] at which it dominates and is profiled.
    planted: str = ""
    probe_shape: tuple[int, ...] = ()
    index: int = 0  # position in the ladder, 1-based; extra manifests continue after the ladder
    directory: str = ""  # the directory of the manifest that declared it ("" = kernels/)

    @classmethod
    def from_dict(cls, fields: dict) -> KernelSpec:
        """Back from `dataclasses.asdict` (e.g. through JSON, where tuples became lists)."""
        maps = tuple(TensorMapSpec(t["operand"], tuple(t["box"]), t.get("swizzle", 128)) for t in fields.get("tensor_maps", ()))
        tuples = ("grid", "block", "nvcc_flags", "textures", "probe_shape")
        return cls(**{**fields, **{k: tuple(fields[k]) for k in tuples if k in fields}, "tensor_maps": maps})

    @property
    def source(self) -> Path:
        """The .cu file: `file` is relative to the directory of the manifest that names it."""
        return (Path(self.directory) if self.directory else KERNELS_DIR) / self.file

    def unsupported_reason(self, M: int, N: int, K: int) -> str | None:
        """Why this kernel cannot run shape (M, N, K), or None when it can."""
        if min(M, N, K) < 1:
            return f"M, N, K must be positive, got {M}x{N}x{K}"
        wrong = [
            f"{dim}={value} is not a multiple of {self.contract[dim]}"
            for dim, value in (("M", M), ("N", N), ("K", K))
            if dim in self.contract and value % self.contract[dim]
        ]
        return f"{self.name} needs " + ", ".join(wrong) if wrong else None

    def gpu_too_old(self, cc: tuple[int, int]) -> str | None:
        """Why a GPU of compute capability `cc` cannot run this kernel (below min_cc), or None."""
        if self.min_cc and cc[0] * 10 + cc[1] < self.min_cc:
            return f"{self.name} needs compute capability {self.min_cc // 10}.{self.min_cc % 10}, this GPU has {cc[0]}.{cc[1]}"
        return None

    def cannot_run(self, M: int, N: int, K: int, cc: tuple[int, int]) -> str | None:
        """Why this kernel cannot run shape (M, N, K) on a GPU of compute capability `cc`, or None."""
        return self.gpu_too_old(cc) or self.unsupported_reason(M, N, K)

    def launch(self, M: int, N: int, K: int) -> Launch:
        def dims(exprs: tuple[Expr, ...]) -> tuple[int, int, int]:
            values = [evaluate(e, M, N, K) for e in exprs] + [1] * (3 - len(exprs))
            return (values[0], values[1], values[2])

        return Launch(dims(self.grid), dims(self.block), evaluate(self.smem_bytes, M, N, K))

    def flop(self, M: int, N: int, K: int) -> int:
        return 2 * M * N * K


_REQUIRED = ("name", "file", "entry", "tier", "idea", "grid", "block")
# A textured matrix is fetched as float4 texels of its row-major buffer, so its rows must be whole
# texels: the dimension that is its row length must be a multiple of TEXEL_FLOATS in the contract.
TEXTURE_ROW_DIM = {"A": "K", "B": "N"}
TEXEL_FLOATS = 4
_ALLOWED = set(KernelSpec.__dataclass_fields__) - {"index", "directory"}
TIERS = tuple(TIER_RECORDS)
# nvcc options (long and short names, `nvcc --help`) that choose, run or configure another
# program (host compiler, linker, archiver, the compiled binary), read more options from a file,
# load code from elsewhere, or write files outside the build cache. A manifest may use them only
# when the same file says so at its top: `allow_host_compiler_flags = true`.
ALLOW_HOST_FLAGS_KEY = "allow_host_compiler_flags"
GUARDED_NVCC_OPTIONS = frozenset({
    "compiler-bindir", "ccbin", "archiver-binary", "arbin", "allow-unsupported-compiler",
    "compiler-options", "Xcompiler", "linker-options", "Xlinker", "archive-options", "Xarchive",
    "nvlink-options", "Xnvlink", "forward-unknown-to-host-compiler", "forward-unknown-to-host-linker",
    "forward-unknown-opts", "options-file", "optf", "run", "run-args", "dont-use-profile", "noprof",
    "libdevice-directory", "ldir", "output-file", "o", "output-directory", "odir", "keep-dir", "keep",
    "time", "dependency-output", "MF", "fdevice-time-trace", "target-directory",
})


def guarded_nvcc_flags(flags) -> list[str]:
    """The flags of `flags` that are GUARDED_NVCC_OPTIONS (as -x, --x, -x=v, --x=v or -x,v)."""
    return [f for f in flags if f.startswith("-") and re.split(r"[=,]", f.lstrip("-"), maxsplit=1)[0] in GUARDED_NVCC_OPTIONS]


def reference_name(tier: str) -> str:
    """The cuBLAS reference of a tier: "cublas" (strict SGEMM) for fp32 and fp32-tc, "cublas-fp16"
    (GemmEx) for fp16 (`tiers.TIERS`)."""
    return TIER_RECORDS[tier].reference


# cuBLAS row name -> the tier whose inputs it takes, for every cuBLAS row (context rows included).
REFERENCES = {name: ref.tier for name, ref in REFERENCE_ROWS.items()}


def reference_tiers(kernels: Iterable[KernelSpec | Dispatcher]) -> list[str]:
    """The tiers whose cuBLAS reference a selection is compared with: one per distinct reference
    among the tiers present (FP32 SGEMM, FP16 GemmEx; fp32-tc shares strict SGEMM with fp32), FP32
    alone for an empty selection. Profile uses it: each reference profiled once."""
    first: dict[str, str] = {}
    for t in sorted({k.tier for k in kernels}) or ["fp32"]:
        first.setdefault(reference_name(t), t)
    return list(first.values())


def reference_rows(kernels: Iterable[KernelSpec | Dispatcher]) -> list[tuple[str, str]]:
    """(cuBLAS row, tier) pairs a bench of `kernels` times: per tier present, its yardstick, then
    its context rows (cuBLAS FAST_TF32 beside fp32-tc). Each tier's chart finds its own rows."""
    tiers = sorted({k.tier for k in kernels}) or ["fp32"]
    return [(name, t) for t in tiers for name in (reference_name(t), *TIER_RECORDS[t].context)]


def parse_manifest(text: str, where: str = "ladder.toml", known: Iterable[str] = (), first_index: int = 1,
                   directory: str = "") -> tuple[KernelSpec, ...]:
    """Parse and validate manifest text; every problem names the kernel and the key.

    `known`: kernels declared before this manifest (the ladder, for an extra manifest), which a
    `predecessor` may name. `first_index` numbers the kernels on after them; `directory` is where
    the kernels' `file`s are (the manifest's own directory)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise GemmprofError(f"{where} is not valid TOML: {exc}") from None
    allow_host_flags = data.get(ALLOW_HOST_FLAGS_KEY, False)
    if not isinstance(allow_host_flags, bool):
        raise GemmprofError(f"{where}: {ALLOW_HOST_FLAGS_KEY} must be true or false")
    specs: list[KernelSpec] = []
    for i, entry in enumerate(_entries(data, "kernel", where), start=first_index):
        label = entry.get("name", f"kernel #{i - first_index + 1}")
        flags = entry.get("nvcc_flags", [])
        if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
            raise GemmprofError(f"{where}: {label}: nvcc_flags must be a list of strings")
        if (guarded := guarded_nvcc_flags(flags)) and not allow_host_flags:
            raise GemmprofError(
                f"{where}: {label}: nvcc_flags {guarded} choose, run or load another program or write outside the build cache",
                f"the built-in ladder needs none; if this file means it, put {ALLOW_HOST_FLAGS_KEY} = true at its top",
            )
        missing = [k for k in _REQUIRED if k not in entry]
        unknown = sorted(set(entry) - _ALLOWED)
        if missing or unknown:
            raise GemmprofError(
                f"{where}: {label}: missing {missing}" if missing else f"{where}: {label}: unknown keys {unknown}"
            )
        _check_types(entry, label, where)
        if entry["tier"] not in TIERS:
            raise GemmprofError(f"{where}: {label}: tier must be one of {TIERS}")
        try:
            maps = tuple(TensorMapSpec.parse(t, label) for t in entry.get("tensor_maps", ()))
            for tm in maps:
                tm.check(entry["tier"], label)
        except (ValueError, TypeError, AttributeError) as exc:
            raise GemmprofError(f"{where}: {exc}") from None
        try:
            spec = KernelSpec(
                **{
                    **entry,
                    "grid": tuple(entry["grid"]),
                    "block": tuple(entry["block"]),
                    "nvcc_flags": tuple(entry.get("nvcc_flags", ())),
                    "tensor_maps": maps,
                    "textures": tuple(entry.get("textures", ())),
                    "probe_shape": tuple(entry.get("probe_shape", ())),
                    "index": i,
                    "directory": directory,
                }
            )
        except TypeError as exc:  # e.g. grid given as a string, not a list
            raise GemmprofError(f"{where}: {label}: {exc}") from None
        _check_textures(spec, where)
        try:  # every expression must evaluate on a plain shape
            spec.launch(1024, 1024, 1024)
        except (ValueError, TypeError, IndexError, ZeroDivisionError, SyntaxError, RecursionError, MemoryError) as exc:
            raise GemmprofError(f"{where}: {label}: bad launch expression: {exc}") from None
        _check_probe_shape(spec, where)
        specs.append(spec)
    names = [s.name for s in specs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise GemmprofError(f"{where}: duplicate kernel names {dupes}")
    declared = set(names) | set(known)
    for spec in specs:
        if spec.predecessor and spec.predecessor not in declared:
            raise GemmprofError(f"{where}: {spec.name}: predecessor {spec.predecessor!r} is not a kernel")
    return tuple(specs)


def _check_probe_shape(spec: KernelSpec, where: str) -> None:
    """A probe's shape is three positive integers inside its own contract."""
    if not spec.probe_shape:
        return
    shape = spec.probe_shape
    if len(shape) != 3 or not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in shape):
        raise GemmprofError(f"{where}: {spec.name}: probe_shape must be [M, N, K], three positive integers, got {list(shape)}")
    reason = spec.unsupported_reason(*shape)
    if reason:
        raise GemmprofError(f"{where}: {spec.name}: probe_shape {list(shape)} is outside the contract ({reason})")


# The TOML type of each kernel key ("expr": an integer or an expression string; "list of X").
_KEY_TYPES = {
    "name": str, "file": str, "entry": str, "tier": str, "idea": str, "predecessor": str, "arch": str,
    "grid": "list of expr", "block": "list of expr", "smem_bytes": "expr", "contract": "table of int",
    "spill_free": bool, "expect_fail": bool, "min_cc": int, "nvcc_flags": "list of str", "tensor_maps": "list of table",
    "textures": "list of str",
}
_ELEMENT = {"expr": (int, str), "str": str, "int": int, "table": dict}


def _entries(data: dict, key: str, where: str) -> list[dict]:
    """`[[key]]` tables of the manifest: a list of tables, else a one-line error."""
    entries = data.get(key, [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise GemmprofError(f"{where}: '{key}' must be an array of tables ([[{key}]] entries)")
    return entries


def _check_types(entry: dict, label: str, where: str) -> None:
    """Each key of a kernel entry has its declared TOML type (a number where a list belongs is a
    one-line error naming the kernel and the key, not a TypeError later)."""
    for key, expected in _KEY_TYPES.items():
        if key not in entry:
            continue
        value = entry[key]
        if isinstance(expected, type):
            ok = isinstance(value, expected) and (expected is bool or not isinstance(value, bool))
        elif expected == "expr":
            ok = isinstance(value, (int, str)) and not isinstance(value, bool)
        else:
            container, _, element = expected.split(" ")
            kind = _ELEMENT[element]
            items = value.values() if container == "table" and isinstance(value, dict) else value
            ok = isinstance(value, dict if container == "table" else list) and all(
                isinstance(v, kind) and not isinstance(v, bool) for v in items)
        if not ok:
            raise GemmprofError(f"{where}: {label}: {key} must be {expected.__name__ if isinstance(expected, type) else expected}, "
                                f"got {str(value)[:40]!r}")


def _check_textures(spec: KernelSpec, where: str) -> None:
    """`textures`: known matrices, each once, fp32 only (float4 texels), and a contract that keeps
    each textured matrix's rows a whole number of texels."""
    if not spec.textures:
        return
    bad = [t for t in spec.textures if t not in TEXTURE_ROW_DIM]
    if bad or len(set(spec.textures)) != len(spec.textures):
        raise GemmprofError(f"{where}: {spec.name}: textures must name each of {sorted(TEXTURE_ROW_DIM)} at most once, got {list(spec.textures)}")
    if spec.tier != "fp32":
        raise GemmprofError(f"{where}: {spec.name}: textures are float4 texels: fp32 tier only")
    if spec.tensor_maps:  # the TMA launcher passes the fixed arguments and its maps, nothing else
        raise GemmprofError(f"{where}: {spec.name}: textures and tensor_maps cannot be combined")
    for matrix in spec.textures:
        dim = TEXTURE_ROW_DIM[matrix]
        if spec.contract.get(dim, 1) % TEXEL_FLOATS:
            raise GemmprofError(
                f"{where}: {spec.name}: texture {matrix} needs its rows in whole float4 texels: "
                f"the contract must make {dim} a multiple of {TEXEL_FLOATS}"
            )


def read_manifest(path: Path, known: Iterable[str] = (), first_index: int = 1) -> tuple[KernelSpec, ...]:
    """One manifest file, its kernels' sources checked on disk. Errors name the file."""
    where = path.name if path == MANIFEST_PATH else str(path)
    if not path.is_file():
        if path == MANIFEST_PATH:
            raise GemmprofError(f"kernel manifest not found at {path}", "reinstall gemmprof (pip install .) or run it from a checkout")
        raise GemmprofError(f"manifest {path} not found", f"check --manifest and ${MANIFEST_ENV}")
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise GemmprofError(f"manifest {path} cannot be read: {exc}") from None
    specs = parse_manifest(text, where, known, first_index, directory=str(path.resolve().parent))
    for spec in specs:
        if not spec.source.is_file():
            raise GemmprofError(f"{where}: {spec.name}: kernel source {spec.source} not found", "'file' is relative to the manifest's directory")
    return specs


def extra_manifest_paths(value: str | None = None) -> tuple[Path, ...]:
    """The extra manifests named by $GEMMPROF_MANIFEST (or `value`), in order, each once."""
    value = os.environ.get(MANIFEST_ENV, "") if value is None else value
    paths = [Path(p).expanduser() for p in value.split(os.pathsep) if p.strip()]
    return tuple(dict.fromkeys(p.resolve() for p in paths))


def load_manifest(path: Path | None = None) -> tuple[KernelSpec, ...]:
    """The ladder plus the kernels of the extra manifests in $GEMMPROF_MANIFEST; given a path,
    that manifest's kernels alone (an extra one numbered after the ladder, its predecessors may
    be rungs). Cached per value of the variable, so a changed value is seen at once."""
    if path is not None:
        return _load_one(Path(path))
    return _load_all(os.environ.get(MANIFEST_ENV, ""))


@cache
def _load_one(path: Path) -> tuple[KernelSpec, ...]:
    if path == MANIFEST_PATH:
        return read_manifest(path)
    ladder = _load_one(MANIFEST_PATH)
    return read_manifest(path, known=[s.name for s in ladder], first_index=len(ladder) + 1)


@cache
def _load_all(extra: str) -> tuple[KernelSpec, ...]:
    specs = list(_load_one(MANIFEST_PATH))
    origin = {s.name: MANIFEST_PATH for s in specs}
    for path in extra_manifest_paths(extra):
        if path == MANIFEST_PATH.resolve():
            continue
        for spec in read_manifest(path, known=[s.name for s in specs], first_index=len(specs) + 1):
            if spec.name in REFERENCES:
                raise GemmprofError(f"{path}: kernel {spec.name!r}: the name is the cuBLAS reference's", "rename the kernel")
            if spec.name in origin:
                raise GemmprofError(f"kernel {spec.name!r} of {path} clashes with the one of {origin[spec.name]}",
                                    "rename it in one of the two manifests")
            origin[spec.name] = path
            specs.append(spec)
    return tuple(specs)


def select_kernels(names: list[str] | None, tier: str | None = None) -> list[KernelSpec]:
    """Kernels by name ('all' or None for the whole ladder), in ladder order."""
    specs = [s for s in load_manifest() if tier is None or s.tier == tier]
    if not names or names == ["all"]:
        return specs
    by_name = {s.name: s for s in load_manifest()}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise GemmprofError(
            f"unknown kernel {', '.join(map(repr, unknown))}",
            f"choose from: {', '.join(by_name)} (or 'all')",
        )
    return [by_name[n] for n in names]



# --- dispatchers: one name, a kernel chosen by shape (as cuBLAS's heuristics do) ---------------


# The SM count a dispatch condition is checked with when no GPU is at hand (an H100 or H200).
DEFAULT_SMS = 132


@dataclass(frozen=True)
class DispatchRule:
    kernel: str
    when: Expr = 1  # a condition over M, N, K and SMS; the first rule that holds and whose kernel takes the shape wins


@dataclass(frozen=True)
class Dispatcher:
    """`[[dispatch]]` in the manifest: rules derived from a sweep (`gemmprof dispatch RUN`)."""

    name: str
    tier: str
    idea: str
    rules: tuple[DispatchRule, ...]
    derived_from: str = ""  # the run whose sweep the rules come from

    def choose(self, M: int, N: int, K: int, kernels: dict[str, KernelSpec], sms: int = DEFAULT_SMS) -> KernelSpec | None:
        picked = self.pick(M, N, K, kernels, sms)
        return picked[0] if picked else None

    def pick(self, M: int, N: int, K: int, kernels: dict[str, KernelSpec], sms: int = DEFAULT_SMS) -> tuple[KernelSpec, int] | None:
        """(the kernel, the index of the rule that chose it) at this shape on a GPU of `sms` SMs."""
        for i, rule in enumerate(self.rules):
            spec = kernels[rule.kernel]
            try:
                holds = evaluate(rule.when, M, N, K, sms)
            except ValueError as exc:  # e.g. a condition dividing by zero at this shape only
                raise GemmprofError(f"dispatch {self.name}: rule for {rule.kernel}: {exc}",
                                    "fix the condition in the manifest") from None
            if holds and spec.unsupported_reason(M, N, K) is None:
                return spec, i
        return None

    def reason(self, index: int) -> str:
        """Why rule `index` was chosen, for the bench row: its number and condition."""
        when = self.rules[index].when
        return f"rule {index + 1}: " + ("always" if when == 1 else str(when))


def parse_dispatchers(text: str, kernels: tuple[KernelSpec, ...], where: str = "ladder.toml") -> tuple[Dispatcher, ...]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise GemmprofError(f"{where} is not valid TOML: {exc}") from None
    names = {s.name: s for s in kernels}
    out = []
    for i, entry in enumerate(_entries(data, "dispatch", where), start=1):
        label = entry.get("name", f"dispatch #{i}")
        unknown = sorted(set(entry) - {"name", "tier", "idea", "rules", "derived_from"})
        if unknown or not all(k in entry for k in ("name", "tier", "idea", "rules")):
            raise GemmprofError(f"{where}: dispatch {label}: needs name, tier, idea, rules" + (f"; unknown keys {unknown}" if unknown else ""))
        if not all(isinstance(entry[k], str) for k in ("name", "tier", "idea")) or not isinstance(entry.get("derived_from", ""), str):
            raise GemmprofError(f"{where}: dispatch {label}: name, tier, idea and derived_from must be strings")
        if not isinstance(entry["rules"], list) or not all(isinstance(r, dict) for r in entry["rules"]):
            raise GemmprofError(f"{where}: dispatch {label}: rules must be an array of tables ({{kernel = ..., when = ...}})")
        if label in names or label == CUBLAS:
            raise GemmprofError(f"{where}: dispatch {label}: the name is taken by a kernel")
        rules = []
        for rule in entry["rules"]:
            if rule.get("kernel") not in names:
                raise GemmprofError(f"{where}: dispatch {label}: rule names unknown kernel {rule.get('kernel')!r}")
            if names[rule["kernel"]].tier != entry["tier"]:
                raise GemmprofError(f"{where}: dispatch {label}: {rule['kernel']} is not a {entry['tier']} kernel")
            try:
                evaluate(rule.get("when", 1), 1024, 1024, 1024, DEFAULT_SMS)
            except ValueError as exc:
                raise GemmprofError(f"{where}: dispatch {label}: rule for {rule['kernel']}: bad condition: {exc}") from None
            rules.append(DispatchRule(rule["kernel"], rule.get("when", 1)))
        out.append(Dispatcher(entry["name"], entry["tier"], entry["idea"], tuple(rules), entry.get("derived_from", "")))
    return tuple(out)


def check_manifest_text(text: str, where: str = "ladder.toml") -> None:
    """Validate a whole manifest (kernels and dispatchers) from its text, with no cache: what
    `dispatch --write` runs on the file it wrote before keeping it."""
    parse_dispatchers(text, parse_manifest(text, where), where)


@cache
def load_dispatchers(path: Path = MANIFEST_PATH) -> tuple[Dispatcher, ...]:
    return parse_dispatchers(path.read_text(), load_manifest(path), where=str(path.name))


def clear_caches(kernels: bool = True) -> None:
    """Forget the manifests read so far (`dispatch --write` changed the dispatchers only)."""
    for loader in _CACHED if kernels else _CACHED[-1:]:
        loader.cache_clear()


_CACHED = (_load_one, _load_all, load_dispatchers)


def select_for_bench(names: list[str] | None) -> tuple[list[KernelSpec], list[Dispatcher]]:
    """The kernels and dispatchers a --kernel list names: none or 'all' is the whole ladder and
    every dispatcher; dispatcher names alone bench only those (their kernels are built, not timed)."""
    kernel_names, dispatchers = split_names(names)
    return ([] if kernel_names == [] else select_kernels(kernel_names)), dispatchers


def split_names(names: list[str] | None) -> tuple[list[str] | None, list[Dispatcher]]:
    """Separate dispatcher names from kernel names in a --kernel list. No list, or 'all', means
    every kernel and every dispatcher."""
    if not names or names == ["all"]:
        return None, list(load_dispatchers())
    by_name = {d.name: d for d in load_dispatchers()}
    return [n for n in names if n not in by_name], [by_name[n] for n in names if n in by_name]
