"""Where the kernels are: the built-in ladder (a checkout's kernels/ or the installed package's
copy, see `shipped`), its manifest, the probes' manifest, and the variable that names extra
manifests."""

from __future__ import annotations

from .shipped import KERNELS_DIR


# The source checkout gemmprof runs from, or None when it runs installed: the root of defaults
# that point into the project (its git commit), which an installed copy lacks.
CHECKOUT_ROOT = KERNELS_DIR.parent if KERNELS_DIR.name == "kernels" else None


MANIFEST_PATH = KERNELS_DIR / "ladder.toml"


# Extra manifests (the user's own kernels, the probes): os.pathsep-separated TOML paths. An
# environment variable, so bench workers and ncu targets (child processes) see the same kernels.
MANIFEST_ENV = "GEMMPROF_MANIFEST"


# The probe kernels (one planted bottleneck each), an extra manifest that ships with the ladder.
PROBES_MANIFEST = KERNELS_DIR / "probes" / "probes.toml"
