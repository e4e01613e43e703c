"""Profiling a program (profiler.measure.program): its report's stem and the time estimate."""


import pytest

from profiler.measure import program as program_mod


@pytest.mark.parametrize("argv,stem", [
    (["./bin/my_app", "--n", "4"], "my_app"),
    (["python3", "-u", "tests/programs/cupy_and_own_kernel.py", "x"], "cupy_and_own_kernel"),
    (["python3.12", "-m", "pkg.mod", "x"], "pkg.mod"),
    (["python", "-c", "print(1)"], "python"),
    (["/usr/bin/env", "FOO=1", "bash", "run.sh"], "bash"),
])
def test_program_stem(argv, stem):
    assert program_mod.program_stem(argv) == stem


def test_program_stem_is_a_safe_name():
    from profiler.names import slug

    assert program_mod.program_stem(["../x/../index"]) == slug("index") != "index"  # reserved by the report
    assert "/" not in program_mod.program_stem(["python3", "a b/../c d.py"])


def test_estimate_is_priced_for_the_full_set_only():
    assert program_mod.estimate_seconds(100, "full") == pytest.approx(100 * 128.6 / 18)
    assert program_mod.estimate_seconds(100, "basic") is None
