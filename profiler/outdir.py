"""Writing output: what fails while writing is one line naming the target (`writing`; the paths
were checked before any work by `profiler.paths`), and output folders are written whole.

An output folder written whole: a report (or a set of exported tables) is written into a
temporary sibling and then takes the folder's place, so an interrupted command leaves the old
output or the new one, never a mix of both, and pages of kernels no longer in the run go away.

A folder is replaced only when gemmprof wrote it: it holds `MARKER`, or (written by an earlier
version) the files that name the output (`signature`, e.g. index.html and summary.md) and
nothing but files gemmprof writes. `-o ~/Documents` must never delete a thing. A
folder holding anything else (a run directory, for tables exported into it) gets its files
written beside the others, each to a temporary name and renamed in.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from .errors import GemmprofError

MARKER = ".gemmprof-output"
# What gemmprof writes into an output folder: a folder of only these (and no subfolders) was
# written by it, by an earlier version that left no marker.
OUTPUT_SUFFIXES = (".html", ".md", ".png", ".svg", ".pdf", ".csv", ".parquet", ".json")


def ours(folder: Path, signature: tuple[str, ...] = ()) -> bool:
    """`folder` is absent, empty, marked, or an earlier output: the `signature` files and only
    files gemmprof writes."""
    if not folder.exists():
        return True
    if not folder.is_dir():
        return False
    entries = list(folder.iterdir())
    names = {e.name for e in entries}
    if not entries or MARKER in names:
        return True
    only_outputs = all(e.is_file() and not e.is_symlink() and e.name.endswith(OUTPUT_SUFFIXES) for e in entries)
    return bool(signature) and set(signature) <= names and only_outputs


@contextmanager
def writing(target: Path):
    """What fails while writing `target` (after the checks: the disk fills, a folder is taken
    away, a place that refuses new entries) is one line naming `target`, not a traceback."""
    try:
        yield
    except OSError as exc:
        raise GemmprofError(f"cannot write {target}: {exc.strerror or exc}",
                            "check the place and the free space, or choose another") from None


def _temporary(near: Path, what: str) -> Path:
    tmp = near.parent / f".{near.name}.{what}.{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    return tmp


def replace_dir(target: Path, fill: Callable[[Path], None], signature: tuple[str, ...] = ()) -> None:
    """`fill(folder)` writes the whole output into a temporary sibling of `target`, which then
    replaces `target` (its earlier contents removed). Refuses a `target` gemmprof did not write."""
    given = target
    target = Path(target).resolve()  # '.' has no name to rename
    if target.exists() and not target.is_dir():
        raise GemmprofError(f"{given} is a file, not a folder", "pass a folder for the output")
    if not ours(target, signature):
        raise GemmprofError(f"{given} holds files gemmprof did not write; it will not be replaced",
                            "choose a new or empty folder for the output")
    tmp = None
    try:
        with writing(given):
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = _temporary(target, "new")
            fill(tmp)
            (tmp / MARKER).write_text("written by gemmprof: the next write replaces this whole folder\n")
            if target.exists():
                old = target.parent / f".{target.name}.old.{os.getpid()}"
                shutil.rmtree(old, ignore_errors=True)
                target.rename(old)
                tmp.rename(target)
                shutil.rmtree(old, ignore_errors=True)
            else:
                tmp.rename(target)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def write_files(folder: Path, fill: Callable[[Path], None], signature: tuple[str, ...] = ()) -> None:
    """Output into `folder`: replaced whole when it is ours (see `replace_dir`); otherwise (a run
    directory) `fill` writes into a temporary folder inside it and each file is then renamed into
    place, so no file is ever seen half written and the set is swapped in within milliseconds."""
    folder = Path(folder)
    if ours(folder, signature):
        replace_dir(folder, fill, signature)
        return
    if not folder.is_dir():
        raise GemmprofError(f"{folder} is a file, not a folder", "pass a folder for the output")
    tmp = None
    try:
        with writing(folder):
            tmp = _temporary(folder / "x", "gemmprof-tmp")  # .x.gemmprof-tmp.PID inside the folder
            fill(tmp)
            for path in sorted(tmp.rglob("*")):
                if path.is_file():
                    destination = folder / path.relative_to(tmp)
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    path.replace(destination)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
