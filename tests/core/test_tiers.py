"""The precision tiers (profiler/tiers.py) and the modules that look tier facts up in them: one
record per tier, fp32 and fp16 as before, fp32-tc held to the FP32 bound against strict SGEMM with
cuBLAS FAST_TF32 as a context row."""

import math

import pandas as pd
import pytest

from profiler.errors import GemmprofError
from profiler.kernel_spec import ELEMENT_BYTES, TensorMapSpec
from profiler.manifest import REFERENCES, reference_name, reference_rows, reference_tiers, select_kernels
from profiler.manifest_parse import parse_manifest
from profiler.measure.tensormap import DATA_TYPE
from profiler.specs import peak_flops, peak_fp32_flops
from profiler.tiers import ELEMENT_TYPES, REFERENCE_ROWS, TIERS, cublas_rows, fp32_tolerance, tier


def test_fp32_and_fp16_facts_are_as_before():
    assert (TIERS["fp32"].reference, TIERS["fp16"].reference) == ("cublas", "cublas-fp16")
    assert TIERS["fp32"].tolerance(4096) == pytest.approx(4 * 2**-24 * 64) and TIERS["fp16"].tolerance(4096) == 1e-2
    assert TIERS["fp32"].componentwise and not TIERS["fp16"].componentwise
    assert (TIERS["fp32"].element_bytes, TIERS["fp16"].element_bytes) == (4, 2)
    assert ELEMENT_BYTES == {"fp32": 4, "fp16": 2} and DATA_TYPE == {"fp32": 7, "fp16": 6}
    assert str(TIERS["fp16"].dtype) == "float16" and str(TIERS["fp32"].dtype) == "float32"
    assert REFERENCES["cublas"] == "fp32" and REFERENCES["cublas-fp16"] == "fp16"


def test_fp32_tc_keeps_the_fp32_bound_and_strict_sgemm_as_yardstick():
    tc, strict = TIERS["fp32-tc"], TIERS["fp32"]
    assert tc.tolerance is strict.tolerance is fp32_tolerance  # the same bound, not a looser copy
    assert tc.componentwise and tc.fp64_every_shape and not strict.fp64_every_shape
    assert tc.reference == "cublas" and REFERENCE_ROWS[tc.reference].call == "sgemm"
    assert tc.input == "fp32" and tc.element_bytes == 4 and str(tc.dtype) == "float32"
    assert [r.name for r in cublas_rows("fp32-tc")] == ["cublas", "cublas-tf32"]
    context = REFERENCE_ROWS["cublas-tf32"]
    assert context.context and context.call == "gemmex-fast-tf32" and context.tier == "fp32-tc"
    assert not any(REFERENCE_ROWS[t.reference].context for t in TIERS.values())  # a context row is never a yardstick


def test_every_tier_names_known_rows_and_types():
    for t in TIERS.values():
        assert t.reference in REFERENCE_ROWS and all(c in REFERENCE_ROWS for c in t.context)
        assert t.input in ELEMENT_TYPES and t.title and t.peak_label
        assert peak_flops(t.name, (9, 0), 132, 1.98e9) > 0


def test_unknown_tier_is_a_one_line_error():
    with pytest.raises(GemmprofError) as err:
        tier("fp8")
    assert "fp8" in str(err.value) and "fp32-tc" in err.value.hint


def test_peaks_per_tier():
    clock = 1.98e9
    assert peak_flops("fp32", (9, 0), 132, clock) == peak_fp32_flops((9, 0), 132, clock) == 256 * 132 * clock
    assert peak_flops("fp16", (9, 0), 132, clock) == 4096 * 132 * clock
    assert peak_flops("fp32-tc", (9, 0), 132, clock) == 2048 * 132 * clock  # 535 TFLOP/s: dense TF32, H100/H200
    assert peak_flops("fp32-tc", (8, 0), 108, 1.41e9) == pytest.approx(156e12, rel=0.01)  # A100's datasheet TF32
    assert math.isnan(peak_flops("fp32-tc", (8, 6), 84, clock))  # not known here: NaN, not a guess


