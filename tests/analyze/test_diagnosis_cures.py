"""The diagnosis on the committed sample runs, held to what an expert would accept: no cure
prescribes a technique the kernel already uses, Hopper kernels get Hopper verdicts, and `analyze`
and the report name the same top stall."""

from __future__ import annotations

import pytest
from helpers.paths import SAMPLE_RUN

from profiler.analyze.diagnosis import diagnose_run
from profiler.analyze.diagnosis_record import diagnosis_records
from profiler.analyze.techniques import LABELS
from profiler.catalogue.manifest import load_manifest
from profiler.runs.rundir import RunDir

RUNS = [SAMPLE_RUN, SAMPLE_RUN.parent / "sample-h200-fast"]
# What a cure says when it prescribes a technique (the phrase only a prescription uses).
PRESCRIBES = {
    "register_prefetch": "Prefetch the next tile",
    "double_buffer": "Double-buffer the shared tiles",
    "vector_shared_loads": "Use 128-bit shared loads",
    "vector_global_loads": "Use 128-bit global loads",
    "cp_async": "with cp.async into a second shared buffer",
    "tma": "with TMA",
}


def diagnose(path):
    run = RunDir(path)
    tables = {n: run.read_table(n) for n in ("kernels", "rules", "source", "sass", "bench") if run.has_table(n)}
    return diagnose_run(tables, load_manifest(), run.meta(), None), tables


@pytest.fixture(scope="module", params=RUNS, ids=lambda p: p.name)
def sample(request):
    if not (request.param / "sass.parquet").is_file():
        pytest.skip("sample run not present")
    return diagnose(request.param)


def test_no_cure_prescribes_what_the_kernel_already_does(sample):
    run, _ = sample
    checked = 0
    for record in diagnosis_records(run):
        for key, phrase in PRESCRIBES.items():
            if LABELS[key] in record["already_uses"] and key != "tma":
                assert phrase not in (record["cure"] or ""), (record["kernel"], key, record["cure"])
                checked += 1
    assert checked >= 5  # the test looked at kernels that do use these techniques


def test_hopper_kernels_get_verdicts_in_their_own_terms(sample):
    run, _ = sample
    records = {r["kernel"]: r for r in diagnosis_records(run)}
    for name in ("wgmma", "cublas-fp16"):
        r = records[name]
        assert LABELS["wgmma"] in r["already_uses"] and LABELS["tma"] in r["already_uses"]
        assert r["cause"] in ("epilogue", "latency_pipeline", "tensor_roof"), (name, r["cause"])
        assert "register" not in (r["cure"] or "").lower(), r["cure"]  # not the SIMT register-count cure
        assert any("not measured" in n for n in r["notes"])  # wgmma's shared reads are invisible


def test_analyze_and_the_report_name_the_same_top_stall(sample):
    run, tables = sample
    kernels = tables["kernels"]
    for d in run.kernels:
        if not d.profiled:
            continue
        row = kernels[(kernels["report"] == d.launch["report"]) & (kernels["launch"] == d.launch["launch"])].iloc[0]
        assert row["top_stall"] not in ("selected", "not_selected")
        real = d.stalls[~d.stalls["benign"].astype(bool)]
        assert real["reason"].iloc[0] == row["top_stall"], d.name


def test_each_kernel_page_sets_its_counters_beside_cublas(sample):
    run, _ = sample
    d = run.kernel("spread128x256x8")
    assert d.versus_name == "cublas"
    rows = d.versus.set_index("quantity")
    assert {"gflops", "issue_pct", "registers_per_thread", "top_stall"} <= set(rows.index)
    assert rows.at["registers_per_thread", "reference"] == "202" if run.shape == (2048, 2048, 2048) else True
    wg = run.kernel("wgmma")
    assert wg.versus_name == "cublas-fp16"  # its own tier's reference, never FP32 cuBLAS
    assert run.kernel("cublas").versus.empty  # a reference is not compared with itself


