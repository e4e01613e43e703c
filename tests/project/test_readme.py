"""The README's fenced blocks, run as printed against the installed package from empty folders
outside the checkout (`helpers.installed`: the wheel, or in CI the wheel and the sdist as pip
installs them), so that what a new user copies works, or ends in the one line that names what
the machine lacks.

`BLOCKS` says, for each block (by the start of its first line), how it is checked and what it
must give; a block the table does not know, or an entry no block matches, fails the test, so a
new block gets a decision here rather than no check:

- shell: the block, as a bash script (`set -e`: the first failing line ends it) in an empty
  folder; "ok" must exit 0, "missing" must end in the one-line error of a missing GPU, CUDA or
  ncu with its exit status. `pip install` lines are the install these tests run on (its extras
  must exist); $EDITOR is `true`.
- python: the block run by the installed Python in an empty folder; it must exit 0.
- make: each `make TARGET` line is a target of the checkout's Makefile (`make -n`); `.ci/run`
  runs `make test` and `make demo` for real.
- manifest: parsed by the installed package as an extra manifest after the ladder.
- fragment: code around names the reader supplies (`my_gemm`): it must compile.
- servers: commands that start servers on other hosts; each gemmprof option in it must exist.
- layout: every folder it names exists in the checkout."""

from __future__ import annotations

import re
import shlex
import subprocess

import pytest
from helpers.installed import NEEDS, first_missing
from helpers.paths import REPO

from profiler.errors import Exit

README = REPO / "README.md"

# start of a block's first line -> (how it is checked, what it must give)
BLOCKS = {
    "make demo": ("make", None),
    'gemmprof report "$(python3 -c': ("shell", "ok"),
    "pip install .  ": ("shell", "ok"),
    "gemmprof new mykern --dir mine": ("shell", "missing"),
    "make test": ("make", None),
    "make gpu-check": ("make", None),
    "import nvtx": ("fragment", None),
    "def gemm(n": ("fragment", None),
    "import gemmprof": ("python", "ok"),
    "[[kernel]]": ("manifest", None),
    "gemmprof profile --nvtx-include app/": ("shell", "missing"),
    "pip install '.[scale]'": ("shell", "missing"),
    "dask scheduler": ("servers", None),
    "kernels/ ": ("layout", None),
}

# The exit statuses of a missing prerequisite, and a word of each one's line.
MISSING = {code: word for _, code, word in NEEDS.values()}


def blocks() -> list[tuple[str, str]]:
    """(language, text) of each fenced block of the README, in order."""
    return re.findall(r"^```(\w*)\n(.*?)^```", README.read_text(), re.S | re.M)


def entry(text: str) -> str:
    first = text.splitlines()[0]
    found = [key for key in BLOCKS if first.startswith(key)]
    assert len(found) == 1, f"README block {first!r}: add it to BLOCKS (how to check it, what it must give)"
    return found[0]


def test_the_table_knows_every_block_and_every_entry_is_a_block():
    fences = [line for line in README.read_text().splitlines() if line.startswith("```")]
    assert all(re.fullmatch(r"```\w*", line) for line in fences) and len(fences) % 2 == 0, fences  # no text after a fence
    keys = [entry(text) for _, text in blocks()]
    assert sorted(keys) == sorted(BLOCKS), set(BLOCKS) - set(keys)


@pytest.mark.parametrize("key", list(BLOCKS))
def test_readme_block(key, installed):
    (language, text), = [(lang, t) for lang, t in blocks() if t.startswith(key)]
    how, expect = BLOCKS[key]
    CHECKS[how](installed, text, expect)


def check_shell(installed, text: str, expect: str) -> None:
    extras = set(installed.value("from importlib.metadata import metadata; print(*metadata('gemmprof').get_all('Provides-Extra'))").split())
    lines = []
    for line in text.splitlines():
        if line.startswith("pip install"):  # the install under test stands for it: its extras must exist
            assert set(re.findall(r"\.\[(\w+)\]", line)) <= extras, line
        else:
            lines.append(line)
    needed = ("ncu", "cupy", "gpu")
    if expect == "missing" and first_missing(installed, needed) is None:
        pytest.skip("this machine has a GPU, CuPy and ncu: the block would run on the GPU")
    cwd = installed.folder()
    r = installed.run(["bash", "-e", "-c", "\n".join(lines)], cwd, EDITOR="true")
    assert "Traceback" not in r.stdout + r.stderr, r.stderr[-3000:]
    if expect == "ok":
        assert r.returncode == 0, r.stderr[-3000:]
        return
    last = r.stderr.strip().splitlines()[-1]
    assert r.returncode in MISSING and last.startswith("gemmprof: error: ") and MISSING[r.returncode] in last, (r.returncode, r.stderr)


def check_python(installed, text: str, expect: str) -> None:
    r = installed.python(text)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-3000:]


def check_make(installed, text: str, expect: None) -> None:
    for line in text.splitlines():
        target = shlex.split(line, comments=True)[1]
        r = subprocess.run(["make", "-n", "-s", target], cwd=REPO, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, (target, r.stderr)


def check_manifest(installed, text: str, expect: None) -> None:
    code = ("import sys; from profiler.catalogue.manifest import load_manifest; from profiler.catalogue.manifest_parse import parse_manifest; "
            "ladder = load_manifest(); parse_manifest(sys.stdin.read(), 'README', [s.name for s in ladder], len(ladder) + 1)")
    r = subprocess.run([str(installed.venv / "bin" / "python"), "-c", code], input=text, capture_output=True, text=True,
                       cwd=installed.folder(), env=installed.env, timeout=120)
    assert r.returncode == 0, r.stderr


def check_fragment(installed, text: str, expect: None) -> None:
    compile(text, "README.md", "exec")


def check_servers(installed, text: str, expect: None) -> None:
    for line in text.splitlines():
        words = shlex.split(line, comments=True)
        if words[0] != "gemmprof":
            continue
        help_text = installed.gemmprof(words[1], "-h", cwd=installed.folder()).stdout
        for option in (w.strip("[]") for w in words if w.startswith(("--", "[--"))):
            assert option in help_text, (line, option)


def check_layout(installed, text: str, expect: None) -> None:
    for line in text.splitlines():
        folder = line.split()[0]
        assert (REPO / folder).is_dir(), folder


CHECKS = {"shell": check_shell, "python": check_python, "make": check_make, "manifest": check_manifest,
          "fragment": check_fragment, "servers": check_servers, "layout": check_layout}


def test_the_exit_statuses_the_readme_gives_are_the_ones_declared():
    text = README.read_text()
    said = text.split("Exit status (", 1)[1].split("\n\n", 1)[0]
    for code in Exit:
        if code:
            assert re.search(rf"\b{int(code)} ", said), code
