"""The manifest: every kernel entry valid, launch geometry and contracts as declared."""

import pytest

from profiler.errors import GemmprofError
from profiler.manifest import load_manifest, select_kernels

LADDER_ORDER = ["naive", "coalesced", "smem", "blocktile1d", "blocktile2d", "vectorized", "warptile"]


def test_ladder_starts_with_the_issue_rungs_in_order():
    names = [s.name for s in load_manifest()]
    assert names[: len(LADDER_ORDER)] == LADDER_ORDER


def test_every_kernel_has_its_source_and_a_predecessor_chain():
    specs = load_manifest()
    by_name = {s.name: s for s in specs}
    for spec in specs:
        assert spec.source.is_file(), spec.file
        assert f"sgemm_{spec.name}" in spec.source.read_text() or spec.entry in spec.source.read_text()
        if spec.predecessor:
            assert by_name[spec.predecessor].index < spec.index
    assert specs[0].predecessor in (None, "")


def test_grid_covers_the_output_for_every_shape_in_contract():
    """The grid grows with the output (16x the blocks for 16x the elements of C) and the block
    size is a legal one."""
    for spec in load_manifest():
        small, big = spec.launch(256, 256, 256), spec.launch(1024, 1024, 256)
        assert big.grid[0] * big.grid[1] == 16 * small.grid[0] * small.grid[1], spec.name
        assert 32 <= small.block[0] * small.block[1] * small.block[2] <= 1024, spec.name


def test_contract_reason_names_the_dimension():
    spec = next(s for s in load_manifest() if s.contract)
    dim, mult = next(iter(spec.contract.items()))
    shape = {d: mult * 4 for d in "MNK"}
    shape[dim] = mult * 4 + 1
    reason = spec.unsupported_reason(shape["M"], shape["N"], shape["K"])
    assert reason and f"{dim}={mult * 4 + 1}" in reason
    assert spec.unsupported_reason(*(spec.contract.get(d, 1) * 8 for d in "MNK")) is None


def test_unknown_kernel_lists_the_choices():
    with pytest.raises(GemmprofError) as exc:
        select_kernels(["vectorised"])
    assert "vectorized" in str(exc.value)


def test_reference_tiers_of_a_selection():
    from profiler.dispatchers import load_dispatchers
    from profiler.manifest import reference_tiers, select_kernels

    assert reference_tiers([]) == ["fp32"]
    assert reference_tiers(select_kernels(["naive", "smem"])) == ["fp32"]
    assert reference_tiers(select_kernels(["naive", "wgmma"])) == ["fp16", "fp32"]
    assert reference_tiers(select_kernels(["wgmma"])) == ["fp16"]
    assert reference_tiers(list(load_dispatchers())) == sorted({d.tier for d in load_dispatchers()})


# --- hostile manifests: one line naming the kernel, never a traceback (issue 12) -----------------
