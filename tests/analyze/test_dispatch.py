"""Rules derived from a sweep (profiler.analyze.dispatch): one rule per run of wins, a fallback, the
committed rules reproduced, the manifest entry rendered and replaced."""

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.paths import DATA
from profiler.analyze.dispatch import derive_rules, fastest_per_shape, predicted, render_toml, share_of_best
from profiler.catalogue.dispatchers import DispatchRule, Dispatcher, load_dispatchers, parse_dispatchers
from profiler.errors import GemmprofError
from profiler.catalogue.expressions import evaluate
from profiler.catalogue.manifest import load_manifest

SWEEPS = DATA / "sweeps-h100"  # real H100 sweeps of the FP32 candidates (README there)

KERNELS = {s.name: s for s in load_manifest()}


def bench_frame(rows):
    return pd.DataFrame([{"kernel": k, "M": n, "N": n, "K": n, "status": s, "gflops": g} for k, n, s, g in rows])


def test_fastest_per_shape_ignores_failures_cublas_and_other_tiers():
    b = bench_frame([("cublas", 512, "PASS", 9e9), ("smem", 512, "PASS", 5.0), ("warptile", 512, "FAIL", 99.0),
                     ("naive", 512, "PASS", 1.0), ("wmma", 512, "PASS", 50.0)])
    w = fastest_per_shape(b, KERNELS)
    assert list(w["kernel"]) == ["smem"] and list(w["runner_up"]) == ["naive"]


def test_derive_rules_one_rule_per_run_of_wins_and_a_fallback_for_any_shape():
    b = bench_frame([("smem", 256, "PASS", 3.0), ("warptile", 256, "PASS", 2.0),
                     ("smem", 1024, "PASS", 3.0), ("warptile", 1024, "PASS", 9.0),
                     ("smem", 4096, "PASS", 3.0), ("warptile", 4096, "PASS", 9.0)])
    rules = derive_rules(b, KERNELS)
    assert len(rules) == 2 and rules[0].kernel == "warptile" and rules[1] == DispatchRule("smem", 1)
    d = Dispatcher("d", "fp32", "x", rules)
    assert [d.choose(n, n, n, KERNELS).name for n in (256, 1024, 4096)] == ["smem", "warptile", "warptile"]


def test_a_fallback_is_added_when_the_smallest_winner_has_a_contract():
    b = bench_frame([("warptile", 256, "PASS", 9.0), ("smem", 256, "PASS", 3.0)])
    rules = derive_rules(b, KERNELS)
    assert rules == (DispatchRule("warptile", 1), DispatchRule("smem", 1))


def test_committed_best_is_what_its_sweep_derives():
    """The manifest's rules must be the ones gemmprof derives from the run they cite (rules
    written by hand cite none)."""
    from profiler.runs.rundir import REPO_ROOT, RunDir

    for d in load_dispatchers():
        if not d.derived_from:
            continue
        run = RunDir(REPO_ROOT / d.derived_from)
        sms = run.meta()["environment"]["sm_count"]
        assert derive_rules(run.read_table("bench"), KERNELS, d.tier, sms, d.tolerance) == d.rules


def test_render_toml_round_trips_through_the_parser():
    rules = (DispatchRule("warptile", "M * N * K >= 1"), DispatchRule("smem", 1))
    (d,) = parse_dispatchers(render_toml("fast", "fp32", rules, "somewhere", "idea"), load_manifest())
    assert d.rules == rules and d.name == "fast" and d.tolerance == 0.03
    text = render_toml("fast", "fp32", rules, "somewhere", "idea", tolerance=0.05)
    assert "tolerance = 0.05" in text and parse_dispatchers(text, load_manifest())[0].tolerance == 0.05


@pytest.mark.parametrize("bad", ["1.5", "-0.1", '"5%"', "true"])
def test_a_dispatcher_tolerance_outside_0_to_1_is_a_one_line_error(bad):
    text = render_toml("fast", "fp32", (DispatchRule("smem", 1),), "somewhere", "idea").replace(
        'derived_from = "somewhere"', f'derived_from = "somewhere"\ntolerance = {bad}')
    with pytest.raises(GemmprofError, match="tolerance must be a fraction"):
        parse_dispatchers(text, load_manifest())


