"""Pure pieces of the measure layer: ptxas parsing, statistics, tolerances, shape parsing."""

import math

import pytest

from profiler.cli._options import gather_shapes, parse_sizes
from profiler.errors import GemmprofError
from profiler.measure.build import parse_ptxas
from profiler.measure.sampler import THROTTLING_MASK, StateSampler, decode_reasons
from profiler.measure.timing import Stats
from profiler.measure.verify import bound_threshold, fp32_tolerance
from profiler.specs import peak_fp32_flops
from helpers.paths import REPO

PTXAS = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'sgemm_a' for 'sm_90'
ptxas info    : Function properties for sgemm_a
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 0 barriers, 400 bytes cmem[0]
ptxas info    : Compiling entry function 'sgemm_b' for 'sm_90'
ptxas info    : Function properties for sgemm_b
    16 bytes stack frame, 12 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 8192 bytes smem, 400 bytes cmem[0]
"""


def test_parse_ptxas_picks_the_right_entry():
    assert parse_ptxas(PTXAS, "sgemm_a") == {"registers": 32, "shared_bytes": 0, "stack_bytes": 0,
                                             "spill_store_bytes": 0, "spill_load_bytes": 0, "barriers": 0}
    b = parse_ptxas(PTXAS, "sgemm_b")
    assert (b["registers"], b["shared_bytes"], b["stack_bytes"], b["spill_store_bytes"], b["spill_load_bytes"], b["barriers"]) == (255, 8192, 16, 12, 8, 1)
    with pytest.raises(GemmprofError, match="sgemm_c"):
        parse_ptxas(PTXAS, "sgemm_c")


def test_stats_on_hand_checkable_samples():
    s = Stats.of([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0])
    assert s.n == 11 and s.median_ms == 6.0 and s.min_ms == 1.0 and s.mean_ms == 6.0
    assert s.p10_ms == pytest.approx(2.0) and s.p90_ms == pytest.approx(10.0)
    assert s.cv == pytest.approx(math.sqrt(11.0) / 6.0)
    assert Stats.of([2.5]).cv == 0.0


def test_fp32_tolerance_catches_one_wrong_tile_but_not_rounding():
    assert fp32_tolerance(4096) == pytest.approx(4 * 2**-24 * 64)
    assert 1e-5 < fp32_tolerance(4096) < 2e-5
    # measured on the H200: a sequential-sum kernel against cuBLAS, K=512, 4.5e-7
    assert fp32_tolerance(512) > 5 * 4.5e-7
    assert bound_threshold(4096) == pytest.approx(2 * 4100 * 2**-24)


def test_peak_fp32_is_lanes_times_sms_times_two_times_clock():
    assert peak_fp32_flops((9, 0), 132, 1.98e9) == pytest.approx(66.9e12, rel=1e-3)


def test_throttle_reasons_decode_and_mask():
    assert decode_reasons(0x1 | 0x4) == ["gpu_idle", "sw_power_cap"]
    assert not (0x1 & THROTTLING_MASK) and (0x40 & THROTTLING_MASK)


def test_sampler_without_nvml_gives_an_empty_summary(monkeypatch):
    import profiler.measure.sampler as sampler

    monkeypatch.setattr(sampler, "read_gpu_state", lambda index=0: None)
    with StateSampler() as s:
        pass
    assert s.summary().samples == 0 and not s.summary().throttled


@pytest.mark.parametrize("text,shapes", [("256,512", [(256, 256, 256), (512, 512, 512)]),
                                         ("1536x512x2048, 777", [(1536, 512, 2048), (777, 777, 777)]),
                                         ("256..2048", [(256,) * 3, (512,) * 3, (1024,) * 3, (2048,) * 3]),
                                         ("1000..1999", [(1000,) * 3])])
def test_parse_sizes(text, shapes):
    assert parse_sizes(text) == shapes


@pytest.mark.parametrize("text", ["", "abc", "12,-4", "0", "1x2", "100000", "512..256", "0..8"])
def test_parse_sizes_rejects_malformed(text):
    with pytest.raises(GemmprofError):
        parse_sizes(text)


def test_gather_shapes_merges_and_dedups():
    assert gather_shapes("128,256", (1536, 512, 2048), "1024") == [(128, 128, 128), (256, 256, 256), (1536, 512, 2048)]
    assert gather_shapes(None, None, "1024") == [(1024, 1024, 1024)]
    assert gather_shapes("128,128", None, "1") == [(128, 128, 128)]


def test_kernels_for_a_newer_gpu_are_skipped_with_the_reason():
    from profiler.manifest import load_manifest

    by_name = {s.name: s for s in load_manifest()}
    wgmma, cpasync, naive = by_name["wgmma"], by_name["cpasync"], by_name["naive"]
    assert wgmma.gpu_too_old((8, 0)) == "wgmma needs compute capability 9.0, this GPU has 8.0"
    assert wgmma.gpu_too_old((9, 0)) is None and cpasync.gpu_too_old((8, 0)) is None
    assert "needs compute capability 8.0" in cpasync.gpu_too_old((7, 5))
    assert naive.gpu_too_old((7, 0)) is None  # no min_cc: runs anywhere


def test_git_commit_named_in_the_environment_wins(tmp_path, monkeypatch):
    from profiler.measure.provenance import git_commit

    monkeypatch.delenv("GEMMPROF_GIT_COMMIT", raising=False)
    assert git_commit(tmp_path) == (None, False)
    monkeypatch.setenv("GEMMPROF_GIT_COMMIT", "0123abc")
    assert git_commit(tmp_path) == ("0123abc", False)
    repo = REPO  # a stale .git (the GPU machine's) is overridden too
    assert git_commit(repo) == ("0123abc", False)