def test_reference_rows_of_a_selection():
    assert reference_rows(select_kernels(["tf32x3"])) == [("cublas", "fp32-tc"), ("cublas-tf32", "fp32-tc")]
    assert reference_rows(select_kernels(["naive", "wgmma"])) == [("cublas-fp16", "fp16"), ("cublas", "fp32")]
    assert reference_rows([]) == [("cublas", "fp32")]
    # profile: strict SGEMM once, though fp32 and fp32-tc both measure against it
    assert reference_tiers(select_kernels(["naive", "tf32x3"])) == ["fp32"]
    assert reference_tiers(select_kernels(["tf32x1"])) == ["fp32-tc"]
    assert reference_name("fp32-tc") == "cublas" and REFERENCES["cublas-tf32"] == "fp32-tc"


def test_tensor_maps_of_fp32_tc_kernels_read_fp32():
    tm = TensorMapSpec("A", (32, 64), 128)
    assert tm.element_type("fp32-tc") == "fp32" and tm.element_bytes("fp32-tc") == 4
    assert TensorMapSpec("C", (32, 64), 128).element_type("fp16") == "fp32"


def test_manifest_rungs_of_the_tier():
    x1, x3 = select_kernels(["tf32x1", "tf32x3"])
    assert x1.tier == x3.tier == "fp32-tc" and x3.predecessor == "tf32x1"
    assert x1.expect_fail and not x3.expect_fail
    assert x3.unsupported_reason(4096, 4096, 4096) is None and x3.unsupported_reason(4096, 4096, 4100)


ENTRY = """
[[kernel]]
name = "k"
file = "k.cu"
entry = "k"
tier = "{tier}"
idea = "x"
grid = [1]
block = [32]
{extra}
"""


def test_manifest_checks_tier_and_expect_fail_types():
    assert parse_manifest(ENTRY.format(tier="fp32-tc", extra="expect_fail = true"))[0].expect_fail
    with pytest.raises(GemmprofError, match="expect_fail must be bool"):
        parse_manifest(ENTRY.format(tier="fp32-tc", extra='expect_fail = "yes"'))
    with pytest.raises(GemmprofError, match="tier must be one of"):
        parse_manifest(ENTRY.format(tier="tf32", extra=""))


def test_bench_table_times_context_rows_and_shows_the_fp64_error():
    from rich.console import Console

    from profiler.render.console import bench_table

    rows = pd.DataFrame([
        {"kernel": "cublas-tf32", "tier": "fp32-tc", "M": 1024, "N": 1024, "K": 1024, "status": "CONTEXT",
         "reason": "context, not verified as fp32-tc: relative error 2.9e-04 > tolerance 7.6e-06", "median_ms": 0.0123,
         "cv": 0.01, "gflops": 174000.0, "pct_of_cublas": 700.0, "pct_of_peak": 33.0, "error": 2.9e-4, "error_fp64": 3.1e-4},
        {"kernel": "tf32x1", "tier": "fp32-tc", "M": 1024, "N": 1024, "K": 1024, "status": "FAIL",
         "reason": "expected: relative error", "error": 3.0e-4, "error_fp64": 3.2e-4},
        {"kernel": "tf32x3", "tier": "fp32-tc", "M": 1024, "N": 1024, "K": 1024, "status": "PASS", "median_ms": 0.0456,
         "cv": 0.01, "gflops": 47000.0, "pct_of_cublas": 150.0, "pct_of_peak": 9.0, "error": 1.1e-7, "error_fp64": None},
    ])
    console = Console(width=250, record=True)
    console.print(bench_table(rows))
    lines = {line.split()[1]: line for line in console.export_text().splitlines() if line.startswith("│ ")}
    assert "0.0123" in lines["cublas-tf32"] and "CONTEXT" in lines["cublas-tf32"] and "3.1e-04" in lines["cublas-tf32"]
    assert "3.2e-04" in lines["tf32x1"] and "FAIL" in lines["tf32x1"] and "0.0" not in lines["tf32x1"].split("│")[3]
    assert "0.0456" in lines["tf32x3"] and "1.1e-07" in lines["tf32x3"]
