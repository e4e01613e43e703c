"""What the analysis hands the renderers: a kernel's shape is its launch's (never guessed for a
foreign one), cuBLAS improves on no rung, and the JSON records carry no NaN."""

import json

import numpy as np

from profiler.analyze.bounds import Verdict
from profiler.analyze.diagnosis_record import Diagnosis, RunDiagnosis, diagnosis_records
from profiler.analyze.gemm_shape import shape_of


def test_a_launch_shape_is_never_guessed():
    assert shape_of({"M": 64, "N": 128.0, "K": 32}) == (64, 128, 32)
    assert shape_of({"M": 64, "N": np.nan, "K": 32}) is None
    assert shape_of({"M": 64, "K": 32}) is None


def test_own_shape_is_the_launch_s_else_the_run_s():
    profiled = Diagnosis("vectorized", shape=(4096, 4096, 4096), launch={"M": 2048, "N": 2048, "K": 2048})
    assert profiled.profiled and profiled.own_shape == (2048, 2048, 2048)
    assert Diagnosis("vectorized", shape=(4096, 4096, 4096)).own_shape == (4096, 4096, 4096)
    foreign = Diagnosis("triton_kernel", shape=(4096, 4096, 4096), launch={"M": None, "N": None, "K": None})
    assert foreign.own_shape is None  # another program's launch with no shape named


def test_a_reference_links_below_but_improves_on_nothing():
    cublas = Diagnosis("cublas", predecessor="streamk128x256x8")
    assert cublas.is_reference and cublas.rung_below is None
    rung = Diagnosis("vectorized", predecessor="blocktile2d")
    assert not rung.is_reference and rung.rung_below == "blocktile2d"


def test_records_are_plain_json_with_none_for_what_is_unknown():
    verdict = Verdict("dram", "DRAM bandwidth", "p", "s", ("e",), "c", cause="dram", ranked=("tile_order",))
    run = RunDiagnosis(kernels=[Diagnosis("a", verdict=verdict, gflops=1234.56789, launch={"M": 1, "N": 2, "K": 3}),
                                Diagnosis("b")],
                       summary=None, sizes=None, shape=None, meta={})
    first, second = diagnosis_records(run)
    json.dumps([first, second], allow_nan=False)
    assert first["cause"] == "dram" and first["ranked"] == ["tile_order"] and first["shape"] == [1, 2, 3]
    assert first["gflops"] == 1234.568 and first["pct_cublas"] is None
    assert second["bound"] is None and second["evidence"] == [] and second["shape"] is None
    assert RunDiagnosis([run.kernels[1]], None, None, None, {}).kernel("b") is run.kernels[1]
