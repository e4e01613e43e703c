"""`gemmprof profile -- CMD` without a GPU: a stand-in ncu (`helpers.ncu_fixtures.PROGRAM_FAKE_NCU`)
that runs the program for real and logs each command line it was given, so the tests check the
ncu command gemmprof built, the run directory, the launch-count guard and the one-line errors."""

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from helpers.ncu_fixtures import install_program_ncu
from profiler.cli import app
from profiler.errors import GemmprofError


@pytest.fixture
def fake_ncu(tmp_path, monkeypatch):
    return install_program_ncu(tmp_path, monkeypatch)


def calls(tmp_path) -> list[list[str]]:
    log = tmp_path / "ncu-calls.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.is_file() else []


def script(tmp_path, body: str, name: str = "app.py") -> Path:
    path = tmp_path / name
    path.write_text(body)
    return path


def profile(tmp_path, *args, program=None):
    program = program or [sys.executable, str(script(tmp_path, "print('hello from the program')\n"))]
    result = CliRunner().invoke(app, ["profile", "--out", str(tmp_path / "runs"), "--run-id", "r", *args, "--", *program])
    return result, tmp_path / "runs" / "r"


pytestmark = [pytest.mark.ncu]


# --- the ncu command line and pure helpers ---------------------------------------------------


# --- the command end to end -----------------------------------------------------------------


def test_profile_a_program_writes_a_run(fake_ncu, tmp_path):
    app_py = script(tmp_path, "import sys; print('hello', sys.argv[1:])\n")
    result, run = profile(tmp_path, "--nvtx-include", "app/", "-k", "sgemm_", program=[sys.executable, str(app_py), "--set", "z"])
    assert result.exit_code == 0, result.output
    assert "hello ['--set', 'z']" in result.output  # the program ran, with its own arguments
    assert [p.name for p in sorted((run / "ncu").iterdir())] == ["app.log", "app.ncu-rep"]
    (profiled,) = calls(tmp_path)  # a filter was given: no counting pass
    assert profiled[profiled.index("--nvtx-include") + 1] == "app/"
    assert profiled[profiled.index("--kernel-name") + 1] == "regex:sgemm_"
    assert profiled[profiled.index("--clock-control") + 1] == "none"
    assert profiled[-3:] == [sys.executable, str(app_py), "--set", "z"][-3:]
    meta = json.loads((run / "run.json").read_text())
    assert meta["source"] == "program" and meta["schema_version"] == 1 and meta["complete"] is True
    assert meta["program"] == [sys.executable, str(app_py), "--set", "z"] and meta["cwd"] == str(Path.cwd())
    assert meta["environment"]["gpu_name"] == "NVIDIA H200 (fake)" and meta["environment"]["driver"] == "580.1"
    assert meta["environment"]["ncu_version"] == "2025.3.1.0" and meta["ncu_command"][0] == str(fake_ncu)
    assert meta["program_status"] == "ok" and meta["program_exit_code"] == 0
    (record,) = [json.loads(line) for line in (run / "profile.jsonl").read_text().splitlines()]
    assert record["report"] == "ncu/app.ncu-rep" and record["source"] == "program" and record["launches"] == 3
    assert record["program_status"] == "ok" and record["ncu_exit_code"] == 0 and record["replay_passes"] == 3 * 38
    assert "hello" in (run / record["log"]).read_text()
    import pandas as pd

    kernels = pd.read_parquet(run / "kernels.parquet")
    assert kernels["report"].tolist() == ["ncu/app.ncu-rep"] and (run / "rules.csv").is_file()


def test_xz_and_rerun_needs_force(fake_ncu, tmp_path):
    result, run = profile(tmp_path, "--launch-count", "3", "--xz")
    assert result.exit_code == 0, result.output
    assert (run / "ncu" / "app.ncu-rep.xz").is_file()
    result, _ = profile(tmp_path, "--launch-count", "3", "--xz")
    assert isinstance(result.exception, GemmprofError) and "--force" in str(result.exception)
    result, _ = profile(tmp_path, "--launch-count", "3", "--force")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (run / "ncu").glob("*.ncu-rep*")) == ["app.ncu-rep"]  # the xz twin is gone
    assert len((run / "profile.jsonl").read_text().splitlines()) == 1


def test_a_failing_program_keeps_its_run_and_says_its_exit_code(fake_ncu, tmp_path):
    failing = script(tmp_path, "import sys; print('partial work'); sys.exit(7)\n", "fails.py")
    result, run = profile(tmp_path, "--launch-count", "2", program=[sys.executable, str(failing)])
    assert isinstance(result.exception, GemmprofError) and result.exception.exit_code == 1
    assert "exited with code 7" in str(result.exception) and "keeps the 3 launch(es)" in str(result.exception)
    assert (run / "ncu" / "fails.ncu-rep").is_file() and (run / "kernels.parquet").is_file()
    record = json.loads((run / "profile.jsonl").read_text())
    assert record["program_status"] == "program_failed" and record["program_exit_code"] == 7 and record["ncu_exit_code"] == 7
    meta = json.loads((run / "run.json").read_text())
    assert meta["complete"] is False and meta["program_exit_code"] == 7