def test_replace_entry_swaps_only_the_named_dispatcher():
    from profiler.analyze.dispatch import replace_entry
    from profiler.catalogue.kernel_paths import MANIFEST_PATH

    text = MANIFEST_PATH.read_text()
    entry = render_toml("best", "fp32", (DispatchRule("smem", 1),), "reports/x", "test")
    replaced = replace_entry(text, "best", entry)
    (best,) = [d for d in parse_dispatchers(replaced, load_manifest()) if d.name == "best"]
    assert best.rules == (DispatchRule("smem", 1),) and best.derived_from == "reports/x"
    assert replaced.split("[[dispatch]]")[0] == text.split("[[dispatch]]")[0]  # the kernels untouched
    added = replace_entry(text, "fast", render_toml("fast", "fp32", (DispatchRule("naive", 1),), "r", "t"))
    assert {d.name for d in parse_dispatchers(added, load_manifest())} == {d.name for d in load_dispatchers()} | {"fast"}


def test_replace_entry_keeps_the_comments_that_introduce_the_next_entry():
    from profiler.analyze.dispatch import replace_entry

    text = ('[[dispatch]]\nname = "a"\ntier = "fp32"\nidea = "x"\nrules = [{kernel = "naive"}]\n\n'
            '# b: why its rules are what they are\n[[dispatch]]\nname = "b"\ntier = "fp32"\nidea = "y"\nrules = [{kernel = "smem"}]\n')
    out = replace_entry(text, "a", render_toml("a", "fp32", (DispatchRule("smem", 1),), "r", "t"))
    assert "\n# b: why its rules are what they are\n[[dispatch]]\nname = \"b\"" in out
    assert {d.name: d.rules for d in parse_dispatchers(out, load_manifest())} == {
        "a": (DispatchRule("smem", 1),), "b": (DispatchRule("smem", 1),)}


# --- rules over M, N, K and the GPU's SM count ------------------------------------------------


def rect_frame(rows):
    return pd.DataFrame([{"kernel": k, "M": m, "N": n, "K": kk, "status": "PASS", "gflops": g} for k, (m, n, kk), g in rows])


def test_kernels_are_ranked_by_their_paired_cublas_share_not_by_gflops():
    """Two rows timed while the GPU ran at different speeds: by GFLOP/s splitk64x64x8rs looks
    faster, but against the cuBLAS run paired with each row splitk64x64x8 is (the numbers of
    shapes-suite-14 at 32768x64x1024); without a pairing on every row, GFLOP/s decides."""
    shape = (32768, 64, 1024)
    paired = rect_frame([("splitk64x64x8rs", shape, 35200.0), ("splitk64x64x8", shape, 34500.0)])
    paired["pct_of_cublas"] = [87.8, 90.5]
    assert fastest_per_shape(paired, KERNELS).iloc[0]["kernel"] == "splitk64x64x8"
    share = share_of_best(paired, KERNELS)
    assert share.at[shape, "splitk64x64x8"] == 1.0
    assert share.at[shape, "splitk64x64x8rs"] == pytest.approx(87.8 / 90.5)
    paired.loc[0, "pct_of_cublas"] = float("nan")
    assert fastest_per_shape(paired, KERNELS).iloc[0]["kernel"] == "splitk64x64x8rs"


def test_derived_rules_send_small_grids_to_small_tiles_by_sm_count():
    shapes = [(512, 512, 512), (1024, 1024, 1024), (1000, 1000, 1000), (4096, 4096, 4096), (4095, 4095, 4095), (8192, 8192, 8192)]
    small = {s for s in shapes if -(-s[0] // 128) * -(-s[1] // 128) <= 132}
    rows = []
    for s in shapes:
        rows += [("ragged64x64x8", s, 10.0 if s in small else 5.0), ("ragged128x128x8", s, 6.0 if s in small else 9.0)]
    rows += [("spread128x256x8", (4096, 4096, 4096), 12.0), ("spread128x256x8", (8192, 8192, 8192), 12.0)]
    bench = rect_frame(rows)
    rules = derive_rules(bench, KERNELS, sms=132)
    d = Dispatcher("d", "fp32", "x", rules)
    for s in shapes:  # every sweep shape goes to its fastest kernel
        best = max((g, k) for k, sh, g in rows if sh == s)[1]
        assert d.choose(*s, KERNELS, sms=132).name == best, (s, rules)
    assert not KERNELS[rules[-1].kernel].contract and rules[-1].when == 1  # no contract gap
    assert any("SMS" in str(r.when) for r in rules), rules


def test_a_rule_never_claims_a_shape_where_its_kernel_is_clearly_slower():
    bench = rect_frame([("ragged128x128x8", (1024, 1024, 1024), 10.0), ("ragged64x64x8", (1024, 1024, 1024), 9.0),
                        ("ragged128x128x8", (2048, 2048, 2048), 8.0), ("ragged64x64x8", (2048, 2048, 2048), 10.0)])
    share = share_of_best(bench, KERNELS)
    rules = derive_rules(bench, KERNELS, tolerance=0.03)
    chosen = predicted(share, rules, KERNELS)
    assert list(chosen["share_of_best"]) == [1.0, 1.0], rules


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["ragged128x128x8", "ragged64x64x8", "splitk128x128x8", "spread128x256x8", "texld128x128x8"]),
                          st.sampled_from([(512, 512, 512), (1000, 1000, 1000), (1024, 1024, 8192), (4096, 4096, 512),
                                           (4095, 4095, 4095), (8192, 8192, 8192), (256, 1024, 16384)]),
                          st.floats(1.0, 100.0)), min_size=1, max_size=30),
       st.sampled_from([16, 78, 132]))
