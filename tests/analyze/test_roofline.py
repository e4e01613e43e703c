"""The roofline tables (profiler.analyze.roofline) on a synthetic kernels table with numbers that
can be checked by hand, on the real H200 sample run, and `gemmprof roofline` end to end."""

from __future__ import annotations

import pandas as pd
import pytest

from helpers.paths import SAMPLE_RUN
from helpers.roofline_frames import launch, synthetic_kernels
from profiler.analyze.roofline import (
    ceilings,
    nearest_ceiling,
    per_kernel,
    roofline,
    roofline_points,
    shared_bytes,
)
from profiler.errors import GemmprofError

SAMPLE = SAMPLE_RUN


def test_ceilings_come_from_the_peak_columns():
    table, notes = ceilings(synthetic_kernels())
    values = dict(zip(table["name"], table["value"]))
    assert values == {"DRAM": 1e12, "L2": 4e12, "shared": 8e12, "L1": 16e12, "FP32 FMA": 20e12}
    assert set(table.loc[table["kind"] == "memory", "unit"]) == {"byte/s"}
    assert table.loc[table["name"] == "FP32 FMA", "unit"].item() == "FLOP/s"
    assert notes == []  # the peaks agree across launches: nothing to say


def test_disagreeing_peaks_use_the_median_and_say_so():
    frame = synthetic_kernels()
    frame.loc[0, "peak_fp32_flops"] = 21e12  # one launch saw a higher clock
    frame.loc[1, "sm_clock_hz"] = 1.6e9
    table, notes = ceilings(frame)
    assert table.set_index("name").loc["FP32 FMA", "value"] == 20e12  # median of 21, 20, 20, 20
    assert len(notes) == 1 and "FP32 FMA" in notes[0] and "5.0%" in notes[0] and "median" in notes[0]
    assert "1.500 to 1.600 GHz" in notes[0]


def test_tensor_ceiling_only_with_tensor_core_flops():
    assert "tensor FP16" not in set(ceilings(synthetic_kernels())[0]["name"])
    frame = synthetic_kernels()
    frame.loc[2, "tensor_flop"] = 5e8
    table = ceilings(frame)[0].set_index("name")
    assert table.loc["tensor FP16", "value"] == 400e12 and bool(table.loc["tensor FP16", "tensor"])


def test_points_hand_checked():
    points = roofline_points(synthetic_kernels()).set_index(["kernel", "level"])
    naive = points.loc["naive"]
    assert naive.loc["DRAM", "intensity"] == pytest.approx(20.0)
    assert naive.loc["L2", "intensity"] == pytest.approx(2.0)
    assert naive.loc["L1", "intensity"] == pytest.approx(0.4)
    assert "shared" not in naive.index  # no shared traffic: no point, rather than an infinite intensity
    assert naive["flops"].unique().tolist() == [pytest.approx(2e12)]
    # roofs: DRAM min(1e12 x 20, 20e12) = 20e12 (compute); L2 4e12 x 2 = 8e12; L1 16e12 x 0.4 = 6.4e12
    assert naive.loc["DRAM", "roof"] == pytest.approx(20e12) and naive.loc["DRAM", "limit"] == "FP32 FMA"
    assert naive.loc["L2", "roof"] == pytest.approx(8e12) and naive.loc["L2", "limit"] == "L2"
    assert naive.loc["L1", "pct_of_roof"] == pytest.approx(31.25)
    smem = points.loc["smem"]
    assert smem.loc["shared", "bytes"] == pytest.approx(2e9)
    assert smem.loc["shared", "intensity"] == pytest.approx(1.0)
    assert smem.loc["shared", "pct_of_roof"] == pytest.approx(50.0)  # 4e12 of 8e12
    # cuBLAS: two launches are one operation: 2 GFLOP in 0.2 ms, DRAM 0.1 GB
    cublas = points.loc["cublas"]
    assert cublas.loc["DRAM", "flops"] == pytest.approx(10e12)
    assert cublas.loc["DRAM", "intensity"] == pytest.approx(20.0)
    assert cublas.loc["shared", "bytes"] == pytest.approx(2 * 1e6 * 128)


