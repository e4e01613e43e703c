"""User mistakes and missing prerequisites end in one line on stderr and a non-zero exit, never a
traceback. Runs the real entry point in a subprocess, as a user would."""

import subprocess
import sys

import pytest

from profiler.errors import Exit, GemmprofError
from profiler.subprocess_env import child_env


def gemmprof(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "profiler", *args], capture_output=True, text=True, env=child_env(), timeout=120)


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["bench", "-k", "vectorised"], "unknown kernel 'vectorised'"),
        (["bench", "--sizes", "1024,abc"], "bad size 'abc'"),
        (["bench", "--sizes", "0"], "out of range"),
        (["profile", "-k", "nope"], "unknown kernel 'nope'"),
        (["bench", "-k", "naive..nope"], "bad kernel range 'naive..nope': no rung 'nope'"),
        (["bench", "-k", "smem..naive"], "empty kernel range 'smem..naive'"),
        (["profile", "-k", "smem..naive"], "empty kernel range 'smem..naive'"),
        (["bench", "--tier", "fp64"], "unknown precision tier 'fp64'"),
        (["profile", "--tier", "fp8"], "unknown precision tier 'fp8'"),
        (["bench", "-k", "naive..smem", "--tier", "fp16"], "no fp16 kernel among the selection"),
        (["profile", "--tier", "fp16", "--", "true"], "--tier applies to the ladder only"),
        (["profile", "--clock-control", "fast"], "--clock-control must be one of"),
        (["analyze", "/nonexistent/x.ncu-rep"], "/nonexistent/x.ncu-rep"),
    ],
)
def test_mistakes_are_one_line(args, fragment):
    r = gemmprof(*args)
    assert r.returncode != 0
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout
    assert fragment in r.stderr
    assert len([l for l in r.stderr.splitlines() if l.strip()]) == 1, r.stderr


def test_profile_without_ncu_says_how_to_point_to_it(tmp_path):
    env = child_env()
    env["PATH"] = str(tmp_path)  # nothing on PATH
    env["GEMMPROF_NCU"] = str(tmp_path / "ncu")  # and an explicit path that does not exist
    r = subprocess.run([sys.executable, "-m", "profiler", "profile", "-k", "naive"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == Exit.NO_NCU and "Traceback" not in r.stderr
    assert "Nsight Compute not found" in r.stderr and "--ncu" in r.stderr and f"{tmp_path / 'ncu'} does not exist" in r.stderr


# --- bad manifests and commands, through the CLI (issue 11): one line each, no traceback -------

GOOD_CU = 'extern "C" __global__ void sgemm_mine(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {}\n'


def one_line_error(r, *fragments):
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr + r.stdout
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and lines[0].startswith("gemmprof: error:"), r.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def test_unparsable_dispatch_condition(tmp_path, monkeypatch):
    """`when` conditions live in the ladder's [[dispatch]] entries: a broken one stops every
    command that reads the dispatchers, in one line."""
    from typer.testing import CliRunner

    from profiler.catalogue import kernel_paths
    from profiler.catalogue import dispatchers as m
    from profiler.cli import app

    for source in kernel_paths.KERNELS_DIR.glob("*.cu*"):  # the copy's `file`s resolve beside it
        (tmp_path / source.name).symlink_to(source)
    copy = tmp_path / "ladder.toml"
    copy.write_text(kernel_paths.MANIFEST_PATH.read_text() + '\n[[dispatch]]\nname = "broken"\ntier = "fp32"\nidea = "x"\n'
                    'rules = [{ kernel = "smem", when = "M >" }]\n')
    monkeypatch.setattr(kernel_paths, "MANIFEST_PATH", copy)  # load_dispatchers reads it when called
    m.clear_caches()
    try:
        result = CliRunner().invoke(app, ["new", "x", "--dir", str(tmp_path / "d")])
    finally:
        m.clear_caches()
    assert isinstance(result.exception, GemmprofError), result.output
    message = str(result.exception)
    assert "dispatch broken: rule for smem: bad condition" in message and "\n" not in message


def test_a_command_that_does_not_exist():
    r = gemmprof("frobnicate")
    assert r.returncode == 2 and r.stdout == ""
    one_line_error(r, "No such command 'frobnicate'", "gemmprof -h")


def test_an_option_that_does_not_exist_or_lacks_its_value():
    one_line_error(gemmprof("bench", "--frob"), "No such option: --frob", "gemmprof bench -h")
    one_line_error(gemmprof("bench", "--sizes"), "Option '--sizes' requires an argument")


def test_no_command_prints_the_help():
    r = gemmprof()
    assert "Usage: gemmprof" in r.stdout and "bench" in r.stdout and "error" not in r.stderr


def test_version_and_short_help():
    from profiler import __version__

    assert gemmprof("--version").stdout.strip() == f"gemmprof {__version__}"
    short, long = gemmprof("-h"), gemmprof("--help")
    assert short.returncode == 0 and short.stdout == long.stdout and "new" in short.stdout
    assert gemmprof("build", "-h").stdout == gemmprof("build", "--help").stdout


def test_a_command_imports_its_own_module_and_no_help_formatting():
    """`gemmprof profile ...` imports profile's command module, not the other commands' nor
    Rich's help formatting (their imports delay the start of ncu); `-h` on a wide terminal still
    gets Rich's boxes, and `gemmprof -h` lists every command."""
    probe = ("import sys\nfrom profiler.cli import main\nsys.argv = ['gemmprof', *sys.argv[1:]]\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print('LOADED', ' '.join(m for m in ('profiler.cli.dispatch', 'profiler.cli.report', "
             "'profiler.workflows.dispatch', 'typer.rich_utils', 'numpy') if m in sys.modules))")

    def loaded(*args: str, columns: int = 80) -> tuple[set[str], str]:
        env = dict(child_env(), COLUMNS=str(columns))
        out = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, env=env, timeout=120).stdout
        return set(out.rsplit("LOADED", 1)[1].split()), out

    assert loaded("profile", "-k", "nope", columns=200)[0] == set()
    assert loaded("profile", "-h", columns=200)[0] == {"typer.rich_utils"}
    modules, listing = loaded("-h", columns=200)
    assert {"profiler.cli.dispatch", "profiler.cli.report", "typer.rich_utils"} <= modules
    assert "dispatch" in listing and "accuracy" in listing


def test_apps_of_some_commands_and_of_all_can_be_made_in_one_process_in_any_order():
    """`main` makes an app of the one command it runs; the notebook API and tests make the app of
    every command after it, in the same process (a second app once failed: the commands'
    imports had rebound a name the app's callback was taken from)."""
    import typer

    from profiler.cli import COMMANDS, command, new_app

    for names in (["env"], ["profile", "bench"], COMMANDS):
        app = new_app(names, boxed_help=False)
        assert isinstance(app, typer.Typer)
        assert set(typer.main.get_command(app).commands) == set(names)
    assert set(command().commands) == set(COMMANDS)
    assert set(command(["report"], boxed_help=True).commands) == {"report"}