def test_report_json_prints_the_verdicts_and_writes_nothing(tmp_path):
    import json
    import shutil

    from typer.testing import CliRunner

    from profiler.cli import app

    run = tmp_path / "run"
    shutil.copytree(SAMPLE_RUN, run, ignore=shutil.ignore_patterns("extract", "report"))
    result = CliRunner().invoke(app, ["report", str(run), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["schema_version"] == 1
    causes = {k["kernel"]: k["cause"] for k in data["kernels"]}
    assert causes["naive"] == "uncoalesced_load" and causes["wgmma"] == "epilogue"
    assert not (run / "report").exists()


@pytest.mark.ncu
def test_a_tensor_bound_kernel_on_wgmma_and_tma_is_not_told_to_use_them():
    """tf32x3bits (2026-11-23 H100, 4096^3) runs its tensor cores at 68% of the TF32 peak, the busiest
    unit: the tensor verdict. The usual cure names wgmma fed by TMA, which it already is; its cure is
    the tensor pipe's idle cycles instead (30% of active cycles in that profile)."""
    from helpers.ncu_fixtures import opened_copy
    from helpers.paths import DATA

    from profiler.analyze.bounds import BOUNDS

    run = opened_copy(DATA / "ladder-runs-h100" / "tf32-bits")
    d = {k.name: k for k in run.diagnose().kernels}["tf32x3bits"]
    assert d.verdict.bound == "tensor" and "68% of their dense TF32 peak" in d.verdict.summary
    assert d.verdict.cure != BOUNDS["tensor"].cure and "bulk tensor copy engine" not in d.verdict.cure
    assert d.verdict.cure.startswith("Already wgmma fed by TMA") and "30% of active cycles" in d.verdict.cure


@pytest.mark.ncu
def test_waiting_for_its_own_wgmmas_is_not_a_barrier_problem():
    """wgmma_tmastore (2026-11-23 H100, 4096^3, FP16): ncu puts 31% of the cycles in barrier stalls,
    almost all at WARPGROUP.DEPBAR (wgmma.wait_group: the warp waits for its MMAs, the tensor pipe
    at work), 0.3% of the samples at BAR. The verdict is the tensor cores at 75% of their peak, not
    "warps wait at barriers"; and 56% replays on its epilogue's few shared loads (0.3% of the cycles)
    are not the bound either."""
    from helpers.ncu_fixtures import opened_copy
    from helpers.paths import DATA

    run = opened_copy(DATA / "ladder-runs-h100" / "fp16-tma")
    d = {k.name: k for k in run.diagnose().kernels}["wgmma_tmastore"]
    assert d.verdict.bound == "tensor" and d.verdict.cause == "tensor_roof", (d.verdict.cause, d.verdict.problem)
    assert "75% of their dense FP16 peak" in d.verdict.summary


@pytest.mark.parametrize("top", ["dispatch_stall", "short_scoreboard"])
def test_a_micro_tile_at_the_register_limit_is_not_told_to_grow(top):
    """splitk128x256x8 at 512x512x16384 (H100): latency-bound at 2 warps per scheduler, dispatch
    stalls on top, 8x16 results per thread (0.050 shared loads per FFMA, 254 registers). A larger
    micro-tile would spill, so the cure says what is left; an 8x8 tile (0.0625 at 128 registers,
    texld128x128x8) is still told to grow, which is what its successors did."""
    from helpers.cause_signals import signals

    from profiler.analyze.sentences import _latency_cure

    def cure(per, registers):
        s = signals(occupancy={"registers_per_thread": registers, "warps_per_scheduler": 2.0},
                    stall_cycles={top: 0.3, "not_selected": 0.77}, mix={"shared_load_per_math": per})
        return _latency_cure(top, s)[2]

    full = cure(0.050, 254)
    assert "register limit (20 FFMAs per shared load, 254 registers)" in full and "larger register micro-tile" not in full
    assert "larger micro-tile per thread" not in full
    for grows in (cure(0.0625, 128), cure(0.050, 128), cure(0.0683, 254)):
        assert "larger" in grows and "register limit" not in grows


def test_fragments_a_step_ahead_are_advised_only_where_shared_load_waits_show():
    """splitk128x256x8rs at 256x256x32768 (H100) already loads each k step's fragments during the
    step before: its shared-load waits are 3% of the cycles, so the cure for its dispatch stalls
    does not ask for that again; with shared-load waits at 20% it does."""
    from helpers.cause_signals import signals

    from profiler.analyze.sentences import _latency_cure

    def cure(short):
        s = signals(occupancy={"registers_per_thread": 236, "warps_per_scheduler": 2.0},
                    stall_cycles={"dispatch_stall": 0.17, "short_scoreboard": short, "not_selected": 1.0},
                    mix={"shared_load_per_math": 0.05})
        return _latency_cure("dispatch_stall", s)[2]

    done = cure(0.04)
    assert "k step ahead" not in done and "already arrive in time (shared-load waits: 3.3% of the cycles)" in done
    assert "fragments loaded a k step ahead" in cure(0.3)


def test_one_wave_of_blocks_that_end_unevenly_is_noted():
    """splitk128x256x8 at 512x512x16384 (H100): 128 blocks on 132 SMs, one wave (97% of the SMs
    given a block), SMs busy 85%: the split blocks that sum the partials end last. A note, not the
    verdict; none when busy matches the fill or when there are several waves (the tail note's case)."""
    from helpers.cause_signals import signals

    from profiler.analyze.sentences import notes

    def said(busy, waves=0.97, grid_z=16):
        s = signals(launch={"sm_busy_pct": busy, "grid_z": grid_z}, util={"sm_fill": 97.0, "waves": waves})
        return [n for n in notes("latency", "latency", s) if "end unevenly" in n]

    (note,) = said(85.0)
    assert "97% of the SMs a block" in note and "busy 85% of the launch" in note and "sum a tile's partials" in note
    (plain,) = said(85.0, grid_z=1)
    assert "partials" not in plain
    assert said(90.0) == [] and said(85.0, waves=1.6) == [] and said(float("nan")) == []


def test_a_full_memory_queue_with_128_bit_loads_is_told_to_spread_them(monkeypatch):
    """cutlass128x256x8's top stall is MIO throttle at its fragment loads, already LDS.128 at a
    micro-tile at the register limit: the cure is how they are issued (what spread128x256x8 does,
    a few in a row at most), not wider loads or a larger tile. (Its register banks lead, within
    noise of the queue: the verdict read here is the one ranked beside them.)"""
    from profiler.analyze import sentences

    monkeypatch.setattr(sentences, "register_banks", lambda s: None)
    run, _ = diagnose(SAMPLE_RUN)
    record = next(r for r in diagnosis_records(run) if r["kernel"] == "cutlass128x256x8")
    assert record["cause"] == "latency_queue"
    assert "already 128-bit" in record["cure"] and "a few in a row" in record["cure"]
    assert "Use 128-bit" not in record["cure"] and "a larger micro-tile" not in record["cure"]
