"""The sanitizer's launcher picks, per kernel, one odd and one even small shape inside its
contract (so every kernel runs under every tool, none is skipped)."""

import pytest

from profiler.catalogue.kernel_paths import PROBES_MANIFEST
from profiler.catalogue.kernel_spec import KernelSpec
from profiler.catalogue.manifest import load_manifest
from profiler.measure.launch_once import small_shapes

EVERY = [*load_manifest(), *load_manifest(PROBES_MANIFEST)]


@pytest.mark.parametrize("spec", EVERY, ids=lambda s: s.name)
def test_small_shapes_are_in_the_contract_and_small(spec):
    odd, even = small_shapes(spec)
    assert spec.unsupported_reason(*odd) is None and spec.unsupported_reason(*even) is None
    assert odd != even and max(odd + even) <= 1024


def spec(**contract) -> KernelSpec:
    return KernelSpec(name="x", file="x.cu", entry="x", tier="fp32", idea="", grid=(1,), block=(1,), contract=contract)


def test_without_a_contract_the_odd_shape_is_ragged():
    odd, _ = small_shapes(spec())
    assert all(d % 2 for d in odd)


def test_a_partial_contract_keeps_the_free_dimensions_ragged():
    (M, N, K), _ = small_shapes(spec(N=4))
    assert N % 4 == 0 and M % 2 == 1 and K % 2 == 1
