"""gemmprof as a user installs it: a virtual environment holding the package and its
dependencies and nothing of this checkout, used from empty folders elsewhere.

Where the environment comes from:
- `$GEMMPROF_INSTALLED_VENV` (the wheel job of `.ci/run`): a clean venv into which the built wheel
  or sdist was installed by pip from the package index, as a user installs it;
- otherwise (`make test`) a wheel built here from a copy of the build inputs (no stale build/ of
  the checkout can leak in), installed with `--no-deps` into a fresh venv whose dependencies come
  from this test environment through a .pth line. A path named in a .pth file is not scanned for
  .pth files itself, so the checkout's editable-install hook never loads there.

What a command needs that a machine may lack (`NEEDS`) is looked up here independently of
gemmprof, so a test can say which one-line "missing" error a command must end in."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from helpers.paths import REPO
from profiler.errors import Exit

INSTALLED_ENV = "GEMMPROF_INSTALLED_VENV"


def build_inputs() -> list[str]:
    """What a wheel is built from: the package, the folders pyproject.toml ships as packages of
    their own (package-dir: the kernel catalogue, the sample run), and the files setuptools reads."""
    package_dir = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    return ["profiler", *(d for d in package_dir.values() if not d.startswith("profiler/")), "pyproject.toml", "README.md"]


@dataclass
class Installed:
    venv: Path
    root: Path  # a scratch folder outside the checkout: working folders, the cubin and table caches
    env: dict[str, str]
    build_output: str = ""  # what building the wheel printed; empty when the CI job built it
    _count: list[int] = field(default_factory=lambda: [0])

    def folder(self) -> Path:
        """A new empty folder outside the checkout to run from."""
        self._count[0] += 1
        path = self.root / f"user{self._count[0]}"
        path.mkdir()
        return path

    def run(self, argv: list[str], cwd: Path | None = None, timeout: int = 600, **extra_env: str) -> subprocess.CompletedProcess:
        return subprocess.run(argv, capture_output=True, text=True, cwd=cwd or self.folder(), timeout=timeout,
                              env={**self.env, **extra_env})

    def gemmprof(self, *args, cwd: Path | None = None) -> subprocess.CompletedProcess:
        return self.run([str(self.venv / "bin" / "gemmprof"), *map(str, args)], cwd)

    def python(self, code: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
        return self.run([str(self.venv / "bin" / "python"), "-c", code], cwd)

    def value(self, code: str) -> str:
        """What `code` prints in the installed Python (it must succeed)."""
        r = self.python(code)
        assert r.returncode == 0, r.stderr
        return r.stdout.strip()


def install(root: Path) -> Installed:
    """The installed gemmprof the tests use: the CI job's venv, or one made here from a wheel."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "GEMMPROF", "VIRTUAL_ENV"))}
    given = os.environ.get(INSTALLED_ENV)
    output = ""
    if given:
        venv = Path(given)
    else:
        venv, output = _build_and_install(root)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"  # as an activated venv has it
    env["VIRTUAL_ENV"] = str(venv)
    env["GEMMPROF_CACHE_DIR"] = str(root / "cache")
    return Installed(venv, root, env, output)


def _build_and_install(root: Path) -> tuple[Path, str]:
    src = root / "src"
    for name in build_inputs():
        source, copy = REPO / name, src / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            generated = ("extract", "report") if name.startswith("reports/") else ()  # a run's caches and outputs
            shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__", *generated))
        else:
            shutil.copy2(source, copy)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    built = subprocess.run([*pip, "wheel", str(src), "--no-deps", "-w", str(root / "dist")], capture_output=True, text=True,
                           timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (root / "dist").glob("gemmprof-*.whl")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True, timeout=300)
    python = venv / "bin" / "python"
    subprocess.run([*pip, "-q", "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)], check=True,
                   capture_output=True, timeout=300)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "gemmprof-test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv, built.stdout + built.stderr


# --- what a command needs that a machine may lack ---------------------------------------------------------------

def _nvcc(installed: Installed) -> bool:
    return bool(shutil.which("nvcc", path=installed.env["PATH"]) or Path("/usr/local/cuda/bin/nvcc").is_file())


def _ncu(installed: Installed) -> bool:
    return bool(shutil.which("ncu", path=installed.env["PATH"]) or Path("/usr/local/cuda/bin/ncu").is_file()
                or glob.glob("/opt/nvidia/nsight-compute/*/ncu"))


def _cupy(installed: Installed) -> bool:
    return installed.python("import importlib.util, sys; sys.exit(importlib.util.find_spec('cupy') is None)").returncode == 0


def _gpu(installed: Installed) -> bool:
    code = "import cupy, sys; sys.exit(cupy.cuda.runtime.getDeviceCount() == 0)"
    return _cupy(installed) and installed.python(code).returncode == 0


def _nvml_gpu(installed: Installed) -> bool:
    code = "import pynvml, sys; pynvml.nvmlInit(); sys.exit(pynvml.nvmlDeviceGetCount() == 0)"
    return installed.python(code).returncode == 0


# Each thing a command may need: (whether this machine has it, the exit status and a word of the
# one line a command ends in without it).
NEEDS = {
    "nvcc": (_nvcc, Exit.NO_CUDA, "nvcc"),
    "ncu": (_ncu, Exit.NO_NCU, "Nsight Compute"),
    "cupy": (_cupy, Exit.NO_CUDA, "CuPy"),
    "gpu": (_gpu, Exit.NO_GPU, "GPU"),
    "nvml-gpu": (_nvml_gpu, Exit.NO_GPU, "GPU"),  # --gpus all: the GPUs NVML sees
}


def first_missing(installed: Installed, needs: tuple[str, ...]) -> str | None:
    """The first of `needs` (in the order the command looks) this machine lacks, or None."""
    return next((need for need in needs if not NEEDS[need][0](installed)), None)


def ends_in_one_error_line(result: subprocess.CompletedProcess) -> str:
    """The one line a failed command printed on stderr (and it is the only one, no traceback)."""
    lines = result.stderr.strip().splitlines()
    assert "Traceback" not in result.stderr + result.stdout, result.stderr[-3000:]
    assert len(lines) == 1 and lines[0].startswith("gemmprof: error: "), result.stderr[-3000:]
    return lines[0]
