"""The manifest: every kernel entry valid, launch geometry and contracts as declared."""

import pytest

from profiler.errors import GemmprofError
from profiler.expressions import evaluate
from profiler.manifest import load_manifest, select_kernels
from profiler.manifest_parse import parse_manifest

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


@pytest.mark.parametrize("expr,value", [("cdiv(M, 32)", 32), ("cdiv(N, 128) * 2", 16), ("max(M, K) // 8", 256), (7, 7)])
def test_evaluate(expr, value):
    assert evaluate(expr, 1000, 1000, 2048) == value


@pytest.mark.parametrize("expr", ["__import__('os')", "M ** 2", "open('x')", "M if N else K"])
def test_evaluate_rejects_anything_but_arithmetic(expr):
    with pytest.raises(ValueError):
        evaluate(expr, 1, 1, 1)


def test_contract_reason_names_the_dimension():
    spec = next(s for s in load_manifest() if s.contract)
    dim, mult = next(iter(spec.contract.items()))
    shape = {d: mult * 4 for d in "MNK"}
    shape[dim] = mult * 4 + 1
    reason = spec.unsupported_reason(shape["M"], shape["N"], shape["K"])
    assert reason and f"{dim}={mult * 4 + 1}" in reason
    assert spec.unsupported_reason(*(spec.contract.get(d, 1) * 8 for d in "MNK")) is None


BASE = """
[[kernel]]
name = "a"
file = "01_naive.cu"
entry = "sgemm_naive"
tier = "fp32"
idea = "x"
grid = ["cdiv(M, 32)"]
block = [32]
"""


@pytest.mark.parametrize(
    "text,fragment",
    [
        (BASE.replace('tier = "fp32"', 'tier = "fp64"'), "tier must be"),
        (BASE.replace('idea = "x"\n', ""), "missing"),
        (BASE + 'colour = "red"\n', "unknown keys"),
        (BASE + BASE, "duplicate"),
        (BASE.replace('["cdiv(M, 32)"]', '["cdiv(M, Q)"]'), "bad launch expression"),
        (BASE + 'predecessor = "zz"\n', "predecessor"),
        ("[[kernel]\nname=", "not valid TOML"),
    ],
)
def test_bad_manifest_is_one_clear_error(text, fragment):
    with pytest.raises(GemmprofError, match=fragment):
        parse_manifest(text)


def test_unknown_kernel_lists_the_choices():
    with pytest.raises(GemmprofError) as exc:
        select_kernels(["vectorised"])
    assert "vectorized" in str(exc.value)


def test_spec_survives_the_trip_to_a_child_process():
    """Workers and ncu targets get the spec as JSON (tuples become lists) and rebuild it."""
    import json
    from dataclasses import asdict

    from profiler.kernel_spec import KernelSpec

    for spec in load_manifest():
        again = KernelSpec.from_dict(json.loads(json.dumps(asdict(spec))))
        assert again == spec
        assert again.launch(1536, 512, 2048) == spec.launch(1536, 512, 2048)


def test_reference_tiers_of_a_selection():
    from profiler.dispatchers import load_dispatchers
    from profiler.manifest import reference_tiers, select_kernels

    assert reference_tiers([]) == ["fp32"]
    assert reference_tiers(select_kernels(["naive", "smem"])) == ["fp32"]
    assert reference_tiers(select_kernels(["naive", "wgmma"])) == ["fp16", "fp32"]
    assert reference_tiers(select_kernels(["wgmma"])) == ["fp16"]
    assert reference_tiers(list(load_dispatchers())) == sorted({d.tier for d in load_dispatchers()})


# --- hostile manifests: one line naming the kernel, never a traceback (issue 12) -----------------

_ENTRY = '[[kernel]]\nname = "x"\nfile = "x.cu"\nentry = "x"\ntier = "fp32"\nidea = "i"\nblock = [256]\n'


@pytest.mark.parametrize("grid, fragment", [
    ('["cdiv(M, 32"]', "was never closed"),
    ('["' + " + ".join(["M"] * 1500) + '"]', "at most 400"),
    ('["' + "(" * 30 + "M" + ")" * 30 + '"]', "parentheses deep"),
    ('["M // 0"]', "divides by zero"),
    ('["cdiv(M, 0)"]', "divides by zero"),
    ('["min()"]', "cannot be evaluated"),
    ("5", "grid must be list of expr"),
    ('["M ** 9"]', "unsupported expression"),
])
def test_bad_expressions_are_one_line_naming_the_kernel(grid, fragment):
    from profiler.manifest_parse import parse_manifest

    with pytest.raises(GemmprofError) as caught:
        parse_manifest(_ENTRY + f"grid = {grid}\n")
    message = str(caught.value)
    assert fragment in message and message.startswith("ladder.toml: x:") and "\n" not in message


def test_a_dispatch_rule_dividing_by_zero_names_dispatcher_and_kernel():
    from profiler.dispatchers import DispatchRule, Dispatcher, parse_dispatchers
    from profiler.manifest import load_manifest

    kernels = load_manifest()
    text = '[[dispatch]]\nname = "b"\ntier = "fp32"\nidea = "i"\nrules = [{kernel = "naive", when = "K // (M - 1024)"}]\n'
    with pytest.raises(GemmprofError, match=r"dispatch b: rule for naive: bad condition: .* divides by zero"):
        parse_dispatchers(text, kernels)
    # a condition that is fine at 1024 but divides by zero at another shape: caught when choosing
    d = Dispatcher("b", "fp32", "i", (DispatchRule("naive", "K // (M - 512)"),))
    with pytest.raises(GemmprofError, match="dispatch b: rule for naive: .* divides by zero at M=512"):
        d.choose(512, 512, 512, {s.name: s for s in kernels})


@pytest.mark.parametrize("text", ["kernel = 5", "kernel = [1, 2]", "[kernel]\nname = 'x'"])
def test_kernel_must_be_an_array_of_tables(text):
    from profiler.manifest_parse import parse_manifest

    with pytest.raises(GemmprofError, match="array of tables"):
        parse_manifest(text)
