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


def _git(repo, *args, env=None):
    import subprocess

    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=env).stdout.strip()


def test_the_tree_id_is_the_one_git_would_commit_and_nothing_is_written(tmp_path):
    """Clean: HEAD's own tree. Then modified, executable, nested, untracked, ignored, deleted and
    symlinked files: the id `git add -A; git write-tree` gives (through a scratch index), while
    computing it wrote no object into the repository."""
    import os

    from profiler.measure.provenance import git_tree

    repo = tmp_path / "r"
    (repo / "a" / "b").mkdir(parents=True)
    _git(repo, "init", "-q")
    (repo / "top.txt").write_text("top\n")
    (repo / "a" / "one.cu").write_text("one\n")
    (repo / "a" / "b" / "deep.py").write_text("deep\n")
    (repo / "a-b").write_text("sorts between a and a/\n")
    (repo / "gone.txt").write_text("deleted later\n")
    (repo / ".gitignore").write_text("*.log\n")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    assert git_tree(repo) == _git(repo, "rev-parse", "HEAD^{tree}")

    (repo / "top.txt").write_text("changed\n")
    (repo / "a" / "b" / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(repo / "a" / "b" / "run.sh", 0o755)
    (repo / "a" / "new.cu").write_text("untracked\n")
    (repo / "noise.log").write_text("ignored\n")
    (repo / "gone.txt").unlink()
    os.symlink("top.txt", repo / "link")
    objects = sorted(p.name for p in (repo / ".git" / "objects").rglob("*"))
    got = git_tree(repo)
    assert sorted(p.name for p in (repo / ".git" / "objects").rglob("*")) == objects
    scratch = {**os.environ, "GIT_INDEX_FILE": str(tmp_path / "index")}
    _git(repo, "read-tree", "HEAD", env=scratch)
    _git(repo, "add", "-A", env=scratch)
    assert got == _git(repo, "write-tree", env=scratch) != _git(repo, "rev-parse", "HEAD^{tree}")


def test_no_repository_no_tree(tmp_path, monkeypatch):
    from profiler.measure.provenance import git_fields, git_tree

    monkeypatch.delenv("GEMMPROF_GIT_COMMIT", raising=False)
    assert git_tree(None) is None and git_tree(tmp_path) is None
    assert git_fields(None) == {"git_commit": None, "git_dirty": False, "git_tree": None}
