"""gemmprof as a new user gets it (issues 11 and 31): the package installed into a fresh virtual
environment (`helpers.installed`: a wheel built here, or the CI job's wheel and sdist installs),
run through its `gemmprof` script and `python -m gemmprof` from empty folders outside the
checkout. Everything a command reads (the ladder, the shape suites, the report's templates, the
sample run) must come from the installed package; every command, given good arguments, works or
ends in the one line that names what this machine lacks (its own exit status); given bad ones,
ends in one line naming the mistake. Never a traceback."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import pytest
from helpers.installed import NEEDS, ends_in_one_error_line, first_missing
from helpers.paths import REPO

from profiler.errors import Exit


@pytest.fixture(scope="module")
def sample(installed) -> Path:
    """The sample run that ships in the package, as the installed package finds it."""
    return Path(installed.value("import gemmprof; print(gemmprof.sample_run())"))


def site(installed) -> Path:
    return Path(installed.value("import sysconfig; print(sysconfig.get_paths()['purelib'])"))


def test_the_installed_package_is_the_one_imported(installed, sample):
    where = site(installed)
    out = installed.value("import profiler, profiler.catalogue.manifest as m, profiler.catalogue.kernel_paths as kp, "
                          "profiler.catalogue.suites as s; "
                          "print(profiler.__file__); print(kp.KERNELS_DIR); print(kp.CHECKOUT_ROOT); "
                          "print(len(m.load_manifest())); print(s.SUITES_PATH)")
    package, kernels, checkout, count, suites = out.split("\n")
    assert Path(package).is_relative_to(where) and not Path(package).is_relative_to(REPO)
    assert Path(kernels) == where / "profiler" / "_kernels" and checkout == "None"
    assert Path(suites) == where / "profiler" / "_kernels" / "shapes.toml"
    assert sample == where / "profiler" / "_sample"
    from profiler.catalogue.manifest import load_manifest

    assert int(count) == len(load_manifest())  # the whole ladder shipped
    for name in ("ladder.toml", "resources.csv", "shapes.toml", "probes/probes.toml", "experiments/experiments.toml",
                 "01_naive.cu"):
        assert (where / "profiler" / "_kernels" / name).is_file(), name
    assert (where / "profiler" / "render" / "templates" / "page.html.j2").is_file()
    shipped = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["profiler._sample"]
    assert sorted(p.name for p in sample.iterdir() if not p.name.startswith("__")) == sorted(shipped)
    api = installed.value("import gemmprof; print(gemmprof.__file__, callable(gemmprof.open_run))")
    assert api.split() == [str(where / "gemmprof" / "__init__.py"), "True"]


def test_the_wheel_is_small_and_builds_without_warnings(installed):
    if not installed.build_output:
        pytest.skip("built by the CI job: make test builds one here and checks its output")
    assert not re.search(r"\w+Warning\b", installed.build_output), installed.build_output  # setuptools' own warnings
    (wheel,) = (installed.root / "dist").glob("gemmprof-*.whl")
    assert wheel.stat().st_size < 3 * 2**20  # a few MB at most: the sample run ships without its ncu reports


def test_version_and_help(installed):
    from profiler import __version__

    assert installed.gemmprof("--version").stdout.strip() == f"gemmprof {__version__}"
    assert "new" in installed.gemmprof("-h").stdout
    module = installed.run([str(installed.venv / "bin" / "python"), "-m", "gemmprof", "--version"])
    assert module.returncode == 0 and module.stdout.strip() == f"gemmprof {__version__}", module.stderr


# --- every command, from an empty folder ------------------------------------------------------------------------
# (arguments, what it needs that a machine may lack, in the order it looks). With all of them here
# it runs and exits 0; else it ends in the one line of the first one missing, with its exit status.
# {sample} is the shipped sample run; {file} a file in the working folder.
GOOD = [
    ("--version", ()),
    ("env", ()),
    ("env --json", ()),
    ("new mykern --dir mine", ()),
    ("new faster --from spread128x256x8 --dir mine", ()),
    ("build -k naive --arch sm_90", ("nvcc",)),
    ("bench -k naive --sizes 256", ("cupy", "gpu")),
    ("bench --suite quick -k naive", ("cupy", "gpu")),
    ("bench -k naive --sizes 96x96x131072", ("cupy", "gpu")),
    ("bench --sizes 2048 --gpus all", ("nvml-gpu",)),
    ("profile -k naive --size 256", ("ncu", "cupy", "gpu")),
    ("profile -- python -c pass", ("ncu",)),
    ("analyze {sample}", ()),
    ("analyze {sample} --json", ()),
    ("analyze {sample} --csv-dir tables", ()),
    ("analyze {sample} --csv", ()),
    ("report {sample} -o out", ()),
    ("report {sample} --json", ()),
    ("roofline {sample} -o r.png --ladder l.png", ()),
    ("compare {sample} {sample}", ()),
    ("dispatch {sample}", ()),
    ("accuracy --probes {sample}", ()),
]

# Needs that make a command real GPU work: where the machine has them all, the command is not run here.
GPU_WORK = {"gpu", "nvml-gpu", "ncu"}

# (arguments, exit status, what its one line must say)
BAD = [
    ("nosuch", Exit.USAGE, "No such command"),
    ("accuracy", Exit.USAGE, "nothing to grade"),
    ("accuracy nosuch.toml", Exit.USAGE, "nosuch.toml: no such file"),
    ("bench --nosuch", Exit.USAGE, "--nosuch"),
    ("bench --sizes abc", Exit.USAGE, "'abc'"),
    ("bench -k nosuch", Exit.USAGE, "'nosuch'"),
    ("bench --suite nosuch", Exit.USAGE, "'nosuch'"),
    ("bench --sizes 96x96x2147483648", Exit.USAGE, "96x96x2147483648"),
    ("bench --out {file}", Exit.USAGE, "--out {file} is a file"),
    ("bench --manifest nosuch.toml", Exit.USAGE, "nosuch.toml"),
    ("profile --size 0", Exit.USAGE, "0x0x0"),
    ("profile -k nosuch", Exit.USAGE, "'nosuch'"),
    ("profile --out /proc/gemmprof", Exit.USAGE, "/proc/gemmprof cannot be written"),
    ("analyze", Exit.USAGE, "Missing argument"),
    ("analyze nosuch.ncu-rep", Exit.USAGE, "nosuch.ncu-rep: no such file"),
    ("analyze {file}", Exit.USAGE, "{file}"),
    ("analyze --csv-dir /proc/x {sample}", Exit.USAGE, "--csv-dir /proc/x cannot be written"),
    ("report", Exit.USAGE, "no run directory found under reports/"),
    ("report {sample} -o /proc/forbidden", Exit.USAGE, "-o /proc/forbidden cannot be written"),
    ("report {sample} -o {file}", Exit.USAGE, "-o {file} is a file"),
    ("roofline {sample} -o r.txt", Exit.USAGE, "r.txt"),
    ("roofline {sample} -o /proc/r.png", Exit.USAGE, "/proc/r.png cannot be written"),
    ("roofline {sample} -o {file}/r.png", Exit.USAGE, "which is a file"),
    ("compare {sample} nosuch", Exit.BAD_RUN, "nosuch"),
    ("dispatch nosuch", Exit.USAGE, "nosuch"),
    ("new naive", Exit.USAGE, "naive"),
    ("new mine --dir {file}", Exit.USAGE, "--dir {file} is a file"),
    ("build -k nosuch", Exit.USAGE, "'nosuch'"),
    ("env --nosuch", Exit.USAGE, "--nosuch"),
]


def test_every_command_is_run_with_good_and_bad_arguments():
    from profiler.cli import COMMANDS

    for table in (GOOD, BAD):
        assert set(COMMANDS) <= {row[0].split()[0] for row in table}, set(COMMANDS) - {row[0].split()[0] for row in table}


def arguments(text: str, sample: Path, cwd: Path) -> list[str]:
    (cwd / "a-file").write_text("not a folder")
    return [word.format(sample=sample, file=cwd / "a-file") for word in text.split()]


@pytest.mark.parametrize("text,needs", GOOD, ids=[t for t, _ in GOOD])
def test_each_command_with_good_arguments(installed, sample, text, needs):
    missing = first_missing(installed, needs)
    if missing is None and set(needs) & GPU_WORK:
        pytest.skip(f"this machine has {', '.join(needs)}: the command would run on the GPU (the GPU tests' part)")
    cwd = installed.folder()
    r = installed.gemmprof(*arguments(text, sample, cwd), cwd=cwd)
    if missing is None:
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-3000:]
    else:
        line = ends_in_one_error_line(r)
        assert r.returncode == NEEDS[missing][1] and NEEDS[missing][2] in line, (r.returncode, line)


@pytest.mark.parametrize("text,code,says", BAD, ids=[t for t, _, _ in BAD])
def test_each_command_with_bad_arguments(installed, sample, text, code, says):
    cwd = installed.folder()
    r = installed.gemmprof(*arguments(text, sample, cwd), cwd=cwd)
    line = ends_in_one_error_line(r)
    assert r.returncode == code and says.format(file=cwd / "a-file") in line, (r.returncode, line)


def test_the_api_bench_says_what_is_missing(installed):
    missing = first_missing(installed, ("cupy", "gpu"))
    if missing is None:
        pytest.skip("this machine has CuPy and a GPU: gemmprof.bench would run on the GPU")
    code = ("import gemmprof\ntry:\n    gemmprof.bench(kernel=['naive'], sizes='256')\n"
            "except gemmprof.GemmprofError as exc:\n    print(int(exc.exit_code), exc)")
    out = installed.value(code)
    assert out.startswith(f"{int(NEEDS[missing][1])} ") and NEEDS[missing][2] in out, out


def test_the_report_of_the_shipped_sample(installed, sample):
    cwd = installed.folder()
    r = installed.gemmprof("report", sample, cwd=cwd)  # no -o: never into the installed package
    assert r.returncode == 0, r.stderr
    index = (cwd / "gemmprof-report" / "index.html").read_text()
    assert "spread128x256x8" in index and (cwd / "gemmprof-report" / "diagnosis.json").is_file()
    assert not (sample / "report").exists()


def test_report_with_no_run_points_at_the_shipped_sample(installed, sample):
    r = installed.gemmprof("report")
    line = ends_in_one_error_line(r)
    assert r.returncode == Exit.USAGE and "no run directory found under reports/" in line and str(sample) in line


@pytest.mark.nvcc
def test_new_kernel_builds_with_its_manifest(installed):
    cwd = installed.folder()
    assert installed.gemmprof("new", "mykern", "--dir", "D", cwd=cwd).returncode == 0
    r = installed.gemmprof("build", "--manifest", "D/mykern.toml", "-k", "mykern", "--arch", "sm_90", cwd=cwd)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^  mykern: (built|cached)$", r.stdout, re.M) and "Traceback" not in r.stderr  # the README test may build it first


def test_pyproject_lists_every_package():
    # packages are listed by hand (some ship under other names): a new folder of profiler/ must be too
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    found = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "profiler").rglob("__init__.py")}
    assert found - {"profiler.api"} <= listed and {"gemmprof", "profiler._kernels", "profiler._sample"} <= listed
    # every committed folder of a data package that holds sources to ship is a package of its own
    # (setuptools warns, and will stop shipping them, otherwise)
    for package, folder in setuptools["package-dir"].items():
        tracked = subprocess.run(["git", "ls-files", "--", f"{folder}/*/*.cu"], cwd=REPO, capture_output=True, text=True).stdout
        for sub in {Path(line).parent.name for line in tracked.split()}:
            assert f"{package}.{sub}" in listed, (folder, sub)
    assert "profiler.render.templates" in listed and set(setuptools["package-data"]) <= listed
