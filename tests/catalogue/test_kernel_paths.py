"""Where the kernels are (profiler.catalogue.kernel_paths): in a checkout, its kernels/ folder with the
ladder and the probes' manifest, and the checkout as the root of project defaults."""

from __future__ import annotations

from helpers.paths import REPO
from profiler.catalogue import kernel_paths


def test_a_checkout_uses_its_own_kernels_folder():
    assert kernel_paths.KERNELS_DIR == REPO / "kernels"
    assert kernel_paths.CHECKOUT_ROOT == REPO
    assert kernel_paths.MANIFEST_PATH == REPO / "kernels" / "ladder.toml" and kernel_paths.MANIFEST_PATH.is_file()
    assert kernel_paths.PROBES_MANIFEST.is_file() and kernel_paths.PROBES_MANIFEST.parent.parent == kernel_paths.KERNELS_DIR


def test_the_extra_manifest_variable_is_gemmprofs_own():
    assert kernel_paths.MANIFEST_ENV == "GEMMPROF_MANIFEST"
