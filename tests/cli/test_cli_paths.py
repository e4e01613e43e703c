"""Every path argument of every command (hypothesis): given a path that cannot be what it is for
(missing, a file where a folder is wanted and the reverse, a symlink loop or a symlink to nothing,
a place nothing can be written even by root: /proc, or under a file), the command ends in one line
that names the path, never a traceback, and before any work (no GPU, no report rendered).

Every (path argument, wrong kind) pair is a case of its own; hypothesis draws the names of the
things made on disk. Run in process (typer's CliRunner), each example in a fresh folder."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

import pytest
from helpers.paths import SAMPLE_RUN
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from profiler.cli import app
from profiler.errors import Exit, GemmprofError

# What a path argument is for: an output folder, an output image, an input run (a run directory
# with run.json), an input that may be a run, a folder of reports or a report, a manifest file,
# the ncu executable.
OUT_DIR, OUT_FILE, IN_RUN, IN_ANY, IN_FILE, NCU = "out-dir", "out-file", "in-run", "in-any", "in-file", "ncu"

# Each command's path arguments: the command line with {path} where the drawn path goes. {run}
# is the sample run, {out} an output folder that is fine.
PATH_ARGUMENTS = [
    ("bench --out {path} -k naive", OUT_DIR),
    ("bench --manifest {path} -k naive", IN_FILE),
    ("bench --shared-dir {path} --gpus 0 -k naive", OUT_DIR),
    ("profile --out {path} -k naive", OUT_DIR),
    ("profile --out {path} -- true", OUT_DIR),
    ("profile --manifest {path} -k naive", IN_FILE),
    ("profile --ncu {path} -k naive", NCU),
    ("profile --ncu {path} -- true", NCU),
    ("profile --shared-dir {path} --gpus 0 -k naive", OUT_DIR),
    ("build --manifest {path} -k naive", IN_FILE),
    ("analyze {path}", IN_ANY),
    ("analyze --csv-dir {path} {run}", OUT_DIR),
    ("analyze --parquet-dir {path} {run}", OUT_DIR),
    ("report {path} -o {out}", IN_ANY),
    ("report {run} -o {path}", OUT_DIR),
    ("report --manifest {path} {run} -o {out}", IN_FILE),
    ("roofline {path} -o {out}/r.png", IN_ANY),
    ("roofline {run} -o {path}", OUT_FILE),
    ("roofline {run} -o {out}/r.png --ladder {path}", OUT_FILE),
    ("compare {path} {run}", IN_RUN),
    ("compare {run} {path}", IN_RUN),
    ("dispatch {path}", IN_RUN),
    ("dispatch --manifest {path} {run}", IN_FILE),
    ("dispatch {run} --validate {path}", IN_RUN),
    ("new mine --dir {path}", OUT_DIR),
    ("accuracy {path}", IN_FILE),
    ("accuracy --probes {path} {run}/run.json", IN_RUN),
]


def make_bad(kind: str, root: Path, role: str, name: str) -> Path:
    """A path of `kind` under `root` (made on disk), which is wrong for `role`; `name` is the
    name of each thing made (a file, a folder, a symlink), each in a folder of its own kind."""
    leaf = f"{name}.png" if role == OUT_FILE else name
    for folder in ("file", "folder", "loop", "dangling"):
        (root / folder).mkdir()
    (root / "file" / name).write_text("text")
    (root / "folder" / name).mkdir()
    (root / "loop" / name).symlink_to(root / "loop" / name)
    (root / "dangling" / name).symlink_to(root / "nowhere")
    return {
        "missing": root / "nowhere" / leaf,
        "file": root / "file" / name,
        "folder": root / "folder" / name,
        "under-file": root / "file" / name / leaf,
        "loop": root / "loop" / name,
        "under-loop": root / "loop" / name / leaf,
        "dangling": root / "dangling" / name,
        "unwritable": Path("/proc") / f"gemmprof-{os.getpid()}" / leaf,
    }[kind]


# The kinds of path that are wrong for each role (a missing output is made, an existing folder
# is one to write into: those are right).
WRONG = {
    OUT_DIR: ["file", "under-file", "loop", "under-loop", "dangling", "unwritable"],
    OUT_FILE: ["folder", "under-file", "loop", "under-loop", "dangling", "unwritable"],
    IN_RUN: ["missing", "file", "folder", "under-file", "loop", "under-loop", "dangling", "unwritable"],
    IN_ANY: ["missing", "file", "folder", "under-file", "loop", "under-loop", "dangling", "unwritable"],
    IN_FILE: ["missing", "folder", "under-file", "loop", "under-loop", "dangling", "unwritable"],
    NCU: ["missing", "folder", "under-file", "loop", "dangling"],
}

# Exit statuses a wrong path may end in: a mistake; compare's untrusted run; ncu not where it was said to be.
EXITS = {IN_RUN: {Exit.USAGE, Exit.BAD_RUN}, NCU: {Exit.NO_NCU}}


# A name of one path component: printable text, any script, spaces and punctuation included (a
# control character in a name would break any one-line message: not drawn).
names = st.text(st.characters(blacklist_characters="/", blacklist_categories=("Cc", "Cs")), min_size=1, max_size=24) \
    .filter(lambda n: n not in (".", "..") and len(n.encode()) <= 100)

CASES = [(line, role, kind) for line, role in PATH_ARGUMENTS for kind in WRONG[role]]


@pytest.mark.parametrize("line,role,kind", CASES, ids=[f"{line.split()[0]} {kind}: {line}" for line, _, kind in CASES])
@settings(deadline=None, max_examples=4, suppress_health_check=[HealthCheck.too_slow])
@given(name=names)
def test_a_wrong_path_is_one_line_naming_it(line, role, kind, name):
    with tempfile.TemporaryDirectory(prefix="gemmprof-paths-") as folder, contextlib.chdir(folder):
        root = Path(folder)
        path = make_bad(kind, root, role, name)
        argv = [word.format(path=path, run=SAMPLE_RUN, out=root / "out") for word in line.split()]
        result = CliRunner().invoke(app, argv)
        exc = result.exception
        assert isinstance(exc, GemmprofError), (argv, kind, result.output, exc)
        assert "\n" not in str(exc) and str(path) in exc.message, (argv, kind, str(exc))
        assert exc.exit_code in EXITS.get(role, {Exit.USAGE}), (argv, kind, exc.exit_code, str(exc))
        assert not (root / "reports").exists() and not (root / "out").exists()  # stopped before any work


def test_every_path_argument_of_every_command_is_in_the_table():
    import importlib
    import typing

    from profiler.cli import COMMANDS, command

    cli = command()
    covered = {(line.split()[0], word) for line, _ in PATH_ARGUMENTS for word in line.split() if word.startswith("-")}
    covered |= {(line.split()[0], "ARGUMENT") for line, _ in PATH_ARGUMENTS if line.split()[1] == "{path}"}
    for name in COMMANDS:
        function = getattr(importlib.import_module(f"profiler.cli.{name}"), name)
        for parameter, hint in typing.get_type_hints(function, include_extras=True).items():
            if "Path" not in str(hint):
                continue
            (param,) = [p for p in cli.commands[name].params if p.name == parameter]
            names = ["ARGUMENT"] if param.param_type_name == "argument" else param.opts
            assert any((name, option) in covered for option in names), (name, names)
    # the program after `profile --` is a command line, not a path: check_command (tests/measure/test_program.py)
