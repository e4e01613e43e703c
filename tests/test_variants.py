"""benchmarks/variants.py: every kernel in kernels/experiments/ is benched, compiles for sm_90
without spills, and the baselines are in the manifest. (Compiles; no GPU needed.)"""

import importlib.util
from pathlib import Path

import pytest

from profiler.manifest import KERNELS_DIR

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "variants.py"


@pytest.fixture(scope="module")
def variants():
    spec = importlib.util.spec_from_file_location("variants", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_experiment_is_a_variant_and_baselines_are_in_the_manifest(variants):
    on_disk = {p.stem for p in (KERNELS_DIR / "experiments").glob("*.cu")}
    assert {v.name for v in variants.VARIANTS} == on_disk
    assert [s.name for s in variants.kernels()][:len(variants.BASELINES)] == list(variants.BASELINES)
    assert [s.name for s in variants.kernels(["bankrot128x128"])] == ["bankrot128x128"]


def test_rows_of_failed_and_skipped_records(variants):
    line = variants.row("x", 99, {"M": 8, "N": 8, "K": 8, "status": "FAIL", "reason": "relative error"})
    assert "FAIL" in line and "relative error" in line and " - " in line


@pytest.mark.nvcc
def test_every_variant_compiles_without_spills(variants, tmp_path, monkeypatch):
    monkeypatch.setenv("GEMMPROF_CACHE_DIR", str(tmp_path))  # compile for real
    built = variants.build(list(variants.VARIANTS))
    for name, b in built.items():
        assert not isinstance(b, str), b
        r = b.resources
        assert not r.spills and not r.stack_bytes, name
        assert r.registers <= (128 if "128x128" in name else 255), name
    assert variants.main(["--build-only", "--only", "bankrot128x128"]) == 0
