"""The manifest key `textures` and the launcher's 1D linear textures, without a GPU: parsing and
its checks, the texture descriptor as a function of the buffer, and KernelRunner's per-buffer
cache and trailing arguments (against a stand-in for CuPy)."""

import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from helpers.device_arrays import FakeArray

from profiler.errors import GemmprofError
from profiler.catalogue.kernel_spec import KernelSpec
from profiler.catalogue.manifest import load_manifest
from profiler.catalogue.manifest_parse import parse_manifest
from profiler.measure.launch import Gemm, KernelRunner, linear_texture_plan

TEXTURED = """
[[kernel]]
name = "t"
file = "11_texld128x128x8.cu"
entry = "sgemm_texld128x128x8"
tier = "fp32"
idea = "x"
grid = ["cdiv(N, 128)", "cdiv(M, 128)"]
block = [256]
contract = { N = 4, K = 4 }
textures = ["A", "B"]
"""


def test_texld_is_in_the_ladder_with_both_textures_and_a_texel_contract():
    spec = next(s for s in load_manifest() if s.name == "texld128x128x8")
    assert spec.textures == ("A", "B") and spec.predecessor == "cutlass128x128x8" and spec.tier == "fp32"
    assert spec.unsupported_reason(777, 1000, 1020) is None  # ragged M and N, K % 8 == 4
    assert "N=1001" in spec.unsupported_reason(777, 1001, 1020)
    assert "K=1022" in spec.unsupported_reason(777, 1000, 1022)


def test_kernels_without_the_key_take_no_textures():
    assert all(s.textures == () for s in load_manifest() if s.name != "texld128x128x8")


def test_textures_parse_as_a_tuple_and_survive_json():
    import json
    from dataclasses import asdict

    (spec,) = parse_manifest(TEXTURED)
    assert spec.textures == ("A", "B")
    assert KernelSpec.from_dict(json.loads(json.dumps(asdict(spec)))) == spec


def test_spec_from_json_written_before_the_key_existed():
    from dataclasses import asdict

    (spec,) = parse_manifest(TEXTURED.replace('textures = ["A", "B"]\n', ""))
    old = {k: v for k, v in asdict(spec).items() if k != "textures"}
    assert KernelSpec.from_dict(old).textures == ()


@pytest.mark.parametrize(
    "change,fragment",
    [
        (('["A", "B"]', '["A", "C"]'), "at most once"),
        (('["A", "B"]', '["B", "B"]'), "at most once"),
        (('tier = "fp32"', 'tier = "fp16"'), "fp32 tier only"),
        (('textures = ["A", "B"]\n', 'textures = ["A", "B"]\ntensor_maps = [{ operand = "C", box = [32, 8] }]\n'),
         "cannot be combined"),
        (("contract = { N = 4, K = 4 }", "contract = { N = 4 }"), "K a multiple of 4"),
        (("contract = { N = 4, K = 4 }", "contract = { N = 2, K = 8 }"), "N a multiple of 4"),
        (("contract = { N = 4, K = 4 }\n", ""), "K a multiple of 4"),
    ],
)
def test_bad_textures_are_one_clear_error(change, fragment):
    with pytest.raises(GemmprofError, match=fragment):
        parse_manifest(TEXTURED.replace(*change))


def test_only_the_textured_matrix_constrains_the_contract():
    (spec,) = parse_manifest(TEXTURED.replace('["A", "B"]', '["B"]').replace("contract = { N = 4, K = 4 }", "contract = { N = 8 }"))
    assert spec.textures == ("B",)


# --- the texture descriptor as a function of the buffer -----------------------------------------


def plan(shape=(777, 1020), ptr=0x7F0000000000, itemsize=4, strides=None, alignment=512, matrix="A"):
    strides = strides or (shape[1] * itemsize, itemsize)
    return linear_texture_plan(matrix, ptr, shape, strides, itemsize, alignment)


def test_plan_is_a_float4_linear_texture_over_the_whole_buffer():
    p = plan((777, 1020))
    assert p.size_bytes == 777 * 1020 * 4
    assert p.texels == 777 * 1020 // 4  # width in float4 texels
    assert p.resource_type == "cudaResourceTypeLinear"
    assert p.channel_bits == (32, 32, 32, 32) and p.channel_kind == "cudaChannelFormatKindFloat"
    assert p.read_mode == "cudaReadModeElementType"  # floats come back unchanged
    assert p.normalized_coords == 0  # tex1Dfetch: integer texel indices
    # Ignored by CUDA for linear resources (past the end reads zero); Border asks for the same.
    assert p.address_mode == "cudaAddressModeBorder" and p.filter_mode == "cudaFilterModePoint"


def test_plan_fields_name_real_cuda_enums():
    """The names are looked up in cupy.cuda.runtime on the GPU machine; check them against the
    toolkit's own header where one is installed."""
    include = sorted(Path("/usr/local").glob("cuda*/include/texture_types.h"))
    if not include:
        pytest.skip("no CUDA toolkit headers under /usr/local")
    text = "".join((include[-1].parent / h).read_text() for h in ("driver_types.h", "texture_types.h"))
    for name in ("resource_type", "channel_kind", "read_mode", "address_mode", "filter_mode"):
        value = getattr(plan(), name)
        assert re.search(rf"\b{value}\s*=", text), value