def test_derived_rules_take_every_shape_and_end_without_a_contract(rows, sms):
    rules = derive_rules(rect_frame(rows), KERNELS, sms=sms)
    assert rules[-1].when == 1 and not KERNELS[rules[-1].kernel].contract
    d = Dispatcher("d", "fp32", "x", rules)
    for shape in [(1, 1, 1), (7, 4097, 33), (65536, 3, 5), *[s for _, s, _ in rows]]:
        assert d.choose(*shape, KERNELS, sms=sms) is not None


def test_committed_rules_reach_97_percent_of_the_fastest_at_every_shape_of_their_sweep():
    """On the committed H100 suite run, the rules in the manifest send every shape to a kernel
    within 3% of the fastest measured there (caps of 8 and 12 rules sent 2048^3 to a kernel at
    80% of the fastest there)."""
    from profiler.runs.rundir import REPO_ROOT, RunDir

    (best,) = [d for d in load_dispatchers() if d.name == "best"]
    run = RunDir(REPO_ROOT / best.derived_from)
    share = share_of_best(run.read_table("bench"), KERNELS, best.tier)
    chosen = predicted(share, best.rules, KERNELS, run.meta()["environment"]["sm_count"])
    assert len(chosen) == 37
    assert not chosen["share_of_best"].isna().any(), chosen.to_string()  # every rule's kernel was measured there
    low = chosen[chosen["share_of_best"] < 0.97]
    assert low.empty, low.to_string()
    # 2048^3: a rung of 16x8 results a thread (caps of 8 and 12 rules sent it to a 128x128 one at 80%)
    assert chosen.set_index(["M", "N", "K"]).at[(2048, 2048, 2048), "kernel"] in {
        "spread128x256x8", "ragged128x256x8", "splitk128x256x8rs", "splitk256x128x8rs"}


def test_tall_skinny_shapes_are_told_apart_from_squarer_ones_of_the_same_volume_and_tile_count():
    # Same volume, tile count and K/max(M, N): only the short side separates them.
    shapes = [(512, 4096, 4096), (16384, 128, 4096), (128, 16384, 4096)]
    rows = []
    for s in shapes:
        square = s == shapes[0]
        rows += [("texld128x128x8", s, 10.0 if square else 8.0), ("ragged128x128x8", s, 9.0 if square else 10.0)]
    rules = derive_rules(rect_frame(rows), KERNELS, sms=132)
    d = Dispatcher("d", "fp32", "x", rules)
    assert [d.choose(*s, KERNELS, sms=132).name for s in shapes] == ["texld128x128x8", "ragged128x128x8", "ragged128x128x8"], rules
    assert any("min(M, N)" in str(r.when) for r in rules), rules


