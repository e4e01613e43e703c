"""The precision tiers (profiler/tiers.py) and the modules that look tier facts up in them: one
record per tier, fp32 and fp16 as before, fp32-tc held to the FP32 bound against strict SGEMM with
cuBLAS FAST_TF32 as a context row."""


import pytest

from profiler.errors import GemmprofError
from profiler.catalogue.kernel_spec import ELEMENT_BYTES, TensorMapSpec
from profiler.catalogue.manifest import REFERENCES, reference_name, reference_rows, reference_tiers, select_kernels
from profiler.measure.tensormap import DATA_TYPE
from profiler.specs import peak_flops
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
