"""What gemmprof reads at run time ships inside the package, and is found through it.

pyproject.toml maps two folders of the checkout to packages of their own (`package-dir`) and
names their files (`package-data`):

- the kernel catalogue, kernels/ as `profiler._kernels`: the ladder's manifest, sources and
  headers, the probes' and experiments' manifests, the ptxas table and the shape suites;
- the sample run, reports/sample-h200 as `profiler._sample`: a real H200 run's run.json, profile
  log and tables (its ncu reports stay in the checkout: every table the report, the roofline and
  the notebook read is there, at under 1 MB).

An installed gemmprof reads its own copies, whatever the current directory. A source tree (a
checkout, `pip install -e .`, or the checkout on PYTHONPATH, as on the GPU machine) has no copy
inside profiler/, and reads the folder the package is built from."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

PACKAGE = Path(str(files(__package__)))


def shipped(name: str, source: str, probe: str) -> Path:
    """The folder of the shipped package `profiler.<name>`: the installed copy when it holds
    `probe` (a file that is always shipped), else `source`, the checkout folder it is built from."""
    installed = PACKAGE / name
    return installed if (installed / probe).is_file() else PACKAGE.parent / source


KERNELS_DIR = shipped("_kernels", "kernels", "ladder.toml")

# A real run to try every reading command on without a GPU (`gemmprof.sample_run()`, `make demo`).
SAMPLE_RUN = shipped("_sample", "reports/sample-h200", "run.json")


def inside_package(path: Path) -> bool:
    """`path` is part of the installed package (the shipped sample run): read, never written
    into (a site-packages folder may be read-only, and its files are the package's record)."""
    return Path(path).resolve().is_relative_to(PACKAGE.resolve())
