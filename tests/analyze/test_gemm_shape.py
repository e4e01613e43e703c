"""Shapes for launches the reports do not name (analyze/gemm_shape.py): synthetic frames."""

from __future__ import annotations

import pandas as pd
import pytest

from profiler.analyze import gemm_shape
from profiler.analyze.gemm_shape import (
    FROM_GEMMPROF, FROM_NVTX, FROM_OPTION, ShapeRule, fill_shapes, parse_shape_rule, shape_from_nvtx,
)
from profiler.errors import GemmprofError


@pytest.mark.parametrize("ranges, shape", [
    ("gemm 1024x512x256", (1024, 512, 256)),
    ("step/layer3 qkv 4096x4096x1024", (4096, 4096, 1024)),
    ("outer 64x64x64/inner 128x32x16", (128, 32, 16)),  # the innermost range wins
    ("gemm M=64 N=32, K=16", (64, 32, 16)),
    ("conv 3x3", None), ("v1.2x3x4", None), ("gemm", None), (None, None), ("gemm 0x4x4", None),
])
def test_shape_from_nvtx(ranges, shape):
    assert shape_from_nvtx(ranges) == shape


def test_parse_shape_rule():
    assert parse_shape_rule("cutlass.*=4096x4096x1024") == ShapeRule((4096, 4096, 1024), "cutlass.*")
    assert parse_shape_rule("64x32x16") == ShapeRule((64, 32, 16), None)
    for bad in ("cutlass", "a=1x2", "(=1x2x3"):
        with pytest.raises(GemmprofError):
            parse_shape_rule(bad)


def launches() -> pd.DataFrame:
    return pd.DataFrame({
        "function": ["sgemm_mine", "cutlass_gemm", "other", "other2"],
        "kernel": ["sgemm_mine(int)", "cutlass_gemm<...>", "other()", "other2()"],
        "kernel_key": ["mine", None, None, None],
        "nvtx": ["gp/mine 8x8x8", None, "app/gemm 100x200x300", None],
        "M": pd.array([8, None, None, None], dtype="Int64"),
        "N": pd.array([8, None, None, None], dtype="Int64"),
        "K": pd.array([8, None, None, None], dtype="Int64"),
    })


def test_fill_shapes_order_of_sources():
    frame = launches()
    out = fill_shapes(frame, [ShapeRule((1, 2, 3), "cutlass")])
    assert list(out["M"].astype("object").where(out["M"].notna(), None)) == [8, 1, 100, None]
    assert list(out["shape_source"]) == [FROM_GEMMPROF, FROM_OPTION, FROM_NVTX, None]
    assert frame["M"].isna().sum() == 3 and "shape_source" not in frame  # the input is not changed


def test_mnk_for_every_launch_never_overrides_gemmprofs_own():
    out = fill_shapes(launches(), [ShapeRule((5, 6, 7))])
    assert [tuple(r) for r in out[["M", "N", "K"]].to_numpy().tolist()] == [(8, 8, 8), (5, 6, 7), (5, 6, 7), (5, 6, 7)]


@pytest.mark.parametrize("ranges, shape, batch", [
    ("corpus/torch_bmm_bf16/bmm batch=4096 128x128x128", (128, 128, 128), 4096),
    ("app/bmm 8192x64x64x64", (64, 64, 64), 8192),
    ("app/gemm 1024x512x256", (1024, 512, 256), 1),
    ("batch=8/layer/gemm 16x16x16", (16, 16, 16), 1),  # the batch belongs to the range naming the shape
])
def test_a_batched_product_names_its_batch_in_the_range_of_its_shape(ranges, shape, batch):
    assert gemm_shape.shape_from_nvtx(ranges) == shape and gemm_shape.batch_from_nvtx(ranges) == batch


def test_a_batch_multiplies_the_gemms_flops():
    filled = gemm_shape.fill_shapes(pd.DataFrame([{"nvtx": "bmm 8x2x3x4"}, {"nvtx": "gemm 2x3x4"}]))
    assert list(filled["batch"]) == [8, 1]
    assert [gemm_shape.gemm_flop(r) for r in filled.to_dict("records")] == [8 * 48.0, 48.0]