def test_labels_and_order_come_from_the_manifest():
    table = per_kernel(synthetic_kernels())
    assert table["label"].tolist() == ["1 naive", "3 smem", "cuBLAS"]
    assert table["launches"].tolist() == [1, 1, 2]


def test_nearest_ceiling_names_the_bound():
    bound = nearest_ceiling(roofline_points(synthetic_kernels())).set_index("kernel")["bound"]
    assert bound.to_dict() == {"naive": "L1", "smem": "shared", "cublas": "FP32 FMA"}


def test_roofline_notes_missing_levels_and_does_not_mutate():
    frame = synthetic_kernels()
    before = frame.copy()
    rf = roofline(frame)
    pd.testing.assert_frame_equal(frame, before)
    assert rf.gpu == "Test GPU"
    assert any("no shared" in n and "1 naive" in n for n in rf.notes)
    assert len(rf.points) == 3 + 4 + 4


def test_shared_bytes_counts_wavefronts_missing_as_zero():
    frame = pd.DataFrame({"shared_load_wavefronts": [1.0, None], "shared_store_wavefronts": [2.0, None],
                          "shared_ldgsts_wavefronts": [None, None]})
    result = shared_bytes(frame)
    assert result.iloc[0] == 3 * 128 and pd.isna(result.iloc[1])


@pytest.mark.parametrize("frame, message", [
    (pd.DataFrame(), "no profiled launches"),
    (pd.DataFrame([launch("naive", 1e9, 1e6, 1e8, 1e8, 1e8, gpu="A"), launch("smem", 1e9, 1e6, 1e8, 1e8, 1e8, gpu="B")]),
     "different GPUs"),
    (pd.DataFrame([launch("naive", 1e9, 1e6, 1e8, 1e8, 1e8, peak_fp32_flops=None)]), "no FP32 peak"),
])
def test_wrong_input_is_a_gemmprof_error(frame, message):
    with pytest.raises(GemmprofError, match=message):
        roofline(frame)


# --- the real sample run (H200, all kernels profiled at 2048) -------------------------------


def sample_kernels() -> pd.DataFrame:
    return pd.read_parquet(SAMPLE / "kernels.parquet")


def test_sample_ceilings():
    kernels = sample_kernels()
    rf = roofline(kernels)
    values = dict(zip(rf.ceilings["name"], rf.ceilings["value"]))
    # each ceiling is the median over the launches of the report's own peak at the clock it ran
    for name, column in (("DRAM", "peak_dram_bytes_per_s"), ("L2", "peak_l2_bytes_per_s"), ("L1", "peak_l1_bytes_per_s"),
                         ("shared", "peak_shared_bytes_per_s"), ("FP32 FMA", "peak_fp32_flops"),
                         ("tensor FP16", "peak_tensor_fp16_flops")):
        assert values[name] == pytest.approx(kernels[column].median(), rel=1e-9), name
    assert values["DRAM"] == pytest.approx(4.81e12, rel=0.01)  # the H200's HBM3e
    assert values["tensor FP16"] / values["FP32 FMA"] == pytest.approx(16.0, rel=1e-3)  # 4096 vs 256 FLOP/clk/SM
    assert rf.gpu == "NVIDIA H200"
    # the tensor-core kernels pulled the SM clock down (power): the spread is said, with the clocks
    clocks = kernels["sm_clock_hz"] / 1e9
    assert any("median" in n and f"{clocks.min():.3f} to {clocks.max():.3f} GHz" in n for n in rf.notes)


