"""`gemmprof new` (profiler.catalogue.scaffold and cli/new.py): the files it writes parse, carry the
signature and the rung's launch, build with nvcc (marker nvcc) and pass verification on a GPU
(marker gpu); it never overwrites and refuses bad or taken names in one line."""

import subprocess
import sys
import tomllib

import pytest

from profiler.errors import GemmprofError
from profiler.catalogue.manifest import load_manifest, read_manifest
from profiler.catalogue.scaffold import entry_name, scaffold, signature
from profiler.subprocess_env import child_env

LADDER = {s.name: s for s in load_manifest()}


def gemmprof(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "profiler", *map(str, args)], capture_output=True, text=True,
                          env=child_env(), cwd=cwd, timeout=300)


def write(files):
    files.source.write_text(files.source_text)
    files.manifest.write_text(files.manifest_text)
    return files


def test_plain_scaffold_has_the_signature_and_a_tile_launch(tmp_path):
    files = write(scaffold("mine", tmp_path))
    assert files.source == tmp_path / "mine.cu" and files.manifest == tmp_path / "mine.toml"
    assert signature("fp32", "sgemm_mine") + "\n{" in files.source_text
    assert "// Contract (mine.toml" in files.source_text and "Shapes: any M, N, K." in files.source_text
    (spec,) = read_manifest(files.manifest, known=LADDER)
    assert (spec.name, spec.entry, spec.tier, spec.file, spec.predecessor) == ("mine", "sgemm_mine", "fp32", "mine.cu", None)
    assert spec.source == files.source and spec.contract == {}
    assert spec.launch(100, 70, 5).grid == (3, 4, 1) and spec.launch(100, 70, 5).block == (32, 32, 1)


def test_fp16_scaffold_takes_half_inputs(tmp_path):
    files = scaffold("half", tmp_path, tier="fp16")
    assert "const __half* A, const __half* B" in files.source_text and "__half2float(A[" in files.source_text
    assert tomllib.loads(files.manifest_text)["kernel"][0]["tier"] == "fp16"


def test_copy_of_a_rung_keeps_its_launch_and_renames_its_entry(tmp_path):
    rung = LADDER["wgmma"]
    files = write(scaffold("faster", tmp_path, base="wgmma"))
    (spec,) = read_manifest(files.manifest, known=LADDER)
    assert spec.predecessor == "wgmma" and spec.entry == "sgemm_faster"
    for key in ("tier", "grid", "block", "smem_bytes", "contract", "arch", "min_cc", "tensor_maps"):
        assert getattr(spec, key) == getattr(rung, key), key
    assert rung.entry not in files.source_text and files.source_text.count("sgemm_faster") >= 1
    assert "CUtensorMap per tensor map (A, B)" in files.source_text


@pytest.mark.parametrize("name,base,tier,fragment", [
    ("smem", None, None, "taken by the built-in ladder"),
    ("cublas", None, None, "taken"),
    ("a/b", None, None, "not a plain name"),
    ("9lives", None, None, "not a plain name"),
    ("index", None, None, "not a plain name"),
    ("x", "nope", None, "--from 'nope' is not a kernel"),
    ("x", "smem", "fp16", "contradicts --from smem"),
    ("x", None, "fp64", "not a tier"),
])
def test_bad_requests_are_refused(tmp_path, name, base, tier, fragment):
    with pytest.raises(GemmprofError, match=fragment):
        scaffold(name, tmp_path, base, tier)
    assert list(tmp_path.iterdir()) == []


def test_entry_names_are_c_identifiers():
    assert entry_name("my-kern") == "sgemm_my_kern" and entry_name("k_2") == "sgemm_k_2"


@pytest.mark.nvcc
@pytest.mark.parametrize("base,tier", [(None, "fp32"), (None, "fp16"), ("cpasync", None)])
def test_scaffold_builds_through_the_cli(tmp_path, monkeypatch, base, tier):
    monkeypatch.setenv("GEMMPROF_CACHE_DIR", str(tmp_path / "cache"))
    args = ["new", "mine", "--dir", tmp_path / "d"] + (["--from", base] if base else ["--tier", tier])
    assert gemmprof(*args).returncode == 0
    r = gemmprof("build", "--manifest", tmp_path / "d" / "mine.toml", "-k", "mine", "--arch", "sm_90")
    assert r.returncode == 0, r.stderr
    assert "mine" in r.stdout and "ptxas resources (sm_90)" in r.stdout


@pytest.mark.gpu
@pytest.mark.parametrize("tier", ["fp32", "fp16"])
def test_scaffold_passes_verification_as_written(tmp_path, tier):
    from profiler.measure.bench import BenchTarget, bench_kernel
    from profiler.measure.build import build_kernel
    from profiler.measure.timing import TimingPolicy

    files = write(scaffold("mine", tmp_path, tier=tier))
    (spec,) = read_manifest(files.manifest, known=LADDER)
    shapes = [(128, 128, 128), (257, 129, 67)]
    records = []
    quick = TimingPolicy(min_reps=3, max_reps=5, max_seconds=0.2, warmup_seconds=0.01, warmup_max_seconds=0.2)
    bench_kernel(BenchTarget(spec.name, spec.tier, str(build_kernel(spec, "sm_90").cubin), spec), shapes, quick, records.append)
    assert [r["status"] for r in records] == ["PASS", "PASS"], records
