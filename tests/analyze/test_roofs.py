"""What a launch can reach (profiler.analyze.roofs): the share of its pipe's peak cuBLAS attains
for the same math, FLOPs per DRAM byte against the ridge point, and who compiled the kernel."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from profiler.analyze.roofs import attainable, intensity, math_kind, origin
from profiler.specs import ATTAINABLE_PCT, ROOF_SHARE


def test_the_math_a_launch_does():
    assert math_kind({"tensor": 80.0, "tensor_input": "TF32"}) == "TF32"
    assert math_kind({"tensor": 80.0, "tensor_input": None}) == "FP16"
    assert math_kind({"tensor": 0.0, "fp32": 70.0}) == "FP32"


def frames(*rows):
    launches = pd.DataFrame([r[0] for r in rows])
    util = pd.DataFrame([r[1] for r in rows])
    return launches, util


SHAPE = {"M": 4096, "N": 4096, "K": 4096}
FP16 = {"tensor": 0.0, "tensor_input": "FP16"}


def test_cublas_in_the_same_run_at_the_same_shape_is_the_yardstick():
    launches, util = frames(({"function": "tt_matmul", **SHAPE}, {**FP16, "tensor": 76.0}),
                            ({"function": "nvjet_sm90_tst_256x128_64x4", **SHAPE}, {**FP16, "tensor": 90.0}),
                            ({"function": "tt_matmul_small", "M": 256, "N": 256, "K": 256}, {**FP16, "tensor": 5.0}))
    triton, cublas, small = attainable(launches, util)
    assert (triton["pct"], triton["source"]) == (90.0, "cuBLAS at the same shape in this run")
    assert triton["roof"] == pytest.approx(ROOF_SHARE * 90.0)
    assert small["pct"] == ATTAINABLE_PCT["FP16"]  # no cuBLAS at its shape: the table measured on the device
    assert cublas["pct"] == ATTAINABLE_PCT["FP16"]  # another program's cuBLAS is not its own yardstick


def test_gemmprofs_cublas_reference_is_its_own_yardstick():
    launches, util = frames(({"kernel_key": "cublas-fp16", **SHAPE}, {**FP16, "tensor": 75.0}))
    assert attainable(launches, util)[0]["pct"] == 75.0


def test_flops_per_byte_against_the_ridge_point():
    # a 16x8192x8192 FP16 product in 50 us moving 137 MB: 2.15 GFLOP; least 134.5 MB
    launch = {"M": 16, "N": 8192, "K": 8192, "tensor_fp16_flop": 1.0, "duration_ns": 50_000.0,
              "achieved_flops": 2 * 16 * 8192 * 8192 / 50e-6, "dram_bytes": 137e6,
              "peak_tensor_flops": 990e12, "peak_dram_bytes_per_s": 4.8e12}
    i = intensity(launch, {"tensor": 5.0, "tensor_input": "FP16"})
    least = 2 * (16 * 8192 + 8192 * 8192 + 16 * 8192)
    assert i["least_bytes"] == least
    assert i["least"] == pytest.approx(2 * 16 * 8192 * 8192 / least)
    assert i["measured"] == pytest.approx(2 * 16 * 8192 * 8192 / 137e6)
    assert i["ridge"] == pytest.approx(990 / 4.8)
    assert np.isnan(intensity({**launch, "M": None}, {"tensor": 5.0})["least"])


@pytest.mark.parametrize("launch, files, who", [
    ({"kernel_key": "wgmma", "function": "wgmma_kernel"}, [], "gemmprof"),
    ({"function": "tt_pipelined"}, ["/x/triton_cases.py"], "triton"),
    ({"function": "nvjet_sm90_hsh_320x128_64x3_1x2_h_bz_coopB_NNT"}, [], "library"),
    ({"function": "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8"}, [], "library"),
    ({"function": "cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>"}, [], "library"),
    ({"function": "naive"}, ["/x/hand_written.cu"], "cuda"),
])
def test_who_compiled_it(launch, files, who):
    assert origin(launch, files) == who