def test_sample_points_walk_up_the_ladder():
    kernels = sample_kernels()
    rf = roofline(kernels)
    points = rf.points
    no_shared = set(kernels.loc[kernels["shared_load_wavefronts"].fillna(0) + kernels["shared_store_wavefronts"].fillna(0)
                                + kernels["shared_ldgsts_wavefronts"].fillna(0) == 0, "kernel_key"])
    assert no_shared == {"naive", "coalesced", "wmma", "wgmma"}  # TMA writes shared memory, but no LDS/STS/LDGSTS
    # wgmma reads shared memory through descriptors: its shared traffic is not measured, not zero
    unmeasured = set(kernels.loc[kernels["shared_gmma_inst"].fillna(0) > 0, "kernel_key"])
    assert unmeasured == {"wgmma", "cublas-fp16"}
    assert len(points) == 4 * len(kernels) - len(no_shared | unmeasured)
    flops = points.drop_duplicates("kernel").set_index("kernel")["flops"]
    first_rungs = ["naive", "coalesced", "smem", "blocktile1d", "blocktile2d", "vectorized", "warptile", "doublebuffer"]
    assert flops[first_rungs].is_monotonic_increasing  # the first rungs climb at 2048
    fp32 = flops.drop(["wmma", "wmma_smem", "wgmma", "cublas", "cublas-fp16"])
    assert fp32.idxmax() == "spread128x256x8" and fp32.max() > flops["cublas"]  # above cuBLAS at 2048 under ncu
    assert flops["wmma"] < flops["wmma_smem"] < flops["wgmma"] < flops["cublas-fp16"]
    dram = points[points["level"] == "DRAM"].set_index("kernel")["intensity"]
    naive = kernels.set_index("kernel_key").loc["naive"]
    assert dram["naive"] == pytest.approx(naive["fp32_flop"] / naive["dram_bytes"], rel=1e-9)  # FLOP per DRAM byte
    bound = nearest_ceiling(points).set_index("kernel")["bound"]
    assert bound["smem"] == "shared" and bound["cublas"] == "FP32 FMA" and bound["naive"] == "L1"
    assert bound["spread128x256x8"] == "FP32 FMA" and bound["wgmma"] == "tensor FP16"


# --- gemmprof roofline ------------------------------------------------------------------------


def test_tf32_launches_get_the_tf32_tensor_ceiling():
    """A 3xTF32 kernel (tensor FLOPs all TF32) is held to the TF32 ceiling (200 TFLOP/s here), not the
    FP16 one (400), and only the ceilings some launch is held to are listed."""
    frame = synthetic_kernels()
    frame["peak_tensor_tf32_flops"] = 200e12
    frame["tensor_tf32_flop"] = 0.0
    frame.loc[1, ["tensor_flop", "tensor_tf32_flop"]] = [6e9, 6e9]
    names = set(ceilings(frame)[0]["name"])
    assert "tensor TF32" in names and "tensor FP16" not in names
    points = roofline_points(frame).set_index(["kernel", "level"])
    smem = points.loc["smem"]  # 8 GFLOP in 0.5 ms; DRAM 0.1 GB: intensity 80, 1e12 x 80 = 80e12 < 200e12
    assert smem.loc["DRAM", "roof"] == pytest.approx(80e12) and smem.loc["DRAM", "limit"] == "DRAM"
    frame.loc[1, "dram_bytes"] = 1e7  # intensity 800: the TF32 ceiling caps it
    smem = roofline_points(frame).set_index(["kernel", "level"]).loc["smem"]
    assert smem.loc["DRAM", "roof"] == pytest.approx(200e12) and smem.loc["DRAM", "limit"] == "tensor TF32"
    assert points.loc["naive"].loc["DRAM", "limit"] == "FP32 FMA"


def test_a_launch_with_part_of_its_shape_unknown_is_labelled_without_one():
    """A kernels table where N is missing on one row (found by the fuzz test of `gemmprof roofline`)
    once raised 'cannot convert float NaN to integer' while labelling it."""
    kernels = synthetic_kernels()
    kernels.loc[0, "N"] = float("nan")
    kernels.loc[1, "M"] = 1000  # two shapes, so the labels carry them
    labels = per_kernel(kernels)["label"].tolist()
    assert labels[0] == "1 naive" and any("x" in label for label in labels[1:]), labels
