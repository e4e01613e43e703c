"""What is at a path a command was given (profiler.paths): kinds of path, and one line naming the
path for an output place that cannot be one or an input that is not there or not what is wanted.
The commands' own path arguments are fuzzed in tests/cli/test_paths_fuzz.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from profiler.errors import GemmprofError
from profiler.paths import check_in_path, check_out_dir, check_out_file, path_kind


def test_an_output_folder_on_or_under_a_file_is_refused(tmp_path):
    (tmp_path / "file").write_text("x")
    assert check_out_dir(tmp_path / "new") == tmp_path / "new" and not (tmp_path / "new").exists()  # nothing made
    with pytest.raises(GemmprofError, match="is a file"):
        check_out_dir(tmp_path / "file")
    with pytest.raises(GemmprofError, match="is under .*file, which is a file"):
        check_out_dir(tmp_path / "file" / "sub", option="-o")


def test_kinds_of_path(tmp_path):
    (tmp_path / "file").write_text("x")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "dangling").symlink_to(tmp_path / "nothing")
    kinds = {name: path_kind(tmp_path / name) for name in ("file", "loop", "dangling", "nothing")}
    assert kinds == {"file": "file", "loop": "dangling", "dangling": "dangling", "nothing": "missing"}
    assert path_kind(tmp_path) == "folder" and path_kind(tmp_path / "file" / "x") == "missing"


def test_a_symlink_loop_or_a_place_nothing_can_be_made_in_is_one_line_naming_the_path(tmp_path):
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    for bad, words in [(tmp_path / "loop", "symlink that leads nowhere"), (tmp_path / "loop" / "x", "which is a symlink"),
                       (Path("/proc/gemmprof-out"), "cannot be written")]:
        with pytest.raises(GemmprofError, match=words) as err:
            check_out_dir(bad, "-o")
        assert str(bad) in err.value.message and "\n" not in str(err.value)


def test_an_output_file_is_not_a_folder(tmp_path):
    assert check_out_file(tmp_path / "new" / "r.png", "-o") == tmp_path / "new" / "r.png"
    with pytest.raises(GemmprofError, match="is a folder"):
        check_out_file(tmp_path, "-o")
    with pytest.raises(GemmprofError, match="cannot be written"):
        check_out_file(Path("/proc/r.png"), "--ladder")


def test_an_input_is_there_and_of_the_kind_wanted(tmp_path):
    (tmp_path / "file").write_text("x")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    assert check_in_path(tmp_path / "file", "file") == tmp_path / "file" and check_in_path(tmp_path, "folder") == tmp_path
    for path, want, words in [(tmp_path / "nothing", "either", "no such file or directory"),
                              (tmp_path / "loop", "either", "symlink that leads nowhere"),
                              (tmp_path / "file", "folder", "is a file, not a folder"),
                              (tmp_path, "file", "is a folder, not a file")]:
        with pytest.raises(GemmprofError, match=words) as err:
            check_in_path(path, want, "--manifest")
        assert f"--manifest {path}" in err.value.message
