"""The device recipes (the Makefile's gpu-* targets) run only on the GPU machine, where a broken
line costs a device call: every gemmprof command they run names a command and options the CLI
has, every script and test path they name exists, and none embeds Python (the summaries come from
gemmprof's own outputs: suite.csv, summary.md, analyze's table)."""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess

import pytest
from typer.main import get_command

from helpers.paths import REPO

from profiler.cli import app

MAKEFILE = REPO / "Makefile"
GP = "python3 -m profiler"


def recipes() -> list[str]:
    steps = re.search(r"^GPU_STEPS := (.*?)\n\.PHONY", MAKEFILE.read_text(), re.S | re.M)
    assert steps, "the Makefile names its device recipes in GPU_STEPS"
    return steps.group(1).replace("\\", " ").split()


@pytest.fixture(scope="module")
def dry_runs(tmp_path_factory) -> dict[str, str]:
    """Each recipe as `make -n` prints it, every knob at its default, and with the knobs that switch
    its other commands on."""
    out = tmp_path_factory.mktemp("out")
    runs = {}
    for target, knobs in [(t, []) for t in recipes()] + [
            ("gpu-suite", ["TIER=fp16"]), ("gpu-fast", ["FAST_TIER=fp32-tc", "FAST_MNK=4095 4095 4095"]),
            ("gpu-probes", ["PROBES=probe-tail"]), ("gpu-corpus", ["CORPUS_PLAIN=0"])]:
        proc = subprocess.run(["make", "-n", "--no-print-directory", target, f"OUT={out}", *knobs], cwd=REPO,
                              capture_output=True, text=True, check=False)
        assert proc.returncode == 0, (target, proc.stderr)
        runs[" ".join([target, *knobs])] = proc.stdout
    return runs


def gemmprof_calls(text: str) -> list[list[str]]:
    """The argument lists of each `python3 -m profiler ...` in a recipe's shell text, up to the end
    of its command (a shell operator or a line end)."""
    calls = []
    for part in re.split(GP + r"\s", text.replace("\\\n", " "))[1:]:
        command = re.split(r"\|\||&&|[;|)\n<>]", part)[0]
        calls.append(shlex.split(command))
    return calls


def test_the_recipes_embed_no_python(dry_runs):
    for target, text in dry_runs.items():
        assert not re.search(r"python3? (-c\b|-\s|- <<|-$)", text, re.M), target
        assert "<<" not in text, target  # no heredoc of any language
    assert not list((REPO / "scripts").glob("*.sh")), "device work is a Makefile recipe, not a script"


def test_every_gemmprof_command_and_option_of_a_recipe_exists(dry_runs):
    cli = get_command(app)
    checked = 0
    for target, text in dry_runs.items():
        for argv in gemmprof_calls(text):
            name, *args = argv
            args = args[:args.index("--")] if "--" in args else args  # after --: the program's own arguments
            assert name in cli.commands, (target, name)
            options = {o for p in cli.commands[name].params for o in (*p.opts, *p.secondary_opts)}
            unknown = [a for a in args if a.startswith("-") and a != "--" and not re.fullmatch(r"-?\d+(\.\d+)?", a)
                       and a not in options]
            assert not unknown, (target, name, unknown)
            checked += 1
    assert checked >= 30


def test_every_file_a_recipe_runs_exists(dry_runs):
    for target, text in dry_runs.items():
        for path in re.findall(r"(?:python3 |nvcc [^\n]*?)((?:benchmarks|scripts|tests)/[\w/.-]+)", text):
            assert (REPO / path).exists(), (target, path)
        for path in re.findall(r"--manifest (\S+)", text):
            assert (REPO / path).is_file(), (target, path)
        for module in re.findall(r"python3 -m (profiler\.[\w.]+)", text):
            assert importlib.util.find_spec(module), (target, module)


def test_the_probes_recipe_reads_every_probe_and_its_shape(dry_runs):
    """gpu-probes takes each probe's name and probe_shape from the manifest with awk: the same
    pairs the manifest parser reads."""
    from profiler.catalogue.kernel_paths import PROBES_MANIFEST
    from profiler.catalogue.manifest import load_manifest

    awk = re.search(r"< <\((awk .*?)\)", dry_runs["gpu-probes"]).group(1)
    out = subprocess.run(["bash", "-c", awk], cwd=REPO, capture_output=True, text=True, check=True).stdout
    pairs = [(name, tuple(map(int, shape))) for name, *shape in (line.split() for line in out.splitlines())]
    assert pairs == [(s.name, tuple(s.probe_shape)) for s in load_manifest(PROBES_MANIFEST)]
