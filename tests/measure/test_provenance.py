"""Provenance (profiler.measure.provenance): which commit a run was measured at."""

from helpers.paths import REPO


def test_git_commit_named_in_the_environment_wins(tmp_path, monkeypatch):
    from profiler.measure.provenance import git_commit

    monkeypatch.delenv("GEMMPROF_GIT_COMMIT", raising=False)
    assert git_commit(tmp_path) == (None, False)
    monkeypatch.setenv("GEMMPROF_GIT_COMMIT", "0123abc")
    assert git_commit(tmp_path) == ("0123abc", False)
    repo = REPO  # a stale .git (the GPU machine's) is overridden too
    assert git_commit(repo) == ("0123abc", False)
