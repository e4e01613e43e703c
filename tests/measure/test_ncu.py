"""The ncu command line and its output (profiler.measure.ncu): filters before the program, a bound
narrows, the program's exit code and launch count read back."""

from pathlib import Path

import pytest

from profiler.measure.ncu import Filters, NcuOptions, NcuResult, program_command, program_exit_code


def test_program_command_carries_filters_before_the_program():
    opts = NcuOptions(ncu=Path("/x/ncu"), extra_metrics=["a__b.sum"])
    filters = Filters(nvtx_include=("app/", "gemm 64x64x64/"), kernel_regex="sgemm_.*", launch_skip=2, launch_count=5,
                      replay_mode="application")
    cmd = program_command(opts, filters, Path("/run/ncu/.p.partial"), ["python3", "x.py", "--set", "y"])
    assert cmd[-4:] == ["python3", "x.py", "--set", "y"]  # the program's own options stay its own
    head = cmd[:-4]
    pairs = {head[i]: head[i + 1] for i in range(len(head) - 1) if head[i].startswith("--") and not head[i + 1].startswith("--")}
    assert pairs["--clock-control"] == "none" and pairs["--set"] == "full" and pairs["--kernel-name"] == "regex:sgemm_.*"
    assert pairs["--launch-skip"] == "2" and pairs["--launch-count"] == "5" and pairs["--replay-mode"] == "application"
    assert [head[i + 1] for i, a in enumerate(head) if a == "--nvtx-include"] == ["app/", "gemm 64x64x64/"]
    assert "--nvtx" in head and pairs["--export"] == "/run/ncu/.p.partial" and pairs["--metrics"] == "a__b.sum"


def test_filters_narrow_only_with_a_bound():
    assert not Filters().narrows and not Filters(launch_skip=3).narrows
    assert Filters(launch_count=1).narrows and Filters(kernel_regex="x").narrows and Filters(nvtx_include=("a/",)).narrows
    assert Filters().arguments() == [] and Filters().describe() == "no filter"


def test_program_exit_code_from_ncu_output():
    assert program_exit_code(NcuResult(0, ["==PROF== done"], None, [])) == 0
    assert program_exit_code(NcuResult(3, ["x", "==ERROR== The application returned an error code (3).", "y"], None, [])) == 3
    assert program_exit_code(NcuResult(1, ["==ERROR== something else"], None, [])) is None


@pytest.mark.parametrize("line,kernel,passes", [
    ('==PROF== Profiling "sgemm_naive" - 0: 0%....50%....100% - 38 passes', "sgemm_naive", 38),
    ('==PROF== Profiling "warmingup(float*)" - 1: 0%....50%....100% - 1 pass', "warmingup(float*)", 1),
    ('Running ...==PROF== Profiling "k" - 0 (1/1): 0%....50%....100% - 3 passes', "k", 3),
    ('==PROF== Profiling "k" - 0: 0%....50%....', "k", 0),  # a warning broke the line: still a launch
])
def test_profiling_lines_count_launches(line, kernel, passes):
    from profiler.measure.ncu import _PROFILING

    m = _PROFILING.search(line)
    assert m["kernel"] == kernel and int(m["passes"] or 0) == passes
    assert _PROFILING.search("==PROF== Connected to process 1 (/usr/bin/python3)") is None


def test_each_gpu_gets_its_own_ncu_lock(tmp_path, monkeypatch):
    import os
    import pathlib
    import tempfile

    from profiler.measure.ncu import lock_per_gpu

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    env = {"CUDA_VISIBLE_DEVICES": "1"}
    a = lock_per_gpu(dict(env), "GPU-aaa")["TMPDIR"]
    b = lock_per_gpu(dict(env), "GPU-bbb")["TMPDIR"]
    assert a != b and lock_per_gpu({}, "GPU-aaa")["TMPDIR"] == a  # per GPU, the same for one GPU
    assert pathlib.Path(a).is_dir() and pathlib.Path(a).parent == tmp_path and oct(pathlib.Path(a).stat().st_mode & 0o777) == "0o700"
    # a folder of that name that is not this user's own (here: a symlink planted there) is not used
    planted = tmp_path / f"gemmprof-ncu-{os.getuid()}-GPU-ccc"
    planted.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere").mkdir()
    assert "TMPDIR" not in lock_per_gpu({}, "GPU-ccc")


