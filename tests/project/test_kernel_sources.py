"""Static checks of the kernel sources against the manifest (plain: no compiler, no GPU).

What ptxas cannot tell: that the block size and dynamic shared memory in ladder.toml are the ones
the source was written for, that each entry point takes its tier's element type, that every
cp.async pipeline waits for its copies right before the barrier that publishes them, and that
each header names the kernel it improves on (by name: rung numbers go stale)."""

import re

import pytest

from helpers.c_source import c_int, code, flag_defines, macros, selected, with_headers
from profiler.catalogue.kernel_paths import KERNELS_DIR
from profiler.catalogue.manifest import load_manifest
from profiler.tiers import TIERS

SPECS = load_manifest()
EXPERIMENTS = load_manifest(KERNELS_DIR / "experiments" / "experiments.toml")
BY_NAME = {s.name: s for s in SPECS}
# Every FP32 kernel must run the headline sizes and the rectangle of the GPU sweep; FP16 kernels
# the headline sizes.
MUST_RUN = {"fp32": [(4096, 4096, 4096), (8192, 8192, 8192), (1536, 512, 2048)],
            "fp16": [(4096, 4096, 4096), (8192, 8192, 8192)],
            "fp32-tc": [(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192)]}
ELEMENT = {name: {"fp32": "float", "fp16": "__half"}[t.input] for name, t in TIERS.items()}


def header(text: str) -> str:
    """The leading block of // comment lines."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("//"):
            break
        lines.append(line[2:].strip())
    return "\n".join(lines)


def source(spec) -> str:
    return spec.source.read_text()


def test_selected_keeps_the_branches_a_builds_flags_choose():
    text = "#define TN 80\nA\n#if TN == 80\nB\n#else\nC\n#ifdef Q\nQ\n#endif\n#endif\n#ifndef X\nD\n#if TN == 64\nE\n#endif\n#endif\nF"
    assert selected(text, macros(text)).splitlines() == ["#define TN 80", "A", "B", "#ifndef X", "D", "#endif", "F"]
    built = "#define TN 64\n" + text.replace("#define TN 80\n", "")
    assert "C" in selected(built, macros(built)).splitlines() and "B" not in selected(built, macros(built)).splitlines()


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_entry_point_takes_the_tiers_types(spec):
    text = code(flag_defines(spec) + source(spec))  # a build's -D flags may choose parameters (#if)
    m = re.search(r'extern\s+"C"[^;{]*?\b' + re.escape(spec.entry) + r"\s*\(([^)]*)\)", selected(text, macros(text)))
    assert m, f"{spec.file}: no extern \"C\" entry {spec.entry}"
    params = [" ".join(p.replace("__restrict__", "").split()) for p in m[1].split(",")]
    types = [re.sub(r"\s*\b\w+$", "", p).replace(" *", "*") for p in params]
    t = ELEMENT[spec.tier]
    staged = [f"{t}*"] * len(spec.staging)  # manifest `staging`: the copies' buffers, written by the kernel
    textures = ["cudaTextureObject_t"] * len(spec.textures)  # manifest `textures`: trailing handles
    maps = ["const __grid_constant__ CUtensorMap"] * len(spec.tensor_maps)  # manifest `tensor_maps`: by value
    assert types == ["int", "int", "int", "float", f"const {t}*", f"const {t}*", "float", "float*", *staged, *textures, *maps], params


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_launch_bounds_match_the_manifests_block(spec):
    text = with_headers(spec)
    m = re.search(r"__launch_bounds__\(([^,)]+)", code(text))
    assert m, f"{spec.file}: no __launch_bounds__"
    block = spec.launch(1024, 1024, 1024).block
    assert c_int(m[1], macros(text)) == block[0] * block[1] * block[2]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_dynamic_shared_memory_is_what_the_source_indexes(spec):
    """A kernel with `extern __shared__` defines SMEM_BYTES (the bytes it indexes) and the manifest
    launches it with exactly that; a kernel without it is launched with none."""
    text = with_headers(spec)
    smem = spec.launch(4096, 4096, 4096).smem_bytes
    if re.search(r"extern\s+__shared__", code(text)):
        assert "SMEM_BYTES" in macros(text), f"{spec.file}: dynamic shared memory but no SMEM_BYTES"
        assert smem == macros(text)["SMEM_BYTES"]
    else:
        assert smem == 0


# A kernel copies with cp.async in its own source or calls cp_async_16 (there or in a header it includes).
@pytest.mark.parametrize("spec", [s for s in SPECS if re.search(r"cp\.async\.c[ag]\b", code(source(s)))
                                  or re.search(r"(?<!void )\bcp_async_16\(", code(with_headers(s)))],
                         ids=lambda s: s.name)
def test_cp_async_pipeline_waits_before_each_barrier_that_publishes_a_stage(spec):
    """With one commit group per k tile and STAGES buffers, the tile about to be read has landed
    once at most STAGES-2 groups are pending; the wait must come right before a __syncthreads,
    which makes every thread's copies visible. A wait for 0 drains the pipeline at the end."""
    assert spec.min_cc >= 80, "cp.async needs sm_80"
    body = code(with_headers(spec))
    defs = macros(with_headers(spec))
    waits = list(re.finditer(r"cp_async_wait<([^>]+)>\(\);", body))
    assert waits, "cp.async without a cp_async_wait<N>() call"
    assert "cp_async_commit();" in body
    pipelined = 0
    for w in waits:
        if "STAGES" in w[1] and "STAGES" not in defs:  # a template's stage count (skinny's, by tile height)
            assert re.fullmatch(r"\s*STAGES\s*-\s*2\s*", w[1]), f"wait_group {w[1]}"
        else:
            depth = c_int(w[1], defs)
            if depth == 0:
                continue
            assert depth == defs["STAGES"] - 2, f"wait_group {depth} with {defs['STAGES']} stages"
        pipelined += 1
        assert body[w.end():].lstrip().startswith("__syncthreads();"), "the wait must precede a barrier"
    assert pipelined, "no pipelined wait (only drains)"


