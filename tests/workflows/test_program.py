"""The program workflow (profiler.workflows.program) called as a library, with the stand-in ncu
(`helpers.ncu_fixtures.PROGRAM_FAKE_NCU`): the result, and the launch guard's question asked
through the Progress (a notebook or a script answers it; no one to ask is a refusal)."""

import sys

import pytest

from helpers.ncu_fixtures import install_program_ncu
from profiler.errors import GemmprofError
from profiler.workflows.program import ProgramOptions, ProgramResult, format_duration, profile_program
from profiler.workflows.progress import Quiet

pytestmark = [pytest.mark.ncu]


class Answers(Quiet):
    """A Progress that answers every question with `answer` and keeps the questions."""

    def __init__(self, answer):
        self.answer, self.asked = answer, []

    def ask(self, question, why=""):
        self.asked.append((question, why))
        return self.answer


def options(tmp_path, **given) -> ProgramOptions:
    app = tmp_path / "app.py"
    app.write_text("print('hello')\n")
    return ProgramOptions(program=[sys.executable, str(app)], out=tmp_path / "runs", run_id="r", **given)


def test_a_program_gives_its_run_and_record(tmp_path, monkeypatch):
    install_program_ncu(tmp_path, monkeypatch)
    result = profile_program(options(tmp_path, launch_count=3), Quiet())
    assert isinstance(result, ProgramResult) and result.run.path == tmp_path / "runs" / "r"
    assert result.record["program_status"] == "ok" and result.record["launches"] == 3 and result.launches == 1


def test_many_launches_ask_first(tmp_path, monkeypatch):
    install_program_ncu(tmp_path, monkeypatch)
    monkeypatch.setenv("FAKE_COUNT_LAUNCHES", "60")
    agreed = Answers(True)
    assert profile_program(options(tmp_path), agreed).record["program_status"] == "ok"
    (question, why), = agreed.asked
    assert question == "Profile every launch?" and "launches 60 kernels" in why
    with pytest.raises(GemmprofError, match="not profiled"):
        profile_program(options(tmp_path, force=True), Answers(False))
    with pytest.raises(GemmprofError, match="60 launches and no filter"):
        profile_program(options(tmp_path, force=True), Quiet())


def test_durations_read_in_the_unit_that_fits():
    assert [format_duration(s) for s in (59, 600, 10_000)] == ["59 s", "10 min", "2.8 h"]
