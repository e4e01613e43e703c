"""`gemmprof new`: the files of a kernel of the user's own, a `.cu` and a one-kernel manifest,
that build and pass verification as written, so the first edit starts from something that works.

The source is either a copy of a ladder rung (its entry point renamed, its launch geometry and
contract carried into the manifest, the rung named as predecessor) or a plain 32x32 shared-memory
tile kernel that takes any shape. Both files are checked (names, clashes, the manifest parsed back)
before either is written, and neither overwrites anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from string import Template

import tomlkit

from ..errors import GemmprofError
from .dispatchers import load_dispatchers
from .kernel_spec import KernelSpec, TensorMapSpec
from .manifest import REFERENCES, TIERS, load_manifest
from .manifest_parse import parse_manifest
from ..names import is_plain

# The element type of A and B per tier (C and the accumulator are float in every tier).
INPUT_TYPE = {"fp32": "float", "fp16": "__half"}
# KernelSpec fields a copy of a rung keeps: everything about how it is launched and built.
_LAUNCH_FIELDS = ("tier", "grid", "block", "smem_bytes", "contract", "spill_free", "arch", "min_cc",
                  "nvcc_flags", "tensor_maps", "textures")
# The scaffold kernel's launch: one thread per element of a TILE x TILE tile of C.
TILE = 32


def signature(tier: str, entry: str) -> str:
    """The entry point every manifest kernel of `tier` must have (README, "Signature")."""
    t = INPUT_TYPE[tier]
    return (f'extern "C" __global__ void {entry}(int M, int N, int K, float alpha, const {t}* A, '
            f"const {t}* B, float beta, float* C)")


def entry_name(kernel: str) -> str:
    """The C symbol for a kernel name: `sgemm_` and the name with other characters as '_'."""
    return "sgemm_" + re.sub(r"\W", "_", kernel, flags=re.ASCII)


@dataclass(frozen=True)
class Scaffold:
    """The two files `gemmprof new` writes, before they are written."""

    source: Path
    source_text: str
    manifest: Path
    manifest_text: str


def scaffold(kernel: str, directory: Path, base: str | None = None, tier: str | None = None) -> Scaffold:
    """The files of a new kernel `kernel` in `directory`: a copy of rung `base`, or the tile
    kernel of `tier` (default fp32). Raises GemmprofError for a bad or taken name, an unknown
    rung, a tier that contradicts the rung, or files that exist already."""
    check_name(kernel)
    if tier is not None and tier not in TIERS:
        raise GemmprofError(f"--tier {tier!r} is not a tier", f"choose from {', '.join(TIERS)}")
    entry = entry_name(kernel)
    source, manifest = directory / f"{kernel}.cu", directory / f"{kernel}.toml"
    if base is None:
        tier = tier or "fp32"
        fields = {"tier": tier, "grid": [f"cdiv(N, {TILE})", f"cdiv(M, {TILE})"], "block": [TILE, TILE],
                  "smem_bytes": 0, "spill_free": True}
        idea = f"{TILE}x{TILE} tiles of A and B staged in shared memory (the gemmprof new starting point)"
        body = Template(_TILE_KERNEL).substitute(signature_line=signature(tier, entry), tile=TILE,
                                                 include="#include <cuda_fp16.h>\n\n" if tier == "fp16" else "",
                                                 load="__half2float" if tier == "fp16" else "")
    else:
        rung = _rung(base)
        if tier is not None and tier != rung.tier:
            raise GemmprofError(f"--tier {tier} contradicts --from {base}, a {rung.tier} kernel", "leave --tier out with --from")
        tier = rung.tier
        fields = _launch_fields(rung)
        idea = f"starts as a copy of {rung.name}: {rung.idea}"
        body = _renamed(rung, entry)
    text = _header(kernel, entry, tier, idea, manifest.name, fields) + body
    toml = _manifest_text(kernel, source.name, entry, idea, base, fields)
    known = [s.name for s in load_manifest()]
    parse_manifest(toml, str(manifest), known=known, directory=str(directory))  # what build will read
    existing = [str(p) for p in (source, manifest) if p.exists()]
    if existing:
        raise GemmprofError(f"{' and '.join(existing)} already exist{'s' if len(existing) == 1 else ''}; nothing written",
                            "choose another name or --dir, or remove them")
    return Scaffold(source, text, manifest, toml)


def check_name(kernel: str) -> None:
    """A new kernel's name is a plain file name (profiler.names) and not taken by a kernel, a
    dispatcher or a cuBLAS reference that gemmprof already knows."""
    if not is_plain(kernel) or not re.fullmatch(r"[A-Za-z_][\w-]*", kernel, flags=re.ASCII):
        raise GemmprofError(f"kernel name {kernel!r} is not a plain name",
                            "start with a letter or '_', then letters, digits, '_' or '-'")
    taken = {s.name for s in load_manifest()} | {d.name for d in load_dispatchers()} | set(REFERENCES)
    if kernel in taken:
        raise GemmprofError(f"kernel name {kernel!r} is taken by the built-in ladder (or a manifest already loaded)",
                            "choose another name")


def _rung(name: str) -> KernelSpec:
    by_name = {s.name: s for s in load_manifest()}
    if name not in by_name:
        raise GemmprofError(f"--from {name!r} is not a kernel", f"choose from: {', '.join(by_name)}")
    return by_name[name]


def _launch_fields(rung: KernelSpec) -> dict:
    """The rung's launch and build keys, as manifest values, leaving out those at their default."""
    fields = {}
    for key in _LAUNCH_FIELDS:
        value = getattr(rung, key)
        if key == "tensor_maps":
            value = [{"operand": m.operand, "box": list(m.box), "swizzle": m.swizzle,
                      **({} if m.l2_promotion == TensorMapSpec.l2_promotion else {"l2_promotion": m.l2_promotion})}
                     for m in value]
        elif isinstance(value, tuple):
            value = list(value)
        if value in (None, [], {}) or (key == "min_cc" and value == 0):
            continue
        fields[key] = value
    return fields


