"""`gemmprof new`: writes the source and its manifest, and never overwrites either."""

import subprocess
import sys

from typer.testing import CliRunner

from profiler.cli import app
from profiler.subprocess_env import child_env


def gemmprof(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "profiler", *map(str, args)], capture_output=True, text=True,
                          env=child_env(), cwd=cwd, timeout=300)


def test_cli_writes_both_files_and_never_overwrites(tmp_path):
    runner = CliRunner()
    first = runner.invoke(app, ["new", "mykern", "--dir", str(tmp_path / "d")])
    assert first.exit_code == 0, first.output
    assert {p.name for p in (tmp_path / "d").iterdir()} == {"mykern.cu", "mykern.toml"}
    (tmp_path / "d" / "mykern.cu").write_text("// mine now\n")
    again = gemmprof("new", "mykern", "--dir", tmp_path / "d")
    assert again.returncode == 2 and "already exist" in again.stderr and "Traceback" not in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1
    assert (tmp_path / "d" / "mykern.cu").read_text() == "// mine now\n"
