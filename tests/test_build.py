"""Every kernel compiles for sm_90; ptxas resources match the committed table; no kernel marked
spill-free spills or uses a stack frame. (CI compiles; no GPU needed.)"""

import pytest

from profiler.manifest import load_manifest
from profiler.measure.build import RESOURCES_TABLE, build_all, read_resources_table

pytestmark = pytest.mark.nvcc


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    import os

    os.environ["GEMMPROF_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))  # compile for real
    return build_all(list(load_manifest()), "sm_90")


def test_every_kernel_compiles_to_a_cubin(built):
    assert [b.spec.name for b in built] == [s.name for s in load_manifest()]
    for b in built:
        assert b.cubin.stat().st_size > 1000 and not b.cached


def test_spill_free_kernels_do_not_spill(built):
    offenders = [(b.spec.name, b.resources) for b in built if b.spec.spill_free and (b.resources.spills or b.resources.stack_bytes)]
    assert not offenders


def test_committed_resource_table_is_current(built):
    """kernels/resources.csv is regenerated with `gemmprof build --arch sm_90 --write-resources`."""
    committed = {r.kernel: r for r in read_resources_table(RESOURCES_TABLE) if r.arch in ("sm_90", "sm_90a")}
    for b in built:
        assert committed.get(b.spec.name) == b.resources, f"{b.spec.name}: rerun gemmprof build --arch sm_90 --write-resources"


def test_second_build_comes_from_the_cache(built):
    again = build_all(list(load_manifest())[:2], "sm_90")
    assert all(b.cached for b in again)
    assert [b.cubin for b in again] == [b.cubin for b in built[:2]]
