"""Where the kernels are: the built-in ladder (a checkout's kernels/ or the installed package's
copy, see `shipped`), its manifest, the probes' manifest, and the variable that names extra
manifests."""

from __future__ import annotations

import os
from pathlib import Path

from ..shipped import KERNELS_DIR


# The source checkout gemmprof runs from, or None when it runs installed: the root of defaults
# that point into the project (its git commit), which an installed copy lacks.
CHECKOUT_ROOT = KERNELS_DIR.parent if KERNELS_DIR.name == "kernels" else None


MANIFEST_PATH = KERNELS_DIR / "ladder.toml"


# Extra manifests (the user's own kernels, the probes): os.pathsep-separated TOML paths. An
# environment variable, so bench workers and ncu targets (child processes) see the same kernels.
MANIFEST_ENV = "GEMMPROF_MANIFEST"


# The probe kernels (one planted bottleneck each), an extra manifest that ships with the ladder.
PROBES_MANIFEST = KERNELS_DIR / "probes" / "probes.toml"


def add_manifests(paths: list[Path] | None) -> list[Path] | None:
    """Put --manifest paths (absolute) after those already in $GEMMPROF_MANIFEST. The variable,
    not a parameter, carries them: bench workers and ncu targets are child processes and must
    load the same kernels. The command line runs it as --manifest's callback, before the command's
    body; the notebook API before the workflow."""
    from ..paths import check_in_path

    for path in paths or []:
        check_in_path(path, "file", "--manifest")
    if paths:
        before = [p for p in os.environ.get(MANIFEST_ENV, "").split(os.pathsep) if p]
        added = [os.path.realpath(Path(p).expanduser()) for p in paths]
        os.environ[MANIFEST_ENV] = os.pathsep.join(dict.fromkeys(before + added))
    return paths