def test_on_replay_runs_when_a_kernel_line_begins_and_a_failure_there_stops_ncu(tmp_path, monkeypatch):
    """Side work waits for ncu to start replaying a kernel (its line begins), not for the line's
    end nor ncu's; if the side work fails, ncu is not left running."""
    import sys

    from profiler.measure import ncu

    gate = tmp_path / "replaying"
    script = ("import pathlib, sys, time\nprint('==PROF== Connected to process 1', flush=True)\n"
              "sys.stdout.write('==PROF== Profiling \"k\" - 0: 0%..'); sys.stdout.flush()\n"
              f"while not pathlib.Path({str(gate)!r}).exists(): time.sleep(0.01)\n"
              "print('..100% - 38 passes')\nprint('done')")
    seen = []
    result = ncu.run_ncu([sys.executable, "-c", script], {}, on_replay=gate.touch, target_output=False,
                         on_kernel=lambda kernel, passes: seen.append((kernel, passes)))
    assert result.returncode == 0 and seen == [("k", 38)]  # it would hang had on_replay waited for the line's end
    assert result.lines[1:] == ['==PROF== Profiling "k" - 0: 0%....100% - 38 passes', "done"]

    called = []
    ncu.run_ncu([sys.executable, "-c", "print('no kernel\\rprogress\\r\\nend')"], {}, on_replay=lambda: called.append(1),
                target_output=False)
    assert called == []  # a run that profiles nothing never replays

    stopped = []
    monkeypatch.setattr(ncu, "stop", lambda proc: stopped.append(proc) or proc.kill() or proc.wait())

    def fail():
        raise RuntimeError("side work failed")

    kernel_then_sleep = "print('==PROF== Profiling \"k\" - 0: 0%', flush=True); import time; time.sleep(60)"
    with pytest.raises(RuntimeError, match="side work"):
        ncu.run_ncu([sys.executable, "-c", kernel_then_sleep], {}, on_replay=fail, target_output=False)
    assert len(stopped) == 1 and stopped[0].poll() is not None


def _output_lines_of(chunks, pause_s: float = 0.0) -> tuple[list[str], list[str]]:
    """`output_lines` over a pipe written chunk by chunk from a thread (`pause_s` apart: one read
    each, as ncu's output arrives): the lines and what `on_partial` saw."""
    import os
    import threading
    import time

    from profiler.measure.ncu import output_lines

    read, write = os.pipe()

    def writer():
        for chunk in chunks:
            os.write(write, chunk)
            time.sleep(pause_s)
        os.close(write)

    class Stream:
        def fileno(self):
            return read

    partial = []
    thread = threading.Thread(target=writer)
    thread.start()
    lines = list(output_lines(Stream(), partial.append))
    thread.join()
    os.close(read)
    return lines, partial


def test_output_lines_end_at_each_newline_and_carriage_return_as_a_text_stream_would():
    """A program's progress bar (\\r) ends lines as Python's text streams end them; a \\r\\n split
    across two reads is one end."""
    lines, partial = _output_lines_of((b"a\r\nb\rc\n==PROF== Profiling", b' "k" 0%..\r', b"\n", b"tail"), pause_s=0.1)
    assert lines == ["a", "b", "c", '==PROF== Profiling "k" 0%..', "tail"]
    assert partial == ["==PROF== Profiling", '==PROF== Profiling "k" 0%..\r', "tail"]


def test_a_line_that_never_ends_arrives_whole_and_its_partials_are_its_start():
    """A program that prints one long line in many pieces: the line arrives whole at its end,
    and each partial look at it is only its first PARTIAL_BYTES (not the whole line again)."""
    from profiler.measure.ncu import PARTIAL_BYTES

    lines, partial = _output_lines_of([b"x" * 32768] * 32 + [b"\rdone"])
    assert lines == ["x" * 32 * 32768, "done"]
    assert partial and all(p == "x" * PARTIAL_BYTES for p in partial[:-1]) and partial[-1] == "done"
