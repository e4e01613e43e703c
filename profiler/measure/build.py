"""Compile ladder kernels to cubins with nvcc, cached by content hash, and read ptxas's resources.

Cubins (not NVRTC) because a cubin built with `-lineinfo` keeps the real source path, so Nsight
Compute's source view shows the kernel's own lines.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path

from ..errors import Exit, GemmprofError
from ..catalogue.kernel_paths import KERNELS_DIR
from ..catalogue.kernel_spec import KernelSpec
from ..names import slug

BASE_FLAGS = ("-O3", "-lineinfo", "--cubin", "-Xptxas", "-v")
CACHE_ENV = "GEMMPROF_CACHE_DIR"


def cache_dir() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "gemmprof") / "cubins"


@dataclass(frozen=True)
class Resources:
    """What ptxas reports for one entry point."""

    kernel: str
    arch: str
    registers: int
    shared_bytes: int
    stack_bytes: int
    spill_store_bytes: int
    spill_load_bytes: int
    barriers: int

    @property
    def spills(self) -> bool:
        return bool(self.spill_store_bytes or self.spill_load_bytes)


@dataclass(frozen=True)
class Built:
    spec: KernelSpec
    cubin: Path
    resources: Resources
    cached: bool

    @property
    def breaks_spill_free(self) -> bool:
        """Marked spill_free in the manifest, yet ptxas gave it local memory (spills or a stack)."""
        return self.spec.spill_free and bool(self.resources.spills or self.resources.stack_bytes)


_PTXAS_PROPS = re.compile(
    r"Function properties for (?P<entry>\S+)\s*\n\s*(?P<stack>\d+) bytes stack frame, "
    r"(?P<st>\d+) bytes spill stores, (?P<ld>\d+) bytes spill loads"
)
_PTXAS_USED = re.compile(r"Compiling entry function '(?P<entry>[^']+)'.*?Used (?P<regs>\d+) registers(?P<rest>[^\n]*)", re.S)


def parse_ptxas(log: str, entry: str) -> dict[str, int]:
    """Registers, shared memory, stack and spills of `entry` from `ptxas -v` output."""
    props = {m["entry"]: m for m in _PTXAS_PROPS.finditer(log)}
    used = {m["entry"]: m for m in _PTXAS_USED.finditer(log)}
    if entry not in props or entry not in used:
        found = ", ".join(sorted(used)) or "none"
        raise GemmprofError(f"entry {entry!r} not found (the kernels compiled: {found})",
                            "the manifest's entry must be an extern \"C\" __global__ function of the .cu")
    rest = used[entry]["rest"]
    smem = re.search(r"(\d+) bytes smem", rest)
    barriers = re.search(r"used (\d+) barriers", rest)
    return {
        "registers": int(used[entry]["regs"]),
        "shared_bytes": int(smem.group(1)) if smem else 0,
        "stack_bytes": int(props[entry]["stack"]),
        "spill_store_bytes": int(props[entry]["st"]),
        "spill_load_bytes": int(props[entry]["ld"]),
        "barriers": int(barriers.group(1)) if barriers else 0,
    }


def find_nvcc() -> Path:
    found = shutil.which("nvcc") or next((p for p in ("/usr/local/cuda/bin/nvcc",) if Path(p).is_file()), None)
    if not found:
        raise GemmprofError("nvcc not found", "install the CUDA toolkit or put its bin/ directory on PATH",
                            exit_code=Exit.NO_CUDA)
    return Path(found)


def arch_flags(arch: str) -> list[str]:
    """`sm_90a` needs the -gencode form (the -arch shorthand also runs a plain sm_90 pass)."""
    if arch.endswith("a"):
        num = arch.removeprefix("sm_")
        return [f"-gencode=arch=compute_{num},code=sm_{num}"]
    return [f"-arch={arch}"]


def include_dirs(spec: KernelSpec) -> list[Path]:
    """kernels/ (the ladder's shared headers) and, for a kernel of another manifest, its own directory."""
    return list(dict.fromkeys([KERNELS_DIR, spec.source.parent]))


def compile_command(spec: KernelSpec, arch: str, out: Path, nvcc: Path) -> list[str]:
    includes = [arg for d in include_dirs(spec) for arg in ("-I", str(d))]
    return [str(nvcc), *BASE_FLAGS, *arch_flags(spec.arch or arch), *spec.nvcc_flags, *includes, "-o", str(out), str(spec.source)]


def _source_hash(spec: KernelSpec, arch: str, nvcc_id: str) -> str:
    h = hashlib.sha256()
    h.update(spec.source.read_bytes())
    for directory in include_dirs(spec):  # headers there may be included
        for header in sorted(directory.glob("*.cuh")):
            h.update(str(header).encode() + header.read_bytes())
    h.update(f"{spec.entry}|{spec.arch or arch}|{BASE_FLAGS}|{spec.nvcc_flags}|{nvcc_id}".encode())
    return h.hexdigest()[:20]


def check_signature(spec: KernelSpec, cubin: bytes) -> None:
    """The entry's parameters, as the cubin records them, against what the launcher passes: a
    wrong signature is a one-line error here, not a fault or a FAIL on the GPU."""
    from .cubin import parameter_sizes
    from .launch import parameter_bytes

    found, wanted = parameter_sizes(cubin, spec.entry) or [], parameter_bytes(spec)
    if found != wanted:
        extras = (" + a pointer per `staging` entry" * bool(spec.staging) + " + a texture handle per `textures` entry" * bool(spec.textures)
                  + " + a CUtensorMap per `tensor_maps` entry" * bool(spec.tensor_maps))
        raise GemmprofError(
            f"{spec.source}: {spec.name}: {spec.entry} takes {len(found)} parameters of {found or 'no'} bytes; "
            f"the launcher passes {len(wanted)} of {wanted} bytes",
            "the signature must be (int M, int N, int K, float alpha, const T* A, const T* B, float beta, float* C)" + extras)


def build_kernel(spec: KernelSpec, arch: str, nvcc: Path | None = None, force: bool = False) -> Built:
    """Compile one kernel (or reuse the cached cubin of the same source, flags and compiler)."""
    nvcc = nvcc or find_nvcc()
    if not spec.source.is_file():
        raise GemmprofError(f"kernel source {spec.source} of {spec.name} not found", "check 'file' in its manifest (relative to the manifest's directory)")
    target = spec.arch or arch
    key = _source_hash(spec, arch, str(nvcc.resolve()))
    stem = slug(spec.name)  # a manifest name is text; a path component must stay in the cache
    out_dir = cache_dir() / f"{stem}-{slug(target)}-{key}"
    cubin, meta = out_dir / f"{stem}.cubin", out_dir / "resources.json"
    if cubin.is_file() and meta.is_file() and not force:
        return Built(spec, cubin, Resources(**json.loads(meta.read_text())), cached=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = out_dir / f".{stem}.{os.getpid()}.cubin"
    proc = subprocess.run(compile_command(spec, arch, tmp, nvcc), capture_output=True, text=True)
    if proc.returncode:
        last = "\n".join(proc.stderr.strip().splitlines()[-8:])
        raise GemmprofError(f"nvcc failed on {spec.file}:\n{last}")
    try:
        resources = Resources(kernel=spec.name, arch=target, **parse_ptxas(proc.stdout + proc.stderr, spec.entry))
    except GemmprofError as exc:  # name the kernel and its file
        raise GemmprofError(f"{spec.source}: {spec.name}: {exc.message}", exc.hint) from None
    check_signature(spec, tmp.read_bytes())
    meta.write_text(json.dumps(asdict(resources)))
    tmp.replace(cubin)  # atomic: a half-written cubin is never picked up from the cache
    return Built(spec, cubin, resources, cached=False)


def build_all(specs: list[KernelSpec], arch: str, force: bool = False, jobs: int | None = None,
              on_built: Callable[[Built], None] | None = None) -> list[Built]:
    """Every kernel of `specs` built (or taken from the cache), in their order, nvcc running
    `jobs` at a time; `on_built(built)` as each is done, in the order they finish (the whole
    ladder takes tens of seconds: a command shows each one as it comes)."""
    nvcc = find_nvcc()
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 2) as pool:
        futures = [pool.submit(build_kernel, s, arch, nvcc, force) for s in specs]
        for future in as_completed(futures):
            if on_built is not None and future.exception() is None:
                on_built(future.result())
        return [f.result() for f in futures]  # the first failure (in ladder order) raises here


RESOURCES_TABLE = KERNELS_DIR / "resources.csv"
RESOURCE_COLUMNS = list(Resources.__dataclass_fields__)


def write_resources_table(built: list[Built], path: Path = RESOURCES_TABLE) -> None:
    import csv

    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=RESOURCE_COLUMNS)
        w.writeheader()
        for b in built:
            w.writerow(asdict(b.resources))


def read_resources_table(path: Path = RESOURCES_TABLE) -> list[Resources]:
    import csv

    with open(path, newline="") as f:
        return [
            Resources(**{k: (v if k in ("kernel", "arch") else int(v)) for k, v in row.items()})
            for row in csv.DictReader(f)
        ]
