"""kernels/experiments/experiments.toml: the experiment kernels are a manifest like the probes'.
Every .cu in the folder has an entry, each names a ladder rung as its predecessor, and
`gemmprof build --manifest` compiles them, spill-free where declared. (Compiles; no GPU needed.)"""

import subprocess
import sys

import pytest

from profiler.catalogue.dispatchers import select_named
from profiler.catalogue.kernel_paths import KERNELS_DIR, MANIFEST_ENV, MANIFEST_PATH
from profiler.catalogue.manifest import load_manifest
from profiler.subprocess_env import child_env

EXPERIMENTS = KERNELS_DIR / "experiments" / "experiments.toml"


def test_every_experiment_source_has_one_entry_beside_the_manifest():
    specs = load_manifest(EXPERIMENTS)
    on_disk = sorted(p.name for p in EXPERIMENTS.parent.glob("*.cu"))
    assert sorted(s.file for s in specs) == on_disk
    assert all(s.source.parent == EXPERIMENTS.parent and s.source.is_file() for s in specs)
    assert {s.entry for s in specs} == {f"sgemm_{s.name}" for s in specs}


def test_predecessors_are_ladder_rungs_and_names_are_new():
    ladder = {s.name for s in load_manifest(MANIFEST_PATH)}
    specs = load_manifest(EXPERIMENTS)
    assert all(s.predecessor in ladder for s in specs), [(s.name, s.predecessor) for s in specs]
    assert not ladder & {s.name for s in specs}
    assert min(s.index for s in specs) == len(ladder) + 1  # numbered after the ladder


def test_manifest_option_makes_experiments_benchable_next_to_rungs(monkeypatch):
    monkeypatch.setenv(MANIFEST_ENV, str(EXPERIMENTS))
    kernels, dispatchers = select_named(["splitk256x64x8rs", "splitk128x64x8rs"])
    assert [k.name for k in kernels] == ["splitk256x64x8rs", "splitk128x64x8rs"] and not dispatchers
    assert kernels[1].smem_bytes == 25088 and kernels[1].predecessor == "splitk256x64x8rs"
    assert kernels[1].unsupported_reason(4095, 4097, 4099) is None  # any shape


@pytest.mark.nvcc
def test_experiments_compile_spill_free_and_build_from_the_cli(tmp_path, monkeypatch):
    from profiler.measure.build import build_all

    monkeypatch.setenv("GEMMPROF_CACHE_DIR", str(tmp_path))  # compile for real
    specs = load_manifest(EXPERIMENTS)
    built = build_all(list(specs), "sm_90")
    assert [b.spec.name for b in built] == [s.name for s in specs]
    spilling = [(b.spec.name, b.resources) for b in built
                if b.spec.spill_free and (b.resources.spills or b.resources.stack_bytes)]
    assert not spilling
    env = child_env()
    env.pop(MANIFEST_ENV, None)
    env.update(GEMMPROF_CACHE_DIR=str(tmp_path), COLUMNS="200")
    r = subprocess.run([sys.executable, "-m", "profiler", "build", "--manifest", str(EXPERIMENTS), "-k", "splitk64x32x8t4",
                        "--arch", "sm_90"], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "splitk64x32x8t4" in r.stdout
