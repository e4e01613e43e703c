"""gemmprof as a new user gets it (issue 11): a wheel built from the project, installed into a
fresh virtual environment in another directory, run through its `gemmprof` console script from a
directory outside the checkout. The ladder (kernels/), the report's templates and every default
must come from the installed package, never from this checkout.

The wheel is built from a copy of the build inputs (no stale build/ of the checkout can leak in)
and installed with `pip --python VENV install --no-deps` (CI has no package index to spare); the
dependencies come from this test's own environment through a .pth line in the fresh venv. A path
named in a .pth file is not scanned for .pth files itself, so the checkout's editable-install hook
never loads there."""

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from helpers.paths import REPO

SAMPLE = REPO / "reports" / "sample-h200"
# What a wheel is built from: the package, the ladder, and the files setuptools reads.
BUILD_INPUTS = ("profiler", "kernels", "pyproject.toml", "README.md")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(site folder, environment, working directory) of a wheel installed outside the checkout."""
    root = tmp_path_factory.mktemp("wheel")
    src = root / "src"
    for name in BUILD_INPUTS:
        copy = shutil.copytree if (REPO / name).is_dir() else shutil.copy2
        copy(REPO / name, src / name, **({"ignore": shutil.ignore_patterns("__pycache__")} if copy is shutil.copytree else {}))
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", str(src), "--no-deps", "-w", str(root / "dist")], check=True, capture_output=True, timeout=300)
    (wheel,) = (root / "dist").glob("gemmprof-*.whl")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True, timeout=300)
    python = venv / "bin" / "python"
    subprocess.run([*pip, "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)], check=True,
                   capture_output=True, timeout=300)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "gemmprof-test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "GEMMPROF", "VIRTUAL_ENV"))}
    env["GEMMPROF_CACHE_DIR"] = str(root / "cache")
    cwd = root / "user"
    cwd.mkdir()
    return site, env, cwd, venv


def run(installed, *args, code=None):
    """The venv's `gemmprof` console script (or its python with `code`), run outside the checkout."""
    site, env, cwd, venv = installed
    command = [str(venv / "bin" / "python"), "-c", code] if code else [str(venv / "bin" / "gemmprof"), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


def test_the_installed_package_is_the_one_imported(installed):
    site = installed[0]
    r = run(installed, code="import profiler, profiler.manifest as m, profiler.kernel_paths as kp; "
                            "print(profiler.__file__); print(kp.KERNELS_DIR); print(kp.CHECKOUT_ROOT); print(len(m.load_manifest()))")
    assert r.returncode == 0, r.stderr
    package, kernels, checkout, count = r.stdout.split("\n")[:4]
    assert Path(package).is_relative_to(site) and not Path(package).is_relative_to(REPO)
    assert Path(kernels) == site / "profiler" / "_kernels" and checkout == "None"
    from profiler.manifest import load_manifest

    assert int(count) == len(load_manifest())  # the whole ladder shipped
    for name in ("ladder.toml", "resources.csv", "probes/probes.toml", "01_naive.cu"):
        assert (site / "profiler" / "_kernels" / name).is_file(), name
    assert (site / "profiler" / "render" / "templates" / "page.html.j2").is_file()
    api = run(installed, code="import gemmprof; print(gemmprof.__file__, callable(gemmprof.open_run))")
    assert api.returncode == 0 and api.stdout.split() == [str(site / "gemmprof" / "__init__.py"), "True"], api.stderr


def test_version_and_help(installed):
    from profiler import __version__

    assert run(installed, "--version").stdout.strip() == f"gemmprof {__version__}"
    assert "new" in run(installed, "-h").stdout


def test_report_on_a_copy_of_the_sample_run(installed):
    run_dir = installed[2] / "sample"
    shutil.copytree(SAMPLE, run_dir, ignore=shutil.ignore_patterns("extract", "report"))
    r = run(installed, "report", run_dir, "-o", "out")
    assert r.returncode == 0, r.stderr
    index = (installed[2] / "out" / "index.html").read_text()
    assert "spread128x256x8" in index and (installed[2] / "out" / "diagnosis.json").is_file()


def test_report_with_no_run_looks_in_the_current_directory(installed):
    r = run(installed, "report")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "no run directory found under reports/" in r.stderr and "sample-h200" not in r.stderr


@pytest.mark.nvcc
def test_new_kernel_builds_with_its_manifest(installed):
    assert run(installed, "new", "mykern", "--dir", "D").returncode == 0
    r = run(installed, "build", "--manifest", "D/mykern.toml", "-k", "mykern", "--arch", "sm_90")
    assert r.returncode == 0, r.stderr
    assert "mykern" in r.stdout and "Traceback" not in r.stderr


def test_pyproject_lists_every_package():
    # packages are listed by hand (two ship under other names): a new folder of profiler/ must be too
    import tomllib

    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "profiler").rglob("__init__.py")}
    assert found - {"profiler.api"} <= listed and {"gemmprof", "profiler._kernels"} <= listed
