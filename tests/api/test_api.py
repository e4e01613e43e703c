"""`import gemmprof` (profiler/api): the README's notebook example gives what it says on the
sample run that ships with gemmprof; importing needs no GPU and no CLI."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from helpers.paths import REPO, SAMPLE_RUN


def notebook_example() -> str:
    text = (REPO / "README.md").read_text()
    section = text.split("## In a notebook", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_import_gemmprof_needs_no_gpu_and_no_cli():
    code = "import sys, gemmprof; print(gemmprof.open_run.__module__, 'cupy' in sys.modules, 'profiler.cli' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/", check=True).stdout
    assert out.split() == ["profiler.run", "False", "False"]


def test_keywords_and_words_become_the_workflows_options(tmp_path):
    """`gemmprof.bench(...)` calls the bench workflow itself: keywords as a notebook writes them,
    command-line words read by the command's own table, a misspelt keyword one line."""
    from types import SimpleNamespace

    import pytest

    from profiler.api import _run, _values
    from profiler.errors import GemmprofError
    from profiler.workflows.bench import BenchOptions

    seen = []

    def workflow(options, progress):
        seen.append(options)
        return SimpleNamespace(run=SimpleNamespace(path=SAMPLE_RUN))

    values = _values("bench", ("--tier", "fp16", "--sizes", "64"), {"kernel": "naive", "mnk": [1, 2, 3], "cublas": False,
                                                                    "sizes": "128"})
    run = _run(workflow, BenchOptions, "bench", values, tmp_path, "r")
    assert run.is_gemmprof_run
    assert seen == [BenchOptions(kernel=["naive"], tier="fp16", sizes="128", mnk=(1, 2, 3), cublas=False, out=tmp_path,
                                 run_id="r")]
    with pytest.raises(GemmprofError, match="takes no kernl"):
        _run(workflow, BenchOptions, "bench", {"kernl": "naive"}, tmp_path, "r")
    with pytest.raises(GemmprofError, match="No such option"):
        _values("bench", ("--kernl", "naive"), {})


def test_readme_notebook_example_gives_what_it_says(monkeypatch, tmp_path):
    # tests/project/test_readme.py runs it installed, from an empty folder; here, what it makes
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile(notebook_example(), "README.md (notebook example)", "exec"), scope)
    assert isinstance(scope["fig"], Figure) and len(scope["fig"].axes)
    assert len(scope["fast"]) == 3 and scope["diagnosis"].kernels
    assert scope["run"].is_gemmprof_run and os.path.samefile(scope["run"].path, SAMPLE_RUN)


def test_a_program_after_the_words_is_profiled_as_a_program():
    from profiler.api import _values

    values = _values("profile", ("--launch-count", "2", "--", "python3", "app.py"), {})
    assert values == {"launch_count": 2, "program": ["python3", "app.py"]}
