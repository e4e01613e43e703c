"""Tensor maps of TMA kernels without a GPU: the manifest key, what cuTensorMapEncodeTiled is asked
for, and that the kernel source's tile constants agree with the boxes it declares."""

import json
import re
from dataclasses import asdict, replace

import pytest

from profiler.errors import GemmprofError
from profiler.catalogue.kernel_spec import KernelSpec, TensorMapSpec
from profiler.catalogue.manifest import load_manifest
from profiler.catalogue.manifest_parse import parse_manifest
from profiler.measure.tensormap import DATA_TYPE, Encoding, Staged, encoding, staged_operands

WGMMA = next(s for s in load_manifest() if s.name == "wgmma")
A_MAP, B_MAP = WGMMA.tensor_maps

ENTRY = """
[[kernel]]
name = "t"
file = "t.cu"
entry = "t"
tier = "fp16"
idea = "x"
grid = [1]
block = [128]
"""


def test_manifest_declares_the_maps_of_the_wgmma_rung_in_parameter_order():
    assert [tm.operand for tm in WGMMA.tensor_maps] == ["A", "B"]
    assert A_MAP == TensorMapSpec("A", (64, 128), 128)
    assert B_MAP == TensorMapSpec("B", (64, 64), 128)
    assert WGMMA.arch == "sm_90a" and WGMMA.contract == {"M": 128, "N": 256, "K": 64}


def test_kernels_without_the_key_take_no_maps():
    import tomllib

    from profiler.catalogue.kernel_paths import MANIFEST_PATH

    declared = {k["name"] for k in tomllib.loads(MANIFEST_PATH.read_text())["kernel"] if "tensor_maps" in k}
    assert {"wgmma", "tf32x3wg"} <= declared
    assert all(s.tensor_maps == () for s in load_manifest() if s.name not in declared)
    assert all(s.tensor_maps for s in load_manifest() if s.name in declared)


def test_spec_with_maps_survives_the_json_trip_to_the_worker():
    back = KernelSpec.from_dict(json.loads(json.dumps(asdict(WGMMA))))
    assert back == WGMMA and isinstance(back.tensor_maps[0], TensorMapSpec)
    hash(back.tensor_maps)  # cache keys


def test_A_is_described_as_K_columns_by_M_rows():
    enc = encoding(A_MAP, "fp16", 8192, 4096, 2048)
    assert enc == Encoding(data_type=DATA_TYPE["fp16"], global_dim=(2048, 8192), global_strides=(4096,),
                           box=(64, 128), element_strides=(1, 1), interleave=0, swizzle=3,
                           l2_promotion=3, oob_fill=0)  # CU_TENSOR_MAP_L2_PROMOTION_L2_256B by default
    assert enc.rank == 2 and DATA_TYPE["fp16"] == 6  # CU_TENSOR_MAP_DATA_TYPE_FLOAT16


def test_B_is_described_as_N_columns_by_K_rows():
    enc = encoding(B_MAP, "fp16", 8192, 4096, 2048)
    assert (enc.global_dim, enc.global_strides, enc.box, enc.swizzle) == ((4096, 2048), (8192,), (64, 64), 3)


def test_C_is_float_in_either_tier():
    enc = encoding(TensorMapSpec("C", (32, 8), 128), "fp16", 256, 512, 64)
    assert (enc.data_type, enc.global_dim, enc.global_strides) == (DATA_TYPE["fp32"], (512, 256), (2048,))


@pytest.mark.parametrize("swizzle,code", [(0, 0), (32, 1), (64, 2), (128, 3)])
def test_swizzle_bytes_map_to_the_driver_enum(swizzle, code):
    assert encoding(TensorMapSpec("A", (8, 8), swizzle), "fp16", 64, 64, 64).swizzle == code


@pytest.mark.parametrize("promotion,code", [(0, 0), (64, 1), (128, 2), (256, 3)])
def test_l2_promotion_bytes_map_to_the_driver_enum(promotion, code):
    assert encoding(TensorMapSpec("B", (64, 64), 128, promotion), "fp16", 64, 64, 64).l2_promotion == code