@pytest.mark.parametrize(
    "kwargs,fragment",
    [
        ({"shape": (64, 1022)}, "not whole float4 texels"),
        ({"ptr": 0x7F0000000010}, "textureAlignment"),
        ({"itemsize": 2, "shape": (64, 64)}, "float32"),
        ({"strides": (8192, 4)}, "contiguous"),
    ],
)
def test_plan_refuses_what_a_float4_linear_texture_cannot_be(kwargs, fragment):
    with pytest.raises(GemmprofError, match=fragment):
        plan(**kwargs)


def test_plan_refuses_more_texels_than_an_int_index_reaches():
    with pytest.raises(GemmprofError, match="int index"):
        plan((2**17, 2**16 + 4))  # 2^33 floats: 2^31 + 2^15 texels
    assert plan((2**15, 2**16)).texels == 2**29


# --- KernelRunner against a stand-in for CuPy -----------------------------------------------------


@pytest.fixture
def fake_cupy(monkeypatch):
    log = {"textures": [], "launches": []}
    runtime = types.SimpleNamespace(
        cudaResourceTypeLinear=2, cudaChannelFormatKindFloat=2, cudaReadModeElementType=0,
        cudaAddressModeBorder=3, cudaFilterModePoint=0, CUDARuntimeError=type("CUDARuntimeError", (Exception,), {}),
        deviceGetAttribute=lambda attr, dev: {14: 512}[attr],
    )

    class TextureObject:
        def __init__(self, res, tex):
            self.ptr = 1000 + len(log["textures"])
            log["textures"].append((res, tex))

    texture = types.SimpleNamespace(
        ChannelFormatDescriptor=lambda *a: ("channels", a),
        ResourceDescriptor=lambda restype, arr=None, chDesc=None, sizeInBytes=0: {
            "restype": restype, "arr": arr, "ch": chDesc, "size": sizeInBytes},
        TextureDescriptor=lambda **kw: kw,
        TextureObject=TextureObject,
    )
    cuda = types.SimpleNamespace(runtime=runtime, texture=texture, Device=lambda: types.SimpleNamespace(id=0, attributes={"MultiProcessorCount": 132}))
    cupy = types.ModuleType("cupy")
    cupy.cuda = cuda
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setitem(sys.modules, "cupy.cuda", cuda)

    def function(grid, block, args, shared_mem=0):
        log["launches"].append(args)

    function.shared_size_bytes = 0  # the kernel's own `__shared__` bytes, as CuPy's Function has them
    cupy.RawModule = lambda path: types.SimpleNamespace(get_function=lambda entry: function)
    return cupy, log


def gemm(M=256, N=256, K=64, base=0x10000000):
    return Gemm(M, N, K, FakeArray(base, (M, K)), FakeArray(base + 0x1000000, (K, N)), FakeArray(base + 0x2000000, (M, N)))


def test_runner_passes_one_handle_per_texture_after_c_and_makes_each_once_per_buffer(fake_cupy):
    cp, log = fake_cupy
    (spec,) = parse_manifest(TEXTURED)
    run = KernelRunner(cp, spec, "k.cubin")
    g = gemm()
    for _ in range(3):
        run(g, 1.0, 0.0)
    assert len(log["textures"]) == 2 and run.textures.created == 2
    args = log["launches"][-1]
    assert len(args) == 10 and args[7] is g.C
    assert [type(a) for a in args[8:]] == [np.uint64, np.uint64] and [int(a) for a in args[8:]] == [1000, 1001]
    res, tex = log["textures"][0]
    assert res == {"restype": 2, "arr": g.A, "ch": ("channels", (32, 32, 32, 32, 2)), "size": 256 * 64 * 4}
    assert tex == {"addressModes": (3,), "filterMode": 0, "readMode": 0, "normalizedCoords": 0}
    assert log["textures"][1][0]["arr"] is g.B and log["textures"][1][0]["size"] == 64 * 256 * 4

    g2 = gemm(base=0x20000000)  # a new problem: new buffers, new textures
    run(g2, 1.0, 0.0)
    run(g2, 1.0, 0.0)
    assert run.textures.created == 4 and [int(a) for a in log["launches"][-1][8:]] == [1002, 1003]


def test_runner_refuses_a_misaligned_buffer_before_launching(fake_cupy):
    cp, log = fake_cupy
    (spec,) = parse_manifest(TEXTURED)
    g = gemm()
    g.B = FakeArray(0x30000010, (64, 256))
    with pytest.raises(GemmprofError, match="textureAlignment"):
        KernelRunner(cp, spec, "k.cubin")(g, 1.0, 0.0)
    assert not log["launches"]


def test_runner_of_an_untextured_kernel_passes_the_eight_arguments(fake_cupy):
    cp, log = fake_cupy
    (spec,) = parse_manifest(TEXTURED.replace('textures = ["A", "B"]\n', ""))
    run = KernelRunner(cp, spec, "k.cubin")
    run(gemm(), 1.0, 0.0)
    assert run.textures is None and len(log["launches"][0]) == 8 and not log["textures"]