def test_a_partly_empty_last_wave_goes_to_stream_k():
    """Large squares whose volumes interleave: stream-K wins only where the last wave of 128x256
    tiles is at most 3/4 full on 132 SMs (2500^3: 200 tiles = 1.52 waves; 3000^3: 288 = 2.18;
    5000^3: 800 = 6.06), one block per tile where it is nearly full (2816^3: 242 = 1.83; 4096^3:
    512 = 3.88): one wave rule says it, where volume or tile-count rules would need one each."""
    shapes = [(2500, 2500, 2500), (2816, 2816, 2816), (3000, 3000, 3000), (4096, 4096, 4096), (5000, 5000, 5000)]
    quantised = {s for s in shapes if evaluate("0 < cdiv(M, 128) * cdiv(N, 256) % SMS <= 3 * SMS // 4", *s, 132)}
    assert quantised == {(2500, 2500, 2500), (3000, 3000, 3000), (5000, 5000, 5000)}
    rows = []
    for s in shapes:
        rows += [("streamk128x128x8", s, 10.0 if s in quantised else 7.0), ("ragged128x256x8", s, 8.0 if s in quantised else 10.0)]
    rules = derive_rules(rect_frame(rows), KERNELS, sms=132)
    d = Dispatcher("d", "fp32", "x", rules)
    assert [d.choose(*s, KERNELS, sms=132).name for s in shapes] == [
        "streamk128x128x8" if s in quantised else "ragged128x256x8" for s in shapes], rules
    assert any("% SMS" in str(r.when) for r in rules) and len(rules) == 2, rules


def test_shapes_only_a_fallback_can_take_go_to_the_last_rule_not_to_a_size_rule():
    """FP16: the TMA rungs need N, K multiples of 8; at 1023^3 and 2500^3 only the slow
    contract-free rung runs. A rule sending it there by size would, at an aligned shape of the
    same size the sweep lacked, pick it over the TMA rung; the fallback goes last instead."""
    aligned = [(4096, 4096, 4096), (8192, 8192, 8192)]
    odd = [(1023, 1023, 1023), (1500, 1500, 1500), (2500, 2500, 2500), (4095, 4095, 4095)]
    rows = [("wgmma_persist128", s, 100.0) for s in aligned] + [("wmma_ragged", s, 10.0) for s in aligned + odd]
    rules = derive_rules(rect_frame(rows), KERNELS, tier="fp16", sms=132)
    assert rules[-1] == DispatchRule("wmma_ragged", 1) and all(r.kernel != "wmma_ragged" for r in rules[:-1]), rules
    d = Dispatcher("d", "fp16", "x", rules)
    assert d.choose(2560, 2560, 2560, KERNELS, sms=132).name == "wgmma_persist128"  # aligned, unseen
    assert d.choose(2500, 2500, 2500, KERNELS, sms=132).name == "wmma_ragged"


def test_shapes_only_free_kernels_take_are_split_among_them_by_size_after_the_bound_rules():
    """FP16 with the staging rungs: at 1023^3 the 128-wide one wins, at 2500^3 and 4095^3 the
    256-wide one. Rules among them come after the unconditional bound rule, so an aligned shape
    of any size still goes to the TMA rung."""
    aligned = [(4096, 4096, 4096), (8192, 8192, 8192)]
    small_odd, large_odd = [(1023, 1023, 1023)], [(2500, 2500, 2500), (4095, 4095, 4095)]
    rows = ([("wgmma_persist128", s, 100.0) for s in aligned] + [("wgmma_staged", s, 90.0) for s in aligned]
            + [("wgmma_staged128", s, 80.0) for s in aligned]
            + [("wgmma_staged", s, 50.0) for s in small_odd] + [("wgmma_staged128", s, 80.0) for s in small_odd]
            + [("wgmma_staged", s, 90.0) for s in large_odd] + [("wgmma_staged128", s, 70.0) for s in large_odd])
    rules = derive_rules(rect_frame(rows), KERNELS, tier="fp16", sms=132)
    d = Dispatcher("d", "fp16", "x", rules)
    assert [d.choose(*s, KERNELS, sms=132).name for s in aligned + small_odd + large_odd] == [
        "wgmma_persist128", "wgmma_persist128", "wgmma_staged128", "wgmma_staged", "wgmma_staged"], rules
    assert d.choose(16384, 16384, 16384, KERNELS, sms=132).name == "wgmma_persist128"  # aligned, unseen
    assert rules[-1].when == 1 and rules[-2].when != 1 and rules[-3] == DispatchRule("wgmma_persist128", 1), rules


def test_a_winner_no_one_condition_isolates_gets_a_rule_of_two_conditions():
    """The H100 sweep shapes-suite-4: once the first rules have taken their shapes, no single
    condition holds at 2048^3 (the 128x256 rung's) without a shape where that rung is far behind
    (1024x1024x8192 has the same volume); without conjunctions the derivation stopped and sent
    2048^3 to splitk64x64x8 at 77% of the fastest. With them every shape gets a kernel within 3%."""
    from profiler.runs.rundir import RunDir

    run = RunDir(SWEEPS / "shapes-suite-4")
    rules = derive_rules(run.read_table("bench"), KERNELS, "fp32", 132)
    assert any(" and " in str(r.when) for r in rules), rules
    share = share_of_best(run.read_table("bench"), KERNELS, "fp32")
    chosen = predicted(share, rules, KERNELS, 132)
    assert (chosen["share_of_best"] >= 0.97).all(), chosen.to_string()
    assert chosen.set_index(["M", "N", "K"]).at[(2048, 2048, 2048), "kernel"] == "ragged128x256x8"


