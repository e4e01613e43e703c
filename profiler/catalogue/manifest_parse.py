"""Manifest text -> validated `KernelSpec`s: every key's type, the required and unknown keys,
guarded nvcc options, textures and probe shapes checked, each problem naming the kernel and the
key."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..errors import GemmprofError
from .kernel_spec import STAGED_ROW_BYTES, KernelSpec, TensorMapSpec
from ..tiers import TIERS as TIER_RECORDS
from .toml_tables import entries, read_toml


_REQUIRED = ("name", "file", "entry", "tier", "idea", "grid", "block")


# A textured matrix is fetched as float4 texels of its row-major buffer, so its rows must be whole
# texels: the dimension that is its row length must be a multiple of TEXEL_FLOATS in the contract.
TEXTURE_ROW_DIM = {"A": "K", "B": "N"}


TEXEL_FLOATS = 4


_ALLOWED = set(KernelSpec.__dataclass_fields__) - {"index", "directory"}


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


def parse_manifest(text: str, where: str = "ladder.toml", known: Iterable[str] = (), first_index: int = 1,
                   directory: str = "") -> tuple[KernelSpec, ...]:
    """Parse and validate manifest text; every problem names the kernel and the key.

    `known`: kernels declared before this manifest (the ladder, for an extra manifest), which a
    `predecessor` may name. `first_index` numbers the kernels on after them; `directory` is where
    the kernels' `file`s are (the manifest's own directory)."""
    data = read_toml(text, where)
    allow_host_flags = data.get(ALLOW_HOST_FLAGS_KEY, False)
    if not isinstance(allow_host_flags, bool):
        raise GemmprofError(f"{where}: {ALLOW_HOST_FLAGS_KEY} must be true or false")
    specs: list[KernelSpec] = []
    for i, entry in enumerate(entries(data, "kernel", where), start=first_index):
        label = entry.get("name", f"kernel #{i - first_index + 1}")
        _check_entry(entry, label, where, allow_host_flags)
        spec = _spec_of(entry, label, where, i, directory)
        _check_spec(spec, label, where)
        specs.append(spec)
    _check_names(specs, known, where)
    return tuple(specs)


def _check_entry(entry: dict, label: str, where: str, allow_host_flags: bool) -> None:
    """The entry's keys before a spec is made of them: nvcc flags (guarded ones only where the
    file allows them), none missing or unknown, each of its type, a known tier."""
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
    if entry["tier"] not in TIER_RECORDS:
        raise GemmprofError(f"{where}: {label}: tier must be one of {tuple(TIER_RECORDS)}")


def _spec_of(entry: dict, label: str, where: str, index: int, directory: str) -> KernelSpec:
    """The checked entry as a `KernelSpec`, its lists as tuples and its tensor maps parsed."""
    try:
        maps = tuple(TensorMapSpec.parse(t, label) for t in entry.get("tensor_maps", ()))
        for tm in maps:
            tm.check(entry["tier"], label)
    except (ValueError, TypeError, AttributeError) as exc:
        raise GemmprofError(f"{where}: {exc}") from None
    try:
        return KernelSpec(
            **{
                **entry,
                "grid": tuple(entry["grid"]),
                "block": tuple(entry["block"]),
                "nvcc_flags": tuple(entry.get("nvcc_flags", ())),
                "tensor_maps": maps,
                "textures": tuple(entry.get("textures", ())),
                "staging": tuple(entry.get("staging", ())),
                "probe_shape": tuple(entry.get("probe_shape", ())),
                "index": index,
                "directory": directory,
            }
        )
    except TypeError as exc:  # e.g. grid given as a string, not a list
        raise GemmprofError(f"{where}: {label}: {exc}") from None


def _check_spec(spec: KernelSpec, label: str, where: str) -> None:
    """What only the whole spec can show: textures, staging, launch expressions that evaluate
    on a plain shape, a probe shape inside the contract."""
    _check_textures(spec, where)
    _check_staging(spec, where)
    try:  # every expression must evaluate on a plain shape
        spec.launch(1024, 1024, 1024)
    except (ValueError, TypeError, IndexError, ZeroDivisionError, SyntaxError, RecursionError, MemoryError) as exc:
        raise GemmprofError(f"{where}: {label}: bad launch expression: {exc}") from None
    _check_probe_shape(spec, where)


def _check_names(specs: list[KernelSpec], known: Iterable[str], where: str) -> None:
    """Each kernel named once, each predecessor a kernel of this manifest or of `known`."""
    names = [s.name for s in specs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise GemmprofError(f"{where}: duplicate kernel names {dupes}")
    declared = set(names) | set(known)
    for spec in specs:
        if spec.predecessor and spec.predecessor not in declared:
            raise GemmprofError(f"{where}: {spec.name}: predecessor {spec.predecessor!r} is not a kernel")


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
    "textures": "list of str", "staging": "list of str", "staging_pitch_bytes": int, "staging_row_bytes": int,
    "cooperative": "bool or expr",
}


_ELEMENT = {"expr": (int, str), "str": str, "int": int, "table": dict}


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
        elif expected == "bool or expr":
            ok = isinstance(value, (bool, int, str))
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


def _check_staging(spec: KernelSpec, where: str) -> None:
    """`staging`: A and/or B, each once, each read through a tensor map (the launcher encodes that
    map over the staged copy)."""
    if not spec.staging:
        for key in ("staging_pitch_bytes", "staging_row_bytes"):
            if getattr(spec, key) != STAGED_ROW_BYTES:
                raise GemmprofError(f"{where}: {spec.name}: {key} without staging")
        return
    for key in ("staging_pitch_bytes", "staging_row_bytes"):
        if getattr(spec, key) not in (16, 32, 64, 128):
            raise GemmprofError(f"{where}: {spec.name}: {key} must be 16, 32, 64 or 128, got {getattr(spec, key)}")
    if spec.staging_row_bytes > spec.staging_pitch_bytes:
        raise GemmprofError(f"{where}: {spec.name}: staging_row_bytes {spec.staging_row_bytes} exceeds staging_pitch_bytes "
                            f"{spec.staging_pitch_bytes}: the copies' own rows would need copying")
    if any(s not in ("A", "B") for s in spec.staging) or len(set(spec.staging)) != len(spec.staging):
        raise GemmprofError(f"{where}: {spec.name}: staging must name each of ['A', 'B'] at most once, got {list(spec.staging)}")
    mapped = {tm.operand for tm in spec.tensor_maps}
    unmapped = [s for s in spec.staging if s not in mapped]
    if unmapped:
        raise GemmprofError(f"{where}: {spec.name}: staged operands {unmapped} have no tensor map: staging feeds TMA")
