"""The probes (kernels/probes): a bench for the diagnosis itself. Each probe has one planted
bottleneck; on its committed report (tests/data/probes-<gpu>/, made by `make gpu-probes` on the
device) the diagnosis must name that cause and no other. The manifest tests check that each
probe is set up so that its cause can dominate at its profile shape."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from helpers.ncu_fixtures import opened_copy
from profiler.catalogue.kernel_paths import KERNELS_DIR, PROBES_MANIFEST
from profiler.catalogue.manifest import load_manifest
from profiler.measure.profiling import report_stem
from helpers.paths import DATA

PROBES = load_manifest(PROBES_MANIFEST)
SMS = 132  # H100 SXM and H200: the GPUs the probe shapes are made for


def grid_blocks(spec) -> int:
    launch = spec.launch(*spec.probe_shape)
    return launch.grid[0] * launch.grid[1] * launch.grid[2]


# --- the manifest: every probe is set up for its cause ---------------------------------------


def test_every_probe_has_its_own_cause_and_shape():
    causes = [s.planted for s in PROBES]
    assert all(causes) and len(set(causes)) == len(causes)
    assert all(len(s.probe_shape) == 3 and s.unsupported_reason(*s.probe_shape) is None for s in PROBES)
    assert {s.planted for s in PROBES} >= {"fp64", "local_memory", "spills", "occupancy_shared", "uncoalesced_store",
                                           "atomics", "divergence", "tail", "small_grid", "bank_conflicts",
                                           "barrier", "epilogue", "serial_epilogue", "lone_loads"}


def test_probe_sources_state_their_cause_and_live_beside_the_manifest():
    for s in PROBES:
        assert s.source.parent == KERNELS_DIR / "probes"
        head = s.source.read_text().split("\n\n")[0]
        assert f"Planted cause: {s.planted}." in head and "Contract:" in s.source.read_text()


def test_probe_shapes_put_the_cause_in_front():
    by = {s.planted: s for s in PROBES}
    tail = by["tail"]
    assert grid_blocks(tail) == SMS + 1  # one wave, then a lone block
    assert tail.launch(*tail.probe_shape).block[0] == 1024
    assert grid_blocks(by["small_grid"]) <= SMS // 4
    for cause in ("uncoalesced_store", "epilogue", "serial_epilogue", "lone_loads"):  # small K: C, not the k loop, is the time
        M, N, K = by[cause].probe_shape
        assert K <= 256 and M * N >= 4096 * 4096
    assert by["occupancy_shared"].launch(*by["occupancy_shared"].probe_shape).smem_bytes > 227 * 1024 // 2
    assert by["epilogue"].arch == "sm_90a" and by["epilogue"].tensor_maps


# --- the diagnosis of each probe's report -----------------------------------------------------


def fixture_for(spec) -> Path | None:
    """The committed report of this probe at its probe shape, in any tests/data/probes-<gpu>/."""
    stem = report_stem(spec.name, *spec.probe_shape)
    found = sorted(DATA.glob(f"probes-*/ncu/{stem}.ncu-rep*"))
    return found[0] if found else None


@functools.cache
def diagnosis_records(run_dir: Path) -> dict[str, dict]:
    """The run diagnosed with the ladder's and the probes' manifest, one record per kernel as
    diagnosis.json holds them."""
    from profiler.analyze.diagnosis_record import diagnosis_records

    specs = (*load_manifest(), *PROBES)
    return {r["kernel"]: r for r in diagnosis_records(opened_copy(run_dir).diagnose(manifest=specs))}


@pytest.mark.ncu
@pytest.mark.parametrize("spec", PROBES, ids=lambda s: s.name)
def test_diagnosis_names_the_planted_cause(spec):
    report = fixture_for(spec)
    assert report is not None, (f"no fixture: {report_stem(spec.name, *spec.probe_shape)}.ncu-rep is not in tests/data/probes-<gpu>/ncu/ "
                    "(make it on the device: make gpu-probes, see tests/data/README.md)")  # noqa
    record = diagnosis_records(report.parent.parent)[spec.name]
    assert record["cause"] == spec.planted, (spec.name, record.get("cause"), record.get("problem"), record.get("evidence"))


@pytest.mark.ncu
def test_sm_busy_reads_the_small_grid_probe_against_cublas():
    """Active over elapsed SM cycles: the 16-block probe keeps about 16 of 132 SMs busy, cuBLAS
    all of them (the quantity the ladder shows for split-K and stream-K rungs)."""
    busy = opened_copy(DATA / "probes-h100").kernels.set_index("kernel_key")["sm_busy_pct"]
    assert 10 < busy["probe-small-grid"] < 14 and busy["cublas"] > 90
