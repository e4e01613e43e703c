"""What is at a path a command was given, checked before any work: a file where a folder is
wanted (or anywhere on its way) and the reverse, a symlink that leads nowhere (a loop, a missing
target), a missing input, or an output place nothing can be created in (read-only, /proc) is one
line naming the path, before a GPU is touched or a table read."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from .errors import GemmprofError


def path_kind(path: Path) -> str:
    """What is at `path`: "folder", "file", "missing" (nothing, or something wrong on the way
    there: `check_out_dir` walks up to it), "dangling" (a symlink to nothing: a loop or a missing
    target) or "unreachable" (stat fails otherwise, e.g. a folder that cannot be searched).
    Never raises."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):  # here or on the way (a caller walks up)
            return "dangling" if os.path.islink(path) else "missing"
        return "unreachable"
    except ValueError:  # an embedded NUL byte: no such path can exist
        return "missing"
    return "folder" if stat.S_ISDIR(mode) else "file"


# What each kind of path is called in an error line.
KIND_WORDS = {"file": "a file", "folder": "a folder", "dangling": "a symlink that leads nowhere (a loop or a missing target)",
              "unreachable": "a path that cannot be reached", "missing": "missing"}


def check_out_dir(path: Path, option: str = "--out") -> Path:
    """`path` as an output folder: an existing folder, or a missing one that can be created (the
    nearest existing folder above it takes a new entry). Anything else is one line naming the
    path; nothing is created here."""
    path = Path(path)
    _check_place(path, path, option, "give a folder (it is created if missing)")
    return path


def check_out_file(path: Path, option: str) -> Path:
    """`path` as an output file: not a folder nor a symlink to nothing, in a folder that is (or
    can be) made (`check_out_dir`)."""
    path = Path(path)
    kind = path_kind(path)
    if kind in ("folder", "dangling", "unreachable"):
        raise GemmprofError(f"{option} {path} is {KIND_WORDS[kind]}", "give the name of a file to write")
    _check_place(path.parent, path, option, "give the name of a file to write")
    return path


def _check_place(folder: Path, named: Path, option: str, hint: str) -> None:
    """`folder` (where `named` is written: itself or its folder) is a folder, or can be made in
    the nearest existing folder above it; errors name `named`. Something can be created there,
    as root too (/proc and read-only mounts refuse even root, which access() does not tell): a
    probe folder is made there and removed at once."""
    for p in (folder, *folder.parents):
        kind = path_kind(p)
        if kind == "missing":
            continue
        if kind != "folder":
            where = f"is {KIND_WORDS[kind]}" if p == named else f"is under {p}, which is {KIND_WORDS[kind]}"
            raise GemmprofError(f"{option} {named} {where}", hint)
        try:
            os.rmdir(tempfile.mkdtemp(prefix=".gemmprof-probe-", dir=p))
        except OSError as exc:
            raise GemmprofError(f"{option} {named} cannot be written (in {p}): {exc.strerror or exc}",
                                "choose a place you can write to") from None
        return


def check_in_path(path: Path, want: str = "either", option: str = "") -> Path:
    """`path` as an input: something is there, and it is a `want` ("file", "folder", or "either").
    Otherwise one line naming the path (and the option that gave it)."""
    path = Path(path)
    kind = path_kind(path)
    name = f"{option} {path}" if option else str(path)
    if kind == "missing":
        raise GemmprofError(f"{name}: no such file or directory")
    if kind in ("dangling", "unreachable") or want not in ("either", kind):
        raise GemmprofError(f"{name} is {KIND_WORDS[kind]}" + ("" if want == "either" else f", not {KIND_WORDS[want]}"))
    return path
