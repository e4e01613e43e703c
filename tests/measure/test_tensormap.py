"""Tensor maps of TMA kernels without a GPU: the manifest key, what cuTensorMapEncodeTiled is asked
for, and that the kernel source's tile constants agree with the boxes it declares."""

import json
import re
from dataclasses import asdict

import pytest

from profiler.errors import GemmprofError
from profiler.kernel_spec import KernelSpec, TensorMapSpec
from profiler.manifest import load_manifest
from profiler.manifest_parse import parse_manifest
from profiler.measure.tensormap import DATA_TYPE, L2_PROMOTION_256B, Encoding, encoding

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

    from profiler.kernel_paths import MANIFEST_PATH

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
                           l2_promotion=L2_PROMOTION_256B, oob_fill=0)
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
    ('[{ operand = "A", box = [64, 64], extra = 1 }]', "unknown keys"),
    ('[{ box = [64, 64] }]', "needs operand and box"),
])
def test_bad_tensor_maps_are_manifest_errors(maps, why):
    with pytest.raises(GemmprofError, match=why):
        parse_manifest(ENTRY + f"tensor_maps = {maps}\n")


def test_good_tensor_maps_parse():
    (spec,) = parse_manifest(ENTRY + 'tensor_maps = [{ operand = "B", box = [32, 16], swizzle = 64 }]\n')
    assert spec.tensor_maps == (TensorMapSpec("B", (32, 16), 64),)


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
