"""`gemmprof build --manifest` on a user's manifest: every mistake (missing source, a name the ladder
has, a bad grid, a wrong entry or signature) is one line."""

import subprocess
import sys

import pytest

from profiler.subprocess_env import child_env


def gemmprof(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "profiler", *args], capture_output=True, text=True, env=child_env(), timeout=120)

GOOD_CU = 'extern "C" __global__ void sgemm_mine(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {}\n'


def manifest(tmp_path, name="mine", file="mine.cu", grid='["cdiv(N, 32)", "cdiv(M, 32)"]', extra="", source=GOOD_CU):
    (tmp_path / "mine.cu").write_text(source.replace("sgemm_mine", "sgemm_other") if "wrong_entry" in extra else source)
    extra = extra.replace("wrong_entry", "")
    path = tmp_path / "mine.toml"
    path.write_text(f'[[kernel]]\nname = "{name}"\nfile = "{file}"\nentry = "sgemm_mine"\ntier = "fp32"\n'
                    f'idea = "x"\ngrid = {grid}\nblock = [32, 32]\n{extra}')
    return path


def one_line_error(r, *fragments):
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr + r.stdout
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and lines[0].startswith("gemmprof: error:"), r.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def test_manifest_with_a_missing_source(tmp_path):
    one_line_error(gemmprof("build", "--manifest", str(manifest(tmp_path, file="gone.cu")), "-k", "mine"),
                   "mine.toml: mine: kernel source", "gone.cu not found")


def test_manifest_clashing_with_the_ladder(tmp_path):
    one_line_error(gemmprof("build", "--manifest", str(manifest(tmp_path, name="smem")), "-k", "smem"),
                   "kernel 'smem'", "clashes with the one of", "ladder.toml")


@pytest.mark.parametrize("grid,fragment", [('["cdiv(N, 32", "1"]', "was never closed"),
                                           ('["__import__(1)"]', "unsupported expression"),
                                           ('["N / 2"]', "unsupported expression")])
def test_manifest_with_an_unparsable_grid(tmp_path, grid, fragment):
    one_line_error(gemmprof("build", "--manifest", str(manifest(tmp_path, grid=grid)), "-k", "mine"),
                   "mine.toml: mine: bad launch expression", fragment)


@pytest.mark.nvcc
def test_manifest_whose_entry_is_not_in_the_source(tmp_path, monkeypatch):
    monkeypatch.setenv("GEMMPROF_CACHE_DIR", str(tmp_path / "cache"))
    r = gemmprof("build", "--manifest", str(manifest(tmp_path, extra="wrong_entry")), "-k", "mine", "--arch", "sm_90")
    one_line_error(r, "mine.cu: mine: entry 'sgemm_mine' not found", "sgemm_other")


@pytest.mark.nvcc
@pytest.mark.parametrize("signature, found", [
    ("int M, int N, int K, const float* A, const float* B, float beta, float* C", "7 parameters of [4, 4, 4, 8, 8, 4, 8]"),
    ("int M, int N, int K, double alpha, const float* A, const float* B, float beta, float* C", "8 parameters of [4, 4, 4, 8, 8, 8, 4, 8]"),
    ("int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C, int extra", "9 parameters")])
def test_manifest_whose_kernel_has_another_signature(tmp_path, monkeypatch, signature, found):
    monkeypatch.setenv("GEMMPROF_CACHE_DIR", str(tmp_path / "cache"))
    source = f'extern "C" __global__ void sgemm_mine({signature}) {{}}\n'
    r = gemmprof("build", "--manifest", str(manifest(tmp_path, source=source)), "-k", "mine", "--arch", "sm_90")
    one_line_error(r, "mine.cu: mine: sgemm_mine takes", found, "the launcher passes 8 of [4, 4, 4, 4, 8, 8, 4, 8] bytes")


@pytest.mark.nvcc
def test_manifest_whose_kernel_has_the_signature_builds(tmp_path, monkeypatch):
    monkeypatch.setenv("GEMMPROF_CACHE_DIR", str(tmp_path / "cache"))
    r = gemmprof("build", "--manifest", str(manifest(tmp_path)), "-k", "mine", "--arch", "sm_90")
    assert r.returncode == 0, r.stderr


@pytest.mark.nvcc
def test_build_prints_a_line_a_kernel_as_it_is_ready_cached_ones_marked(tmp_path, monkeypatch):
    monkeypatch.setenv("GEMMPROF_CACHE_DIR", str(tmp_path / "cache"))
    first = gemmprof("build", "-k", "naive", "-k", "smem", "--arch", "sm_90")
    again = gemmprof("build", "-k", "naive", "-k", "smem", "--arch", "sm_90")
    assert first.returncode == 0 and again.returncode == 0, first.stderr + again.stderr
    lines = lambda r: sorted(line.strip() for line in r.stdout.splitlines() if line.startswith("  "))  # noqa: E731
    assert lines(first) == ["naive: built", "smem: built"] and lines(again) == ["naive: cached", "smem: cached"]
