"""Check a report file before ncu_report sees it, and unpack an `.ncu-rep.xz`: ncu_report returns
an empty or half-broken context for bad files instead of raising, so a truncated report would
otherwise surface later as a confusing TypeError. Every problem with the file becomes one
`GemmprofError` that names it."""

from __future__ import annotations

import lzma
import os
from pathlib import Path

from ..errors import GemmprofError

REPORT_MAGIC = b"NVR\0"
XZ_MAGIC = b"\xfd7zXZ\x00"


def _check_magic(data: bytes, path: str) -> None:
    if len(data) == 0:
        raise GemmprofError(f"{path}: the file is empty, not an Nsight Compute report")
    if not data.startswith(REPORT_MAGIC):
        raise GemmprofError(f"{path}: not an Nsight Compute report (no 'NVR' header)")


# Largest report an .xz may unpack to (a full-set report of hundreds of launches is a few
# hundred MB); GEMMPROF_MAX_UNPACKED_BYTES overrides it.
MAX_UNPACKED_ENV = "GEMMPROF_MAX_UNPACKED_BYTES"
MAX_UNPACKED_BYTES = 4 << 30
_CHUNK = 1 << 20


def max_unpacked_bytes() -> int:
    value = os.environ.get(MAX_UNPACKED_ENV, "")
    try:
        return int(value) if value else MAX_UNPACKED_BYTES
    except ValueError:
        raise GemmprofError(f"{MAX_UNPACKED_ENV}={value!r} is not a number of bytes") from None


def _decompress(path: Path, folder: Path, shown: str) -> Path:
    """Unpack `name.ncu-rep.xz` into `folder` (ncu_report reads from disk, lazily), streamed: the
    report header is checked in the first chunk and the unpacking stops at the size limit, so a
    small hostile .xz cannot fill the disk; a partial file is removed on any way out."""
    target = folder / (path.name.removesuffix(".xz") or "report.ncu-rep")
    limit = max_unpacked_bytes()
    written = 0
    try:
        with lzma.open(path) as src, open(target, "wb") as dst:
            while chunk := src.read(_CHUNK):
                if written == 0:
                    _check_magic(chunk, shown)
                written += len(chunk)
                if written > limit:
                    raise GemmprofError(f"{shown}: unpacks to more than {limit:,} bytes",
                                        f"raise {MAX_UNPACKED_ENV} if the report is really that large")
                dst.write(chunk)
    except (lzma.LZMAError, EOFError) as exc:
        target.unlink(missing_ok=True)
        raise GemmprofError(f"{shown}: corrupt or truncated xz file ({exc})") from None
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    return target


def prepare_file(path: Path, folder: Path, shown: str) -> Path:
    """Check a report file without ncu_report and return the path ncu_report should load:
    the file itself, or its copy unpacked into `folder` when it is xz-compressed."""
    if not path.exists():
        raise GemmprofError(f"{shown}: no such file")
    if path.is_dir():
        raise GemmprofError(f"{shown}: is a folder, not an Nsight Compute report")
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError as exc:
        raise GemmprofError(f"{shown}: cannot read ({exc.strerror})") from None
    local = path
    if head.startswith(XZ_MAGIC):
        local = _decompress(path, folder, shown)
        with open(local, "rb") as f:
            head = f.read(8)
    elif path.name.endswith(".xz") and head:
        raise GemmprofError(f"{shown}: not an xz file")
    _check_magic(head, shown)
    return local
