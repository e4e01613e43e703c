"""User mistakes and missing prerequisites end in one line on stderr and a non-zero exit, never a
traceback. Runs the real entry point in a subprocess, as a user would."""

import subprocess
import sys

import pytest

from profiler.errors import GemmprofError
from profiler.subprocess_env import child_env


def gemmprof(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "profiler", *args], capture_output=True, text=True, env=child_env(), timeout=120)


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["bench", "-k", "vectorised"], "unknown kernel 'vectorised'"),
        (["bench", "--sizes", "1024,abc"], "bad size 'abc'"),
        (["bench", "--sizes", "0"], "out of range"),
        (["profile", "-k", "nope"], "unknown kernel 'nope'"),
        (["profile", "--clock-control", "fast"], "--clock-control must be one of"),
        (["analyze", "/nonexistent/x.ncu-rep"], "/nonexistent/x.ncu-rep"),
    ],
)
def test_mistakes_are_one_line(args, fragment):
    r = gemmprof(*args)
    assert r.returncode != 0
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout
    assert fragment in r.stderr
    assert len([l for l in r.stderr.splitlines() if l.strip()]) == 1, r.stderr


def test_bench_without_a_gpu_says_what_to_do():
    from helpers.hardware import gpu_missing

    if gpu_missing() is None:
        pytest.skip("a GPU is present")
    r = gemmprof("bench", "-k", "naive", "--sizes", "64")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert ("CuPy is not installed" in r.stderr and "gemmprof[gpu]" in r.stderr) or "GPU" in r.stderr


def test_profile_without_ncu_says_how_to_point_to_it(tmp_path):
    env = child_env()
    env["PATH"] = str(tmp_path)  # nothing on PATH
    env["GEMMPROF_NCU"] = str(tmp_path / "ncu")  # and an explicit path that does not exist
    r = subprocess.run([sys.executable, "-m", "profiler", "profile", "-k", "naive"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "Nsight Compute not found" in r.stderr and "--ncu" in r.stderr


def test_env_runs_without_a_gpu():
    r = gemmprof("env", "--json")
    assert r.returncode == 0
    import json

    info = json.loads(r.stdout)
    assert info["gemmprof_version"] and "counters_permitted" in info


# --- bad manifests and commands, through the CLI (issue 11): one line each, no traceback -------

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


def test_unparsable_dispatch_condition(tmp_path, monkeypatch):
    """`when` conditions live in the ladder's [[dispatch]] entries: a broken one stops every
    command that reads the dispatchers, in one line."""
    from typer.testing import CliRunner

    from profiler import kernel_paths
    from profiler import manifest as m
    from profiler.cli import app

    for source in kernel_paths.KERNELS_DIR.glob("*.cu*"):  # the copy's `file`s resolve beside it
        (tmp_path / source.name).symlink_to(source)
    copy = tmp_path / "ladder.toml"
    copy.write_text(kernel_paths.MANIFEST_PATH.read_text() + '\n[[dispatch]]\nname = "broken"\ntier = "fp32"\nidea = "x"\n'
                    'rules = [{ kernel = "smem", when = "M >" }]\n')
    monkeypatch.setattr(kernel_paths, "MANIFEST_PATH", copy)  # load_dispatchers reads it when called
    m.clear_caches()
    try:
        result = CliRunner().invoke(app, ["new", "x", "--dir", str(tmp_path / "d")])
    finally:
        m.clear_caches()
    assert isinstance(result.exception, GemmprofError), result.output
    message = str(result.exception)
    assert "dispatch broken: rule for smem: bad condition" in message and "\n" not in message


def test_a_command_that_does_not_exist():
    r = gemmprof("frobnicate")
    assert r.returncode == 2 and r.stdout == ""
    one_line_error(r, "No such command 'frobnicate'", "gemmprof -h")


def test_an_option_that_does_not_exist_or_lacks_its_value():
    one_line_error(gemmprof("bench", "--frob"), "No such option: --frob", "gemmprof bench -h")
    one_line_error(gemmprof("bench", "--sizes"), "Option '--sizes' requires an argument")


def test_no_command_prints_the_help():
    r = gemmprof()
    assert "Usage: gemmprof" in r.stdout and "bench" in r.stdout and "error" not in r.stderr


def test_version_and_short_help():
    from profiler import __version__

    assert gemmprof("--version").stdout.strip() == f"gemmprof {__version__}"
    short, long = gemmprof("-h"), gemmprof("--help")
    assert short.returncode == 0 and short.stdout == long.stdout and "new" in short.stdout
    assert gemmprof("build", "-h").stdout == gemmprof("build", "--help").stdout