def test_rows_that_are_not_a_multiple_of_16_bytes_are_refused():
    with pytest.raises(GemmprofError, match="multiple of 16"):
        encoding(A_MAP, "fp16", 128, 256, 60)  # 120-byte rows


@pytest.mark.parametrize("maps,why", [
    ('[{ operand = "D", box = [64, 64] }]', "operand must be"),
    ('[{ operand = "A", box = [64] }]', "two integers"),
    ('[{ operand = "A", box = [64, 512] }]', "two integers"),
    ('[{ operand = "A", box = [64, 64], swizzle = 16 }]', "swizzle must be"),
    ('[{ operand = "A", box = [128, 64] }]', "exceeds the 128-byte swizzle"),
    ('[{ operand = "A", box = [4, 64], swizzle = 0 }]', "multiple of 16"),
    ('[{ operand = "A", box = [64, 64], l2_promotion = 32 }]', "l2_promotion must be"),
    ('[{ operand = "A", box = [64, 64], extra = 1 }]', "unknown keys"),
    ('[{ box = [64, 64] }]', "needs operand and box"),
])
def test_bad_tensor_maps_are_manifest_errors(maps, why):
    with pytest.raises(GemmprofError, match=why):
        parse_manifest(ENTRY + f"tensor_maps = {maps}\n")


def test_good_tensor_maps_parse():
    (spec,) = parse_manifest(ENTRY + 'tensor_maps = [{ operand = "B", box = [32, 16], swizzle = 64 }]\n')
    assert spec.tensor_maps == (TensorMapSpec("B", (32, 16), 64),)
    (spec,) = parse_manifest(ENTRY + 'tensor_maps = [{ operand = "B", box = [64, 64], l2_promotion = 128 }]\n')
    assert spec.tensor_maps == (TensorMapSpec("B", (64, 64), 128, 128),)
    back = KernelSpec.from_dict(json.loads(json.dumps(asdict(spec))))
    assert back.tensor_maps == spec.tensor_maps


