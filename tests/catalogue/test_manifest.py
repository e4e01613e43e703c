"""The manifest: every kernel entry valid, launch geometry and contracts as declared."""

import pytest

from profiler.errors import GemmprofError
from profiler.catalogue.dispatchers import select_named
from profiler.catalogue.manifest import load_manifest, only_tier, select_kernels

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
    """The grid grows with the output (16x the blocks for 16x the elements of C, or 4x along each
    side where a tile's width does not divide 512); or, for a
    persistent (stream-K) kernel, stops growing at a fixed number of blocks that walk the tiles; or
    comes in rows of a fixed width, one block a tile and a row more for the last wave
    (tailsk128x256x8: 4x the elements of a large C, about 4x the rows); and the block size is a
    legal one."""
    for spec in load_manifest():
        small, big = spec.launch(512, 512, 256), spec.launch(2048, 2048, 256)  # tiles up to 512 wide
        large, larger = spec.launch(8192, 8192, 8192), spec.launch(16384, 16384, 8192)
        if large.grid == larger.grid:  # persistent
            assert small.grid[0] <= big.grid[0] <= large.grid[0], spec.name
        elif small.grid[0] == larger.grid[0]:  # rows of a fixed width
            assert larger.grid[0] * larger.grid[1] >= 16384 * 16384 // (128 * 256), spec.name
            assert abs(larger.grid[1] - 4 * large.grid[1]) <= 4, spec.name
        else:  # each of x and y 4x, up to cdiv's rounding where a tile does not divide 512 (80 columns)
            exact = big.grid[0] * big.grid[1] == 16 * small.grid[0] * small.grid[1]
            assert exact or all(0 <= 4 * s - b <= 3 for s, b in zip(small.grid[:2], big.grid[:2])), spec.name
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
    from profiler.catalogue.dispatchers import load_dispatchers
    from profiler.catalogue.manifest import reference_tiers, select_kernels

    assert reference_tiers([]) == ["fp32"]
    assert reference_tiers(select_kernels(["naive", "smem"])) == ["fp32"]
    assert reference_tiers(select_kernels(["naive", "wgmma"])) == ["fp16", "fp32"]
    assert reference_tiers(select_kernels(["wgmma"])) == ["fp16"]
    assert {d.tier for d in load_dispatchers()} == {"fp16", "fp32", "fp32-tc"}
    assert reference_tiers(list(load_dispatchers())) == ["fp16", "fp32"]  # fp32-tc's yardstick is fp32's


# --- hostile manifests: one line naming the kernel, never a traceback (issue 12) -----------------

_ENTRY = '[[kernel]]\nname = "x"\nfile = "x.cu"\nentry = "x"\ntier = "fp32"\nidea = "i"\nblock = [256]\n'


# --- --kernel ranges (FIRST..LAST in ladder order) and predecessors ---------------------------


def test_a_range_is_the_rungs_between_its_ends_in_ladder_order():
    order = [s.name for s in load_manifest()]
    names = [s.name for s in select_kernels(["smem..vectorized"])]
    assert names == ["smem", "blocktile1d", "blocktile2d", "vectorized"]
    assert names == order[order.index("smem"):order.index("vectorized") + 1]


def test_open_ranges_run_to_the_ladders_ends_and_repeats_are_dropped():
    order = [s.name for s in load_manifest()]
    assert [s.name for s in select_kernels(["..coalesced"])] == ["naive", "coalesced"]
    assert [s.name for s in select_kernels(["tf32x3.."])] == order[order.index("tf32x3"):]
    assert [s.name for s in select_kernels([".."])] == order
    # a name also inside a range is run once, where it first appears
    assert [s.name for s in select_kernels(["smem", "naive..smem"])] == ["smem", "naive", "coalesced"]


@pytest.mark.parametrize("name,fragment", [
    ("naive..nope", "bad kernel range 'naive..nope': no rung 'nope'"),
    ("nope..", "no rung 'nope'"),
    ("naive..smem..wmma", "bad kernel range"),
    ("smem..naive", "empty kernel range 'smem..naive'"),
])
def test_bad_ranges_are_one_line_errors(name, fragment):
    with pytest.raises(GemmprofError) as err:
        select_kernels([name])
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_a_range_names_no_dispatcher():
    from profiler.catalogue.dispatchers import select_named

    specs, dispatchers = select_named([".."])
    assert dispatchers == [] and len(specs) == len(load_manifest())
    assert [d.name for d in select_named(["..naive", "best"])[1]] == ["best"]


def test_with_predecessors_adds_the_rung_each_kernel_improves_on():
    from profiler.catalogue.manifest import with_predecessors

    by_name = {s.name: s for s in load_manifest()}
    chosen = with_predecessors([by_name["spread128x256x8"], by_name["smem"]])
    assert [s.name for s in chosen] == ["coalesced", "smem", "regbank128x256x8", "spread128x256x8"]
    assert with_predecessors([by_name["naive"]]) == [by_name["naive"]]  # the first rung has none


def test_only_tier_keeps_the_kernels_and_dispatchers_of_that_tier():
    specs, dispatchers = only_tier("fp16", *select_named(None))
    assert specs and {s.tier for s in specs} == {"fp16"}
    assert all(d.tier == "fp16" for d in dispatchers)
    specs, dispatchers = only_tier("fp32", *select_named(None))
    assert "naive" in [s.name for s in specs] and "wgmma" not in [s.name for s in specs]
    assert "best" in [d.name for d in dispatchers]


def test_no_tier_keeps_everything():
    specs, dispatchers = select_named(["naive..smem", "best"])
    assert only_tier(None, specs, dispatchers) == (specs, dispatchers)


def test_a_tier_the_selection_lacks_is_an_error():
    with pytest.raises(GemmprofError, match="no fp32-tc kernel among the selection"):
        only_tier("fp32-tc", *select_named(["naive..smem"]))


@pytest.mark.parametrize("sms", [114, 132, 148])
def test_persistent_and_split_grids_follow_the_gpus_sm_count(sms):
    """The SM count is the GPU's (SMS), never a number in the manifest: a persistent grid is one
    block an SM, a split-K grid stops splitting at about one block an SM, and a cooperative
    launch never asks for more blocks than that on a GPU of fewer SMs."""
    specs = {s.name: s for s in load_manifest()}
    assert specs["streamk128x256x8"].launch(8192, 8192, 8192, sms).grid[0] == sms
    assert specs["tailsk128x256x8"].launch(8192, 8192, 8192, sms).grid[0] == sms
    split = specs["splitk128x256x8rs"].launch(256, 256, 65536, sms)  # two 128x256 tiles, a long K
    assert split.cooperative and split.grid[2] == min(64, sms // 2)