@pytest.mark.parametrize("spec", SPECS + EXPERIMENTS, ids=lambda s: s.name)
def test_header_names_the_kernel_and_its_predecessor(spec):
    head = header(source(spec))
    first = next(s for s in SPECS + EXPERIMENTS if s.source == spec.source)
    if first is not spec:  # the same source built again (nvcc_flags): its header says so, it follows that rung
        assert spec.nvcc_flags and spec.predecessor == first.name, spec.name
        assert re.search(rf"Built again as {re.escape(spec.name)} \(nvcc {re.escape(' '.join(spec.nvcc_flags))}\b", head)
        return
    assert head.startswith(f"{spec.name}:") or head.startswith(f"{spec.name} (experiment):"), head.splitlines()[:1]
    if spec.predecessor:
        assert re.search(rf"Predecessor: {re.escape(spec.predecessor)}\b", head), f"header of {spec.file} does not name {spec.predecessor}"
    elif spec.index > 1:
        assert "Predecessor: none" in head


# A rung cited by its number ("08's", "as 10", "07/08", "rung 13") goes stale when the ladder is
# renumbered; kernels are named.
RUNG_NUMBER = re.compile(r"\b(?:rung\s+\d+|\d\d's|(?:as|over|see|than) \d\d(?=[),.:;])|\d\d/\d\d\b|\d\d_\w+\.cu)")


@pytest.mark.parametrize("spec", SPECS + EXPERIMENTS, ids=lambda s: s.name)
def test_comments_name_kernels_not_rung_numbers(spec):
    comments = "\n".join(re.findall(r"//([^\n]*)", source(spec)))
    assert not RUNG_NUMBER.findall(comments), spec.file


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_contract_admits_the_headline_shapes(spec):
    for shape in MUST_RUN[spec.tier]:
        assert spec.unsupported_reason(*shape) is None, shape
