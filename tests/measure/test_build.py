"""Every kernel, the ladder's and the probes', compiles for sm_90; ptxas resources match the
committed table; no kernel marked spill-free spills or uses a stack frame; each probe's ptxas
resources are as planted. (CI compiles; no GPU needed.)"""

import pytest

from profiler.catalogue.kernel_paths import PROBES_MANIFEST
from profiler.catalogue.manifest import load_manifest
from profiler.measure.build import RESOURCES_TABLE, build_all, read_resources_table

pytestmark = pytest.mark.nvcc

KERNELS = list(load_manifest()) + list(load_manifest(PROBES_MANIFEST))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    import os

    os.environ["GEMMPROF_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))  # compile for real
    return build_all(KERNELS, "sm_90")


def test_every_kernel_compiles_to_a_cubin(built):
    assert [b.spec.name for b in built] == [s.name for s in KERNELS]
    for b in built:
        assert b.cubin.stat().st_size > 1000 and not b.cached


def test_spill_free_kernels_do_not_spill(built):
    offenders = [(b.spec.name, b.resources) for b in built if b.spec.spill_free and (b.resources.spills or b.resources.stack_bytes)]
    assert not offenders


def test_committed_resource_table_is_current(built):
    """kernels/resources.csv is regenerated with
    `gemmprof build --manifest kernels/probes/probes.toml --arch sm_90 --write-resources`."""
    committed = {r.kernel: r for r in read_resources_table(RESOURCES_TABLE) if r.arch in ("sm_90", "sm_90a")}
    for b in built:
        assert committed.get(b.spec.name) == b.resources, f"{b.spec.name}: rerun gemmprof build --manifest kernels/probes/probes.toml --arch sm_90 --write-resources"


def test_second_build_comes_from_the_cache(built):
    again = build_all(list(load_manifest())[:2], "sm_90")
    assert all(b.cached for b in again)
    assert [b.cubin for b in again] == [b.cubin for b in built[:2]]


def test_probes_resources_are_as_planted(built):
    """Spills only in the spills probe; a stack frame without spills in the local-memory probe;
    the tail probe's block takes the whole register file (one block per SM); the over-allocating
    probe uses far less shared memory than it asks for."""
    by_planted = {b.spec.planted: b for b in built if b.spec.planted}
    assert set(by_planted) == {s.planted for s in load_manifest(PROBES_MANIFEST)}
    for cause, b in by_planted.items():
        r = b.resources
        assert r.spills == (cause == "spills"), (cause, r)
        assert bool(r.stack_bytes) == (cause in ("spills", "local_memory")), (cause, r)
    tail = by_planted["tail"]
    assert tail.resources.registers * tail.spec.launch(*tail.spec.probe_shape).block[0] > 65536 // 2
    shared = by_planted["occupancy_shared"]
    asked = shared.spec.launch(*shared.spec.probe_shape).smem_bytes
    assert asked > 4 * (shared.resources.shared_bytes + 8192) and asked > 228 * 1024 // 2