def test_pairs_are_conjunctions_that_hold_somewhere():
    from profiler.analyze.dispatch import _pairs

    single = [("A", 0b0011), ("B", 0b0110), ("C", 0b1000)]
    assert _pairs(single) == [("A and B", 0b0010)]


def test_the_default_cap_keeps_every_shape_of_a_ten_candidate_sweep_within_tolerance():
    """shapes-suite-9 (H100, ten FP32 candidates): ranked by GFLOP/s, 14 rules ran out before
    2048^3 and the last one sent it to streamk128x128x8 at 79% of the fastest; the default cap
    derives rules that keep every shape within 3% of the fastest."""
    from profiler.catalogue.dispatchers import DEFAULT_MAX_RULES
    from profiler.runs.rundir import RunDir

    run = RunDir(SWEEPS / "shapes-suite-9")
    bench, sms = run.read_table("bench"), run.meta()["environment"]["sm_count"]
    share = share_of_best(bench, KERNELS, "fp32")
    rules = derive_rules(bench, KERNELS, "fp32", sms)
    assert len(rules) <= DEFAULT_MAX_RULES
    assert predicted(share, rules, KERNELS, sms)["share_of_best"].min() >= 0.97


def test_ahead_rules_are_tried_first_and_survive_a_rewrite():
    """`ahead` rules (a regime the sweep never timed) come before the derived ones, and
    `dispatch --write` keeps them when it replaces the derived rules."""
    rules = (DispatchRule("smem", 1),)
    ahead = (DispatchRule("warptile", "M <= 64"),)
    text = render_toml("fast", "fp32", rules, "somewhere", "idea", ahead=ahead, ahead_from="a run")
    (d,) = parse_dispatchers(text, load_manifest())
    assert d.rules == rules and d.ahead == ahead and d.ahead_from == "a run"
    kernels = {s.name: s for s in load_manifest()}
    assert d.choose(32, 1024, 1024, kernels).name == "warptile"
    assert d.choose(256, 1024, 1024, kernels).name == "smem"
    assert d.reason(0) == "rule 1: M <= 64" and d.reason(1) == "rule 2: always"


def test_rules_score_their_own_sweep_at_its_best_and_no_better():
    """`score` on the sweep the rules came from: every shape measured, the chosen kernel's % of
    cuBLAS at most the fastest's there, and the minimum at the shape it names."""
    from profiler.analyze.dispatch import score
    from profiler.runs.rundir import RunDir

    bench = RunDir(SWEEPS / "shapes-suite-9").read_table("bench")
    rules = derive_rules(bench, KERNELS, "fp32", 132)
    s = score(rules, bench, KERNELS, "fp32", 132)
    assert s.unmeasured == 0 and len(s.rows) == bench[["M", "N", "K"]].drop_duplicates().shape[0]
    assert (s.rows["pct"] <= s.rows["best_pct"] + 1e-9).all()
    assert s.geomean_pct <= s.best_geomean_pct + 1e-9
    low = s.rows.set_index(["M", "N", "K"]).loc[s.min_shape, "pct"]
    assert low == s.min_pct == s.rows["pct"].min()


def test_a_split_is_by_shape_and_seed_and_keeps_every_row():
    from profiler.analyze.dispatch import split_shapes
    from profiler.runs.rundir import RunDir

    bench = RunDir(SWEEPS / "shapes-suite-9").read_table("bench")
    derive, validate = split_shapes(bench, 0.5, seed=1)
    assert len(derive) + len(validate) == len(bench)
    shapes = lambda frame: set(zip(frame["M"], frame["N"], frame["K"]))  # noqa: E731
    assert not shapes(derive) & shapes(validate) and shapes(derive) and shapes(validate)
    again, _ = split_shapes(bench.iloc[::-1], 0.5, seed=1)
    assert shapes(again) == shapes(derive)
    assert shapes(split_shapes(bench, 0.5, seed=2)[0]) != shapes(derive)
    with pytest.raises(ValueError):
        split_shapes(bench, 1.0)
