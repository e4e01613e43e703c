"""Choosing GPUs (profiler.fanout.gpus): --gpus parsed, one model per run."""


import pytest

from helpers.ncu_fixtures import fake_ncu  # noqa: F401  (the stand-in ncu fixture)
from profiler.errors import GemmprofError
from profiler.fanout.gpus import Gpu, check_one_model, parse_gpus

TWO = [Gpu("0", "GPU-aaa", "NVIDIA H200", 1980, 3201), Gpu("1", "GPU-bbb", "NVIDIA H200", 1980, 3201)]


def test_gpu_selection():
    h100 = Gpu("2", "GPU-ccc", "NVIDIA H100 80GB HBM3")
    assert parse_gpus("all", TWO) == TWO and parse_gpus("1", TWO) == [TWO[1]] and parse_gpus("GPU-aaa", TWO) == [TWO[0]]
    with pytest.raises(GemmprofError, match="no GPU '7'"):
        parse_gpus("0,7", TWO)
    with pytest.raises(GemmprofError, match="twice"):
        parse_gpus("0,0", TWO)
    with pytest.raises(GemmprofError, match="mixes GPU models"):
        check_one_model([*TWO, h100], mixed=False)
    check_one_model([*TWO, h100], mixed=True)
    assert TWO[0].columns() == {"gpu_index": "0", "gpu_uuid": "GPU-aaa", "gpu_name": "NVIDIA H200",
                                "gpu_sm_clock_max_mhz": 1980, "gpu_mem_clock_max_mhz": 3201}
