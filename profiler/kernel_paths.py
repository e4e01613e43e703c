"""Where the kernels are: the built-in ladder (a checkout's kernels/ or the installed package's
copy), its manifest, the probes' manifest, and the variable that names extra manifests."""

from __future__ import annotations

from pathlib import Path


def builtin_kernels_dir() -> Path:
    """Where the built-in ladder is: `profiler/_kernels` when gemmprof is installed from a wheel
    (kernels/ shipped as package data, see pyproject.toml), the checkout's `kernels/` beside the
    package otherwise (a source tree, `pip install -e .`)."""
    package = Path(__file__).resolve().parent
    installed = package / "_kernels"
    return installed if (installed / "ladder.toml").is_file() else package.parent / "kernels"


KERNELS_DIR = builtin_kernels_dir()


# The source checkout gemmprof runs from, or None when it runs installed: the root of defaults
# that point into the project (its git commit, its sample runs), which an installed copy lacks.
CHECKOUT_ROOT = KERNELS_DIR.parent if KERNELS_DIR.name == "kernels" else None


MANIFEST_PATH = KERNELS_DIR / "ladder.toml"


# Extra manifests (the user's own kernels, the probes): os.pathsep-separated TOML paths. An
# environment variable, so bench workers and ncu targets (child processes) see the same kernels.
MANIFEST_ENV = "GEMMPROF_MANIFEST"


# The probe kernels (one planted bottleneck each), an extra manifest that ships with the ladder.
PROBES_MANIFEST = KERNELS_DIR / "probes" / "probes.toml"