def test_a_filter_that_matches_nothing_names_the_filter(fake_ncu, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_LAUNCHES", "0")
    result, run = profile(tmp_path, "--nvtx-include", "nothing/", "-k", "a", "-k", "b")
    assert isinstance(result.exception, GemmprofError)
    assert "no kernel launch matched the filter (--nvtx-include 'nothing/' -k '(?:a)|(?:b)')" in str(result.exception)
    assert not list((run / "ncu").glob("*.ncu-rep*")) and not (run / "profile.jsonl").exists()
    assert json.loads((run / "run.json").read_text())["program_status"] == "no_kernels"


def test_no_kernels_without_filter_is_found_by_the_counting_pass(fake_ncu, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_COUNT_LAUNCHES", "0")
    result, run = profile(tmp_path)
    assert isinstance(result.exception, GemmprofError) and "launched no CUDA kernel (no filter)" in str(result.exception)
    (counting,) = calls(tmp_path)
    assert "--export" not in counting and counting[counting.index("--metrics") + 1] == "launch__grid_dim_x"
    assert not run.exists()  # nothing profiled, nothing written


def test_guard_lets_few_launches_through(fake_ncu, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_COUNT_LAUNCHES", "50")
    result, run = profile(tmp_path)
    assert result.exit_code == 0, result.output
    assert "50 launch(es) to profile" in result.output
    assert len(calls(tmp_path)) == 2  # counting, then profiling


def test_guard_refuses_many_launches_without_a_terminal(fake_ncu, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_COUNT_LAUNCHES", "400")
    result, run = profile(tmp_path)
    assert isinstance(result.exception, GemmprofError)
    message = str(result.exception)
    assert "400 launches and no filter (about 48 min under --set full)" in message and "--yes" in message
    assert len(calls(tmp_path)) == 1 and not run.exists()


def test_guard_skip_counts_and_yes_goes_on(fake_ncu, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_COUNT_LAUNCHES", "60")
    result, _ = profile(tmp_path, "--launch-skip", "20")  # 40 left: under the guard
    assert result.exit_code == 0, result.output
    assert "40 launch(es) to profile" in result.output
    result, _ = profile(tmp_path, "--yes", "--force", "--set", "basic")
    assert result.exit_code == 0, result.output
    assert "60 kernels" in result.output and "--set basic is not priced" in result.output and "going on (--yes)" in result.output


def test_counters_refused_is_one_line_without_the_ladder_hint(fake_ncu, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_NCU_MODE", "perm")
    result, _ = profile(tmp_path, "--launch-count", "1")
    assert isinstance(result.exception, GemmprofError) and "ERR_NVGPUCTRPERM" in str(result.exception)
    assert "--timing-only" not in str(result.exception)


@pytest.mark.parametrize("args,program,fragment", [
    (["--size", "64"], None, "--size applies to the ladder only"),
    (["--clock-control", "base"], None, "--clock-control none only"),
    (["--replay-mode", "bogus", "-k", "x"], None, "--replay-mode 'bogus' is not one of kernel, application, range, app-range"),
    ([], ["no-such-program-xyz"], "'no-such-program-xyz' is not on PATH"),
    ([], ["./missing/app"], "'./missing/app' does not exist"),
])
def test_usage_errors_are_one_line(fake_ncu, tmp_path, args, program, fragment):
    result, run = profile(tmp_path, *args, program=program)
    assert isinstance(result.exception, GemmprofError) and fragment in str(result.exception)
    assert calls(tmp_path) == [] and not run.exists()


def test_program_options_without_a_program_are_refused(tmp_path):
    result = CliRunner().invoke(app, ["profile", "--nvtx-include", "a/", "--out", str(tmp_path)])
    assert isinstance(result.exception, GemmprofError) and "--nvtx-include applies to a program only" in str(result.exception)


@pytest.mark.parametrize("report_first", [True, False])
def test_sigterm_keeps_what_was_written_and_says_so(fake_ncu, tmp_path, report_first):
    """The real CLI in a child process (its signal handlers), stopped by SIGTERM while the program runs."""
    import os
    import signal
    import subprocess
    import time

    from profiler.subprocess_env import child_env

    sleeper = script(tmp_path, "import time; print('working', flush=True); time.sleep(30)\n", "sleeper.py")
    env = child_env(dict(os.environ, FAKE_REPORT_FIRST="1" if report_first else ""))
    proc = subprocess.Popen([sys.executable, "-m", "profiler", "profile", "--out", str(tmp_path / "runs"), "--run-id", "r",
                             "--launch-count", "1", "--", sys.executable, str(sleeper)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True)
    try:
        for line in proc.stdout:
            if "working" in line:
                break
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        output = proc.stdout.read()
        code = proc.wait(timeout=60)
    finally:  # the stand-in leaves the sleeping program behind: end its whole session
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert code == 128 + signal.SIGTERM and "gemmprof: interrupted" in output
    run = tmp_path / "runs" / "r"
    meta = json.loads((run / "run.json").read_text())
    assert meta["complete"] is False and meta["program_status"] == "interrupted"
    assert (run / "ncu" / "sleeper.log").read_text().startswith("==PROF==")
    assert not list((run / "ncu").glob(".*"))  # no partial file left behind
    if report_first:
        record = json.loads((run / "profile.jsonl").read_text())
        assert record["program_status"] == "interrupted" and record["report"] == "ncu/sleeper.ncu-rep"
        assert (run / "ncu" / "sleeper.ncu-rep").is_file()
    else:
        assert not (run / "profile.jsonl").exists()


def test_ncu_short_flags_for_skip_and_count(fake_ncu, tmp_path):
    """-s and -c mean what they mean to ncu: --launch-skip and --launch-count."""
    result, _ = profile(tmp_path, "-s", "1", "-c", "2", program=[sys.executable, "-c", "print('hi')"])
    assert result.exit_code == 0, result.output
    (profiled,) = calls(tmp_path)
    assert profiled[profiled.index("--launch-skip") + 1] == "1" and profiled[profiled.index("--launch-count") + 1] == "2"
