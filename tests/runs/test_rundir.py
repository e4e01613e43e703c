"""Run directories (profiler.runs.rundir): run.json merged on re-create, atomic writes, the newest run
chosen by default, and output folders that are files refused in one line."""

from __future__ import annotations

import json
import os

import pytest

from profiler.errors import GemmprofError
from profiler.runs.rundir import RUN_JSON, RunDir, newest_run, write_atomic


def test_create_merges_into_an_existing_run_json(tmp_path):
    run = RunDir.create(tmp_path / "r", {"run_id": "r", "gpu": "H200"})
    RunDir.create(tmp_path / "r", {"sizes": [512]})
    meta = run.meta()
    assert (meta["run_id"], meta["gpu"], meta["sizes"]) == ("r", "H200", [512]) and "schema_version" in meta
    run.update_meta(gpu="H100")
    assert json.loads((tmp_path / "r" / RUN_JSON).read_text())["gpu"] == "H100"


def test_a_folder_without_run_json_is_not_a_run(tmp_path):
    with pytest.raises(GemmprofError, match="not a gemmprof run"):
        RunDir(tmp_path).meta()


def test_write_atomic_leaves_only_the_file(tmp_path):
    write_atomic(tmp_path / "a.txt", "text")
    write_atomic(tmp_path / "b.bin", b"\x00\x01")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.bin"]
    assert (tmp_path / "a.txt").read_text() == "text" and (tmp_path / "b.bin").read_bytes() == b"\x00\x01"


def test_newest_run_is_the_last_written_and_holds_the_table_asked_for(tmp_path):
    old = RunDir.create(tmp_path / "old", {"run_id": "old"})
    new = RunDir.create(tmp_path / "new", {"run_id": "new"})
    os.utime(old.path / RUN_JSON, (1, 1))
    assert newest_run(tmp_path) == new.path
    with pytest.raises(GemmprofError, match="with a bench table"):
        newest_run(tmp_path, need_table="bench")
    with pytest.raises(GemmprofError, match="no run directory"):
        newest_run(tmp_path / "missing")
