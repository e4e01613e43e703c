"""The captured runs of tests/data, committed as one solid xz archive and unpacked in place.

Why one archive: ncu keeps the whole CUDA module of a profiled kernel in its report, and several
fixtures carry the same modules (cuBLAS's SGEMM module alone is 15.5 MB unpacked). Each report
xz-packed on its own stored those modules once a report (18.6 MB); one xz stream over all of them
with a dictionary larger than their sum stores each once (11.7 MB). The reports go in unpacked
(`.ncu-rep`), so after unpacking each run directory is as its recipe wrote it, save that its
reports are not xz-packed (gemmprof reads both forms).

`unpack()` runs before the tests are collected (tests/conftest.py) and by `make fixtures`; it
skips the work when the archive has not changed since the last unpack (a stamp beside it records
its digest). `pack()` (`make pack-fixtures`) rewrites the archive from every capture file under
tests/data that git does not track, after a new capture has been unpacked there
(tests/data/README.md says how each one was captured).

    python tests/helpers/captures.py [unpack | pack]
"""

from __future__ import annotations

import hashlib
import io
import lzma
import subprocess
import sys
import tarfile
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data"
ARCHIVE = DATA / "captures.tar.xz"
STAMP = DATA / ".captures-unpacked"  # git-ignored: the digest of the archive last unpacked, its files
# Larger than everything packed (287 MB unpacked), so that a module repeated anywhere in the
# stream is found; unpacking needs this much memory.
DICTIONARY = 320 << 20
CACHES = {"extract", "report"}  # what gemmprof writes beside a run: never captured data


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def unpack(archive: Path = ARCHIVE, into: Path = DATA) -> bool:
    """Unpack the archive into `into` unless the stamp says this archive already was and every
    file it lists is there; returns whether it unpacked. The stamp is written last, so an
    interrupted unpack is redone."""
    stamp = into / STAMP.name
    wanted = digest(archive)
    lines = stamp.read_text().splitlines() if stamp.is_file() else []
    if lines[:1] == [wanted] and all((into / name).is_file() for name in lines[1:]):
        return False
    with tarfile.open(archive, "r:xz") as tar:
        # the "data" filter (no links out, no absolute paths) where this Python has it (3.11.4+)
        tar.extractall(into, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
        names = [member.name for member in tar.getmembers() if member.isfile()]
    stamp.write_text("\n".join([wanted, *names]) + "\n")
    return True


def captured_files(root: Path = DATA) -> list[Path]:
    """Every file under `root` that git does not track and gemmprof did not write as a cache:
    what the archive holds."""
    tracked = set(subprocess.run(["git", "ls-files", "-z", "."], cwd=root, capture_output=True, check=True,
                                 text=True).stdout.split("\0"))
    return sorted(p for p in root.rglob("*") if p.is_file() and p != root / STAMP.name
                  and str(p.relative_to(root)) not in tracked
                  and not CACHES.intersection(p.relative_to(root).parts))


def pack(files: list[Path], archive: Path = ARCHIVE, root: Path = DATA, dictionary: int = DICTIONARY) -> None:
    """Write `files` (under `root`) as one reproducible tar (sorted, no owners or times) in one
    xz stream; the new archive replaces the old only once it is complete."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in files:
            info = tar.gettarinfo(path, arcname=str(path.relative_to(root)))
            info.uid = info.gid = info.mtime = 0
            info.uname = info.gname = ""
            info.mode = 0o644
            with path.open("rb") as data:
                tar.addfile(info, data)
    partial = archive.with_name(archive.name + ".partial")
    filters = [{"id": lzma.FILTER_LZMA2, "preset": 9, "dict_size": dictionary}]
    partial.write_bytes(lzma.compress(buffer.getvalue(), format=lzma.FORMAT_XZ, filters=filters))
    partial.replace(archive)
    names = [str(path.relative_to(root)) for path in files]
    (root / STAMP.name).write_text("\n".join([digest(archive), *names]) + "\n")


def main(argv: list[str]) -> int:
    verb = argv[0] if argv else "unpack"
    if verb == "unpack":
        print(f"{ARCHIVE.name}: " + ("unpacked into" if unpack() else "already unpacked in") + f" {DATA}")
    elif verb == "pack":
        files = captured_files()
        pack(files)
        print(f"{ARCHIVE.name}: {len(files)} files, {ARCHIVE.stat().st_size:,} bytes")
    else:
        print(f"usage: {Path(__file__).name} [unpack | pack]", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