def _renamed(rung: KernelSpec, entry: str) -> str:
    """The rung's source with its entry point renamed; GemmprofError when the source does not
    name it (the copy would not build)."""
    text = rung.source.read_text()
    renamed, count = re.subn(rf"\b{re.escape(rung.entry)}\b", entry, text)
    if not count:
        raise GemmprofError(f"{rung.source} does not define {rung.entry}", "its manifest entry is stale")
    return renamed


def _header(kernel: str, entry: str, tier: str, idea: str, manifest: str, fields: dict) -> str:
    contract = fields.get("contract") or {}
    shapes = ", ".join(f"{d} a multiple of {v}" for d, v in contract.items()) or "any M, N, K"
    head, params = signature(tier, entry).split("(", 1)
    extra = [f"one cudaTextureObject_t per texture ({', '.join(fields['textures'])})"] if fields.get("textures") else []
    if fields.get("tensor_maps"):
        operands = ", ".join(m["operand"] for m in fields["tensor_maps"])
        extra.append(f"one const __grid_constant__ CUtensorMap per tensor map ({operands})")
    lines = [
        f"{kernel}: {idea}.",
        "",
        "Idea: say here, in a line or two, what this kernel changes and why it should be faster.",
        "",
        f"Contract ({manifest}, the gemmprof manifest that declares it):",
        f"  {head}(",
        f"      {params}",
        *(f"  followed, after C, by {e}" for e in extra),
        "  Row-major A (M x K), B (K x N), C (M x N); computes C = alpha * A @ B + beta * C with FP32",
        "  accumulation; with beta == 0 it must not read C (verification fills C with NaN).",
        f"  Launch: grid ({', '.join(map(str, fields['grid']))}), block ({', '.join(map(str, fields['block']))}),",
        f"  dynamic shared memory {fields.get('smem_bytes', 0)} bytes. Shapes: {shapes}.",
        f"  Change {manifest} when the tiling changes.",
    ]
    return "".join(f"// {line}".rstrip() + "\n" for line in lines) + "\n"


def _manifest_text(kernel: str, file: str, entry: str, idea: str, base: str | None, fields: dict) -> str:
    doc = tomlkit.document()
    doc.add(tomlkit.comment(f"{kernel}: a kernel of your own (gemmprof new). 'file' is relative to this manifest."))
    doc.add(tomlkit.comment(f"gemmprof build --manifest {kernel}.toml -k {kernel}"))
    doc.add(tomlkit.comment(f"gemmprof bench --manifest {kernel}.toml -k {kernel} --sizes 1024,2048"))
    entry_table = tomlkit.table()
    entry_table.update({"name": kernel, "file": file, "entry": entry, "idea": idea})
    if base is not None:
        entry_table["predecessor"] = base
    for key, value in fields.items():
        entry_table[key] = tomlkit.inline_table() if isinstance(value, dict) else value
        if isinstance(value, dict):
            entry_table[key].update(value)
    kernels = tomlkit.aot()
    kernels.append(entry_table)
    doc["kernel"] = kernels
    return tomlkit.dumps(doc)


# The scaffold kernel: a TILE x TILE block computes a TILE x TILE tile of C, staging tiles of A
# and B in shared memory; out-of-range elements are zeros, so any M, N, K is correct.
_TILE_KERNEL = """${include}#define TILE ${tile}

${signature_line}
{
    __shared__ float As[TILE][TILE];  // As[m][k]
    __shared__ float Bs[TILE][TILE];  // Bs[k][n]

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;  // of C and A
    const int col = blockIdx.x * TILE + tx;  // of C and B

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        // Every thread loads one element of each tile (zero outside the matrices) and reaches
        // both barriers.
        As[ty][tx] = (row < M && k0 + tx < K) ? ${load}(A[(size_t)row * K + k0 + tx]) : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? ${load}(B[(size_t)(k0 + ty) * N + col]) : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();  // before the next iteration overwrites the tiles
    }

    if (row < M && col < N) {
        float* c = C + (size_t)row * N + col;
        *c = beta != 0.0f ? alpha * acc + beta * *c : alpha * acc;  // beta == 0: C is not read
    }
}
"""
