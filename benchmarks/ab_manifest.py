"""Rungs as they were at another commit, compiled beside the tree's own, so that a change to a
kernel or to a header it includes is timed against the code before it in one run (speeds are
compared only within one run).

    python benchmarks/ab_manifest.py REF KERNEL... [--out kernels/ab] [--suffix _old]
    gemmprof bench --manifest kernels/ab/ab.toml -k KERNEL -k KERNEL_old --sizes ...

For each KERNEL (a ladder rung at REF), the manifest names KERNEL_old: its source at REF with the
entry renamed, beside every header of kernels/ at REF. A quoted #include finds the header beside
the source first, so the old rung compiles against the old headers, whatever has changed since.
Its predecessor is the rung itself, so a report shows the change as a ladder delta. The folder is
ignored by git (kernels/ab/); on the GPU machine it travels as a carried path.
"""

import argparse
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import tomlkit

REPO = Path(__file__).resolve().parents[1]


def at_ref(ref: str, path: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), "show", f"{ref}:{path}"], capture_output=True, text=True,
                          check=True).stdout


def headers_at(ref: str) -> list[str]:
    listing = subprocess.run(["git", "-C", str(REPO), "ls-tree", "--name-only", ref, "kernels/"], capture_output=True,
                             text=True, check=True).stdout.split()
    return [p for p in listing if p.endswith(".cuh")]


def write_ab(ref: str, kernels: list[str], out: Path, suffix: str = "_old") -> Path:
    """Write out/ab.toml and out/old/ (sources and headers at `ref`); returns the manifest's path."""
    ladder = {k["name"]: k for k in tomllib.loads(at_ref(ref, "kernels/ladder.toml"))["kernel"]}
    missing = [k for k in kernels if k not in ladder]
    if missing:
        sys.exit(f"not a rung at {ref}: {', '.join(missing)}")
    old = out / "old"
    old.mkdir(parents=True, exist_ok=True)
    for header in headers_at(ref):
        (old / Path(header).name).write_text(at_ref(ref, header))
    manifest = tomlkit.document()
    manifest.add(tomlkit.comment(f"Rungs at {ref} beside the tree's own: benchmarks/ab_manifest.py"))
    entries = tomlkit.aot()
    for name in kernels:
        entry = dict(ladder[name])
        source = at_ref(ref, f"kernels/{entry['file']}")
        renamed, count = re.subn(rf"\b{re.escape(entry['entry'])}\s*\(", f"{entry['entry']}{suffix}(", source)
        if count != 1:
            sys.exit(f"{name}: its entry {entry['entry']} is defined {count} times in {entry['file']} at {ref}")
        file = f"old/{Path(entry['file']).stem}{suffix}.cu"
        (out / file).write_text(renamed)
        entry.update(name=f"{name}{suffix}", file=file, entry=f"{entry['entry']}{suffix}", predecessor=name)
        entries.append(entry)
    manifest["kernel"] = entries
    path = out / "ab.toml"
    path.write_text(tomlkit.dumps(manifest))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ref", help="a commit, branch or tag")
    parser.add_argument("kernels", nargs="+", help="ladder rungs at REF")
    parser.add_argument("--out", type=Path, default=REPO / "kernels" / "ab")
    parser.add_argument("--suffix", default="_old")
    args = parser.parse_args()
    path = write_ab(args.ref, args.kernels, args.out, args.suffix)
    names = " ".join(f"-k {k} -k {k}{args.suffix}" for k in args.kernels)
    print(f"wrote {path}; e.g. gemmprof bench --manifest {path} {names} --sizes 4096")


if __name__ == "__main__":
    main()
