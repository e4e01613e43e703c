"""Extra manifests (--manifest, $GEMMPROF_MANIFEST): their kernels join the ladder, with sources
relative to their own manifest; every mistake in one is a one-line error naming file and kernel."""

import os
import subprocess
import sys

import pytest

from profiler.catalogue import manifest
from profiler.errors import GemmprofError
from profiler.catalogue import kernel_paths
from profiler.catalogue.kernel_paths import MANIFEST_ENV
from profiler.catalogue.kernel_spec import KernelSpec
from profiler.catalogue.manifest import load_manifest, select_kernels
from profiler.subprocess_env import child_env

KERNEL = """\
extern "C" __global__ void sgemm_{name}(int M, int N, int K, float alpha, const float* A, const float* B,
                                       float beta, float* C) {{
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = alpha * acc + (beta == 0.0f ? 0.0f : beta * C[row * N + col]);
}}
"""


def entry(name: str, **over) -> str:
    fields = {"name": f'"{name}"', "file": f'"src/{name}.cu"', "entry": f'"sgemm_{name}"', "tier": '"fp32"',
              "idea": '"a test kernel"', "predecessor": '"naive"', "grid": '["cdiv(N, 16)", "cdiv(M, 16)"]', "block": "[16, 16]"}
    fields.update(over)
    return "[[kernel]]\n" + "".join(f"{k} = {v}\n" for k, v in fields.items() if v is not None) + "\n"


def write_manifest(directory, *entries: str, kernels=()):
    (directory / "src").mkdir(parents=True, exist_ok=True)
    for name in kernels:
        (directory / "src" / f"{name}.cu").write_text(KERNEL.format(name=name))
    path = directory / "mine.toml"
    path.write_text("".join(entries))
    return path


@pytest.fixture
def extra(tmp_path, monkeypatch):
    """A manifest with one kernel in a subdirectory, named by $GEMMPROF_MANIFEST."""
    path = write_manifest(tmp_path, entry("mine"), kernels=["mine"])
    monkeypatch.setenv(MANIFEST_ENV, str(path))
    return path


def test_extra_kernels_follow_the_ladder_with_sources_beside_their_manifest(extra):
    ladder = load_manifest(kernel_paths.MANIFEST_PATH)
    specs = load_manifest()
    assert [s.name for s in specs] == [s.name for s in ladder] + ["mine"]
    mine = specs[-1]
    assert mine.source == extra.parent / "src" / "mine.cu" and mine.source.is_file()
    assert mine.index == len(ladder) + 1 and mine.predecessor == "naive"
    assert select_kernels(["mine"]) == [mine]


def test_the_cache_follows_the_variable(extra, monkeypatch):
    assert "mine" in [s.name for s in load_manifest()]
    monkeypatch.delenv(MANIFEST_ENV)
    assert "mine" not in [s.name for s in load_manifest()]


def test_spec_survives_the_trip_to_a_child_process(extra):
    from dataclasses import asdict

    mine = load_manifest()[-1]
    assert KernelSpec.from_dict(asdict(mine)).source == mine.source


@pytest.mark.parametrize(
    "entries,kernels,fragment",
    [
        ([entry("naive")], ["naive"], "clashes with the one of"),
        ([entry("cublas")], ["cublas"], "cuBLAS reference"),
        ([entry("lost")], [], "src/lost.cu not found"),
        ([entry("mine", grid='["cdiv(N, 16"]')], ["mine"], "bad launch expression"),
        ([entry("mine", colour='"red"')], ["mine"], "unknown keys ['colour']"),
        ([entry("mine", predecessor='"nobody"')], ["mine"], "predecessor 'nobody'"),
        ([entry("mine", probe_shape="[100, 100]")], ["mine"], "probe_shape"),
        (["[[kernel]\nname = 1"], [], "not valid TOML"),
    ],
)
def test_mistakes_in_an_extra_manifest_name_file_and_kernel(tmp_path, monkeypatch, entries, kernels, fragment):
    path = write_manifest(tmp_path, *entries, kernels=kernels)
    monkeypatch.setenv(MANIFEST_ENV, str(path))
    with pytest.raises(GemmprofError) as info:
        load_manifest()
    assert fragment in str(info.value) and str(path) in str(info.value)
    assert "\n" not in str(info.value)


def test_a_clash_between_two_extra_manifests_names_both(tmp_path, monkeypatch):
    first = write_manifest(tmp_path / "a", entry("mine"), kernels=["mine"])
    second = write_manifest(tmp_path / "b", entry("mine"), kernels=["mine"])
    monkeypatch.setenv(MANIFEST_ENV, os.pathsep.join([str(first), str(second)]))
    with pytest.raises(GemmprofError, match="clashes") as info:
        load_manifest()
    assert str(first) in str(info.value) and str(second) in str(info.value)


def test_manifest_option_extends_the_variable(tmp_path, monkeypatch):
    from profiler.catalogue.kernel_paths import add_manifests

    monkeypatch.setenv(MANIFEST_ENV, "/already/there.toml")
    (tmp_path / "x.toml").write_text("")
    add_manifests([tmp_path / "x.toml", tmp_path / "x.toml"])
    assert os.environ[MANIFEST_ENV].split(os.pathsep) == ["/already/there.toml", str(tmp_path / "x.toml")]


def gemmprof(*args: str, cache) -> subprocess.CompletedProcess:
    env = child_env()
    env.pop(MANIFEST_ENV, None)
    env["GEMMPROF_CACHE_DIR"] = str(cache)
    return subprocess.run([sys.executable, "-m", "profiler", *args], capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.nvcc
def test_build_compiles_a_kernel_of_an_extra_manifest(tmp_path):
    path = write_manifest(tmp_path / "user", entry("mine"), kernels=["mine"])
    r = gemmprof("build", "--manifest", str(path), "-k", "mine", "--arch", "sm_90", cache=tmp_path / "cache")
    assert r.returncode == 0, r.stderr
    assert "mine" in r.stdout
    assert list((tmp_path / "cache").rglob("mine.cubin"))


def test_build_header_edits_change_the_cache_key(tmp_path):
    """A header beside an extra kernel is part of its cubin's content hash."""
    from profiler.measure.build import _source_hash

    path = write_manifest(tmp_path, entry("mine"), kernels=["mine"])
    spec = manifest.read_manifest(path, known=["naive"])[0]
    before = _source_hash(spec, "sm_90", "nvcc")
    (tmp_path / "src" / "tile.cuh").write_text("#define TILE 16\n")
    assert _source_hash(spec, "sm_90", "nvcc") != before


@pytest.mark.parametrize(
    "entries,kernels,fragment",
    [
        ([entry("naive")], ["naive"], "clashes"),
        ([entry("lost")], [], "not found"),
        ([entry("mine", smem_bytes='"M +* 2"')], ["mine"], "bad launch expression"),
    ],
)
def test_cli_reports_manifest_mistakes_in_one_line(tmp_path, entries, kernels, fragment):
    path = write_manifest(tmp_path, *entries, kernels=kernels)
    r = gemmprof("build", "--manifest", str(path), "--arch", "sm_90", cache=tmp_path / "cache")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr + r.stdout
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and fragment in lines[0] and str(path) in lines[0], r.stderr


def test_missing_manifest_file_is_one_line(tmp_path):
    r = gemmprof("bench", "--manifest", str(tmp_path / "nope.toml"), "-k", "naive", cache=tmp_path / "cache")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"--manifest {tmp_path / 'nope.toml'}: no such file or directory" in r.stderr