def test_wgmma_source_agrees_with_its_boxes_contract_and_launch():
    """The kernel's expect_tx count is the bytes of the boxes it loads per stage, the contract is
    its tile, and the grid has one block per tile."""
    from helpers.c_source import macros, with_headers

    defs = macros(with_headers(WGMMA))
    assert (defs["BK"], defs["BM"]) == A_MAP.box  # A box: 64 k (contiguous) x 128 m
    assert defs["BK"] == B_MAP.box[1] and B_MAP.box[0] * 2 == 128  # B box: 64 n x 64 k, 128 bytes wide
    assert defs["A_BYTES"] == A_MAP.box[0] * A_MAP.box[1] * 2
    assert defs["B_BOX_BYTES"] == B_MAP.box[0] * B_MAP.box[1] * 2
    assert defs["STAGE_BYTES"] == defs["A_BYTES"] + defs["BN"] // B_MAP.box[0] * defs["B_BOX_BYTES"]
    assert WGMMA.contract == {"M": defs["BM"], "N": defs["BN"], "K": defs["BK"]}
    assert WGMMA.launch(8192, 4096, 1024).grid == (8192 // defs["BM"] * 4096 // defs["BN"], 1, 1)
    assert defs["SMEM_BYTES"] <= 227 * 1024  # the H100/H200 opt-in limit per block
    text = with_headers(WGMMA)
    # one TMA of A and BN/64 of B per stage, all completing on the stage's full barrier
    assert len(re.findall(r"(?<!void )tma_load_2d\(", text)) == 2  # A + B (in a loop), not the definition in hopper.cuh
    assert "mbar_arrive_expect_tx(full(s), STAGE_BYTES)" in text


@pytest.mark.gpu
def test_runner_encodes_maps_once_and_matches_a_cupy_matmul():
    """On the device machine: KernelRunner launches the TMA kernel through the driver in-process
    (no worker), encodes each map once per buffer, and the result matches CuPy's own product."""
    import numpy as np

    from profiler.measure.build import build_kernel
    from profiler.measure.device import import_cupy
    from profiler.measure.launch import Gemm, KernelRunner

    cp = import_cupy()
    runner = KernelRunner(cp, WGMMA, str(build_kernel(WGMMA, "sm_90").cubin))
    g = Gemm.random(cp, 256, 512, 320, dtype=np.float16, seed=3)
    ref = 1.5 * (g.A.astype(cp.float32) @ g.B.astype(cp.float32))
    for _ in range(3):
        g.C.fill(np.nan)
        runner(g, 1.5, 0.0)
    cp.cuda.get_current_stream().synchronize()
    assert len(runner._tma._maps) == 2
    err = float(cp.linalg.norm(g.C - ref) / cp.linalg.norm(ref))
    assert err < 1e-3, err
    C0 = g.C.copy()
    runner(g, 1.0, 0.5)  # beta path reads C
    err = float(cp.linalg.norm(g.C - (ref / 1.5 + 0.5 * C0)) / cp.linalg.norm(ref / 1.5 + 0.5 * C0))
    assert err < 1e-3, err


TF32WG = next(s for s in load_manifest() if s.name == "tf32x3wg")


def test_fp32_operands_are_encoded_as_float32_with_4_byte_rows():
    """The fp32-tc tier's A and B are FP32: CU_TENSOR_MAP_DATA_TYPE_FLOAT32, strides of 4 bytes."""
    a_map, b_map = TF32WG.tensor_maps
    a = encoding(a_map, "fp32-tc", 8192, 4096, 2048)
    assert (a.data_type, a.global_dim, a.global_strides, a.box, a.swizzle) == (7, (2048, 8192), (8192,), (32, 128), 3)
    b = encoding(b_map, "fp32-tc", 8192, 4096, 2048)
    assert (b.data_type, b.global_dim, b.global_strides, b.box, b.swizzle) == (7, (4096, 2048), (16384,), (128, 32), 0)


def test_tf32x3wg_source_agrees_with_its_boxes_contract_and_launch():
    """A's box is one 128-byte swizzle row of k per m row (the K-major layout TF32 wgmma reads);
    B's unswizzled box is the whole 32(k) x 128(n) tile; the expect_tx count is both boxes."""
    from helpers.c_source import macros

    a_map, b_map = TF32WG.tensor_maps
    defs = macros(TF32WG.source.read_text())
    assert (defs["BK"], defs["BM"]) == a_map.box and defs["BK"] * 4 == a_map.swizzle == 128
    assert (defs["BN"], defs["BK"]) == b_map.box and b_map.swizzle == 0
    assert defs["A_BYTES"] == a_map.box[0] * a_map.box[1] * 4 and defs["B_BYTES"] == b_map.box[0] * b_map.box[1] * 4
    assert defs["STAGE_BYTES"] == defs["A_BYTES"] + defs["B_BYTES"]
    assert defs["SPLIT_TILE"] == defs["BM"] * defs["BK"] * 4 == defs["BN"] * defs["BK"] * 4
    assert TF32WG.contract == {"M": defs["BM"], "N": defs["BN"], "K": defs["BK"]}
    assert TF32WG.launch(8192, 4096, 1024).grid == (8192 // defs["BM"] * 4096 // defs["BN"], 1, 1)
    assert TF32WG.launch(8192, 4096, 1024).smem_bytes == defs["SMEM_BYTES"] <= 227 * 1024
    assert TF32WG.launch(8192, 4096, 1024).block == (defs["NTHREADS"], 1, 1)
    assert "mbar_arrive_expect_tx(full(s), STAGE_BYTES)" in TF32WG.source.read_text()


# --- staged operands (manifest key `staging`) -----------------------------------------------------

STAGED = next(s for s in load_manifest() if s.name == "wgmma_staged")


@pytest.mark.parametrize("shape,wanted", [
    ((1023, 1023, 1023), {"A": Staged("A", 1023, 1023, 1024), "B": Staged("B", 1023, 1023, 1024)}),
    ((2500, 2500, 2500), {"A": Staged("A", 2500, 2500, 2504), "B": Staged("B", 2500, 2500, 2504)}),
    ((512, 1024, 1001), {"A": Staged("A", 512, 1001, 1008)}),   # only A's rows are off the grid
    ((512, 1001, 1024), {"B": Staged("B", 1024, 1001, 1008)}),   # only B's
    ((4096, 4096, 4096), {}),                                    # aligned: no copy at all
    ((5000, 5000, 5000), {}),                                    # 16-byte rows: TMA reads them in place
    ((1, 1, 1), {"A": Staged("A", 1, 1, 8), "B": Staged("B", 1, 1, 8)}),
])
def test_an_operand_is_staged_exactly_when_its_rows_are_off_the_16_byte_grid(shape, wanted):
    assert staged_operands(replace(STAGED, staging_pitch_bytes=16), *shape) == wanted


def test_the_staged_pitch_is_the_kernels():
    """The staging rungs pad their copies to whole 128-byte lines (staging_pitch_bytes = 128); which
    operands are staged is still TMA's 16-byte rule."""
    assert STAGED.staging_pitch_bytes == 128
    assert staged_operands(STAGED, 2500, 2500, 2500) == {"A": Staged("A", 2500, 2500, 2560), "B": Staged("B", 2500, 2500, 2560)}
    assert staged_operands(STAGED, 512, 1024, 1001) == {"A": Staged("A", 512, 1001, 1024)}
    assert staged_operands(STAGED, 1, 1, 1) == {"A": Staged("A", 1, 1, 64), "B": Staged("B", 1, 1, 64)}
    assert staged_operands(STAGED, 5000, 5000, 5000) == {}


def test_staging_row_bytes_also_copies_rows_that_start_inside_a_sector():
    """With staging_row_bytes = 32, rows of 5000 halves (10000 bytes: whole 16-byte units, not
    whole sectors) are copied too; 5008 and 5120 (whole sectors) are read in place."""
    sector = replace(STAGED, staging_row_bytes=32)
    assert staged_operands(sector, 5000, 5000, 5000) == {"A": Staged("A", 5000, 5000, 5056), "B": Staged("B", 5000, 5000, 5056)}
    assert staged_operands(sector, 5000, 5008, 5000) == {"A": Staged("A", 5000, 5000, 5056)}
    assert staged_operands(sector, 5120, 5120, 5120) == {}
    assert staged_operands(sector, 7000, 7000, 6000) == {"B": Staged("B", 6000, 7000, 7040)}


def test_a_staged_map_keeps_the_true_extent_at_the_padded_pitch():
    """TMA still zero-fills past K and N: the map's dimensions are the matrix's, only the row
    pitch is the copy's."""
    a_map, b_map = STAGED.tensor_maps
    a = encoding(a_map, "fp16", 1000, 1001, 1003, pitch=1008)
    assert (a.global_dim, a.global_strides) == ((1003, 1000), (2016,))
    b = encoding(b_map, "fp16", 1000, 1001, 1003, pitch=1008)
    assert (b.global_dim, b.global_strides) == ((1001, 1003), (2016,))
    with pytest.raises(GemmprofError, match="multiple of 16"):
        encoding(a_map, "fp16", 1000, 1001, 1003, pitch=1004)


def test_staging_kernels_take_a_pointer_per_staged_operand_before_their_maps():
    from profiler.measure.launch import parameter_bytes

    assert parameter_bytes(STAGED) == [4, 4, 4, 4, 8, 8, 4, 8, 8, 8, 128, 128]
    assert KernelSpec.from_dict(json.loads(json.dumps(asdict(STAGED)))).staging == ("A", "B")


@pytest.mark.parametrize("extra,why", [
    ('staging = ["C"]', "at most once"),
    ('staging = ["A", "A"]', "at most once"),
    ('staging = ["B"]\ntensor_maps = [{ operand = "A", box = [64, 128] }]', "no tensor map"),
    ('staging = "A"', "list of str"),
    ('staging = ["A"]\nstaging_pitch_bytes = 48\ntensor_maps = [{ operand = "A", box = [64, 128] }]', "16, 32, 64 or 128"),
    ("staging_pitch_bytes = 128", "without staging"),
    ("staging_row_bytes = 32", "without staging"),
    ('staging = ["A"]\nstaging_row_bytes = 24\ntensor_maps = [{ operand = "A", box = [64, 128] }]', "16, 32, 64 or 128"),
    ('staging = ["A"]\nstaging_row_bytes = 64\nstaging_pitch_bytes = 32\ntensor_maps = [{ operand = "A", box = [64, 128] }]',
     "exceeds staging_pitch_bytes"),
])
def test_bad_staging_is_a_manifest_error(extra, why):
    with pytest.raises(GemmprofError, match=why):
        parse_manifest(ENTRY + extra + "\n")


class _FakeLib:
    """cuTensorMapEncodeTiled / cuLaunchKernel / cuLaunchCooperativeKernel stand-ins that record
    what they were asked."""

    def __init__(self):
        self.encoded, self.launched = [], []

    def cuTensorMapEncodeTiled(self, out, dtype, rank, address, dims, strides, *rest):
        self.encoded.append((address.value, tuple(dims), tuple(strides)))
        return 0

    def cuLaunchKernel(self, *args):
        self.launched.append(("plain", args))
        return 0

    def cuLaunchCooperativeKernel(self, *args):
        self.launched.append(("cooperative", args))
        return 0


class _FakeArray:
    def __init__(self, shape, dtype, ptr):
        self.shape, self.dtype = shape, dtype
        self.data = type("Mem", (), {"ptr": ptr})()


class _FakeCupy:
    """Just what the launcher touches: empty() hands out fresh addresses, and the current stream."""

    def __init__(self):
        self.made = []
        self.cuda = type("Cuda", (), {"get_current_stream": staticmethod(lambda: type("S", (), {"ptr": 0})())})

    def empty(self, shape, dtype):
        self.made.append(shape)
        return _FakeArray(shape, dtype, 0x100000 * len(self.made))


def _launcher(spec):
    from profiler.measure.tensormap import TensorMapLauncher, _Driver

    launcher = TensorMapLauncher.__new__(TensorMapLauncher)
    driver = _Driver.__new__(_Driver)
    driver.lib = _FakeLib()
    launcher.spec, launcher.function, launcher.driver = spec, type("F", (), {"ptr": 1})(), driver
    launcher._maps, launcher._staging = {}, {}
    return launcher, driver.lib


def _gemm(M, N, K):
    from types import SimpleNamespace

    return SimpleNamespace(M=M, N=N, K=K, A=_FakeArray((M, K), "float16", 0xA000), B=_FakeArray((K, N), "float16", 0xB000),
                           C=_FakeArray((M, N), "float32", 0xC000))


def test_the_launcher_stages_unaligned_operands_and_launches_cooperatively():
    """At 1000x1001x1003 both operands get a copy (made once while the shape stays) and maps over
    the copies; at an aligned shape the pointers are null, the maps are over A and B themselves,
    and the copies of the old shape are let go."""
    cp = _FakeCupy()
    launcher, lib = _launcher(STAGED)
    launch = STAGED.launch(1000, 1001, 1003)
    g = _gemm(1000, 1001, 1003)
    launcher(cp, g, 1.0, 0.0, launch)
    launcher(cp, g, 1.0, 0.0, launch)
    assert cp.made == [(1000, 1024), (1003, 1024)]          # A's copy, B's copy (whole 128-byte lines): once
    assert [kind for kind, _ in lib.launched] == ["cooperative"] * 2
    a_copy, b_copy = 0x100000, 0x200000
    assert lib.encoded == [(a_copy, (1003, 1000), (2048,)), (b_copy, (1001, 1003), (2048,))]
    launcher(cp, _gemm(1024, 1024, 1024), 1.0, 0.0, STAGED.launch(1024, 1024, 1024))
    assert lib.encoded[2:] == [(0xA000, (1024, 1024), (2048,)), (0xB000, (1024, 1024), (2048,))]
    assert launcher._staging == {}
    assert cp.made == [(1000, 1024), (1003, 1024)]


def test_kernels_without_staging_launch_the_ordinary_way():
    cp = _FakeCupy()
    launcher, lib = _launcher(WGMMA)
    launcher(cp, _gemm(256, 256, 64), 1.0, 0.0, WGMMA.launch(256, 256, 64))
    assert [kind for kind, _ in lib.launched] == ["plain"] and cp.made == []
