"""The captures archive of tests/data (helpers/captures.py): what goes in comes out byte for byte,
an unpacked archive is not unpacked again, and a file missing since is."""

from __future__ import annotations

from helpers import captures


def test_packed_files_come_back_and_are_unpacked_once(tmp_path):
    source, target = tmp_path / "source", tmp_path / "target"
    files = {"run/ncu/a.ncu-rep": b"NVR\0" + bytes(range(256)) * 64, "run/run.json": b'{"kind": "profile"}\n'}
    for name, data in files.items():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_bytes(data)
    archive = tmp_path / "captures.tar.xz"
    captures.pack(sorted(source / name for name in files), archive, source, dictionary=1 << 20)

    target.mkdir()
    assert captures.unpack(archive, target) is True
    assert {name: (target / name).read_bytes() for name in files} == files
    assert captures.unpack(archive, target) is False  # the stamp: this archive, every file there

    (target / "run" / "run.json").unlink()
    assert captures.unpack(archive, target) is True and (target / "run" / "run.json").read_bytes() == files["run/run.json"]


def test_the_archive_is_reproducible(tmp_path):
    """Sorted members, no owners, times or modes of the packer's machine: the same files pack to
    the same bytes, so a commit that repacks unchanged captures changes nothing."""
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x").write_bytes(b"x" * 1000)
    one, two = tmp_path / "one.tar.xz", tmp_path / "two.tar.xz"
    captures.pack([tmp_path / "d" / "x"], one, tmp_path, dictionary=1 << 20)
    (tmp_path / "d" / "x").touch()
    captures.pack([tmp_path / "d" / "x"], two, tmp_path, dictionary=1 << 20)
    assert one.read_bytes() == two.read_bytes()
