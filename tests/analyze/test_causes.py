"""The one table of causes (profiler.analyze.causes): every key a verdict names, a truth table
accepts or a probe plants is one of its rows'."""

from __future__ import annotations

import tomllib

from helpers.paths import DATA

from profiler.analyze import causes
from profiler.catalogue.kernel_paths import PROBES_MANIFEST
from profiler.catalogue.manifest import load_manifest


def test_every_row_has_keys_a_finder_and_a_meaning():
    for row in causes.TABLE:
        assert row.keys and callable(row.find) and row.meaning
    assert causes.LATENCY[-1].find is causes.sol.latency  # the last stage always gives a verdict


def test_the_probes_and_the_truth_tables_name_only_causes_of_the_table():
    keys = causes.cause_keys()
    assert {s.planted for s in load_manifest(PROBES_MANIFEST)} <= keys
    for name in ("truth.toml", "holdout.toml"):
        table = tomllib.loads((DATA / "foreign-h200" / name).read_text())["case"]
        assert {c for case in table.values() for c in case["causes"]} <= keys, name


def test_the_stages_keep_their_order():
    order = [row.find.__name__ for row in causes.TABLE]
    assert (order.index("no_math") < order.index("tail") < order.index("memory_roof") < order.index("uneven_end")
            < order.index("wasted_math"))
    assert order.index("barrier") < order.index("occupancy") < order.index("narrow_copies") < order.index("math_roof")


def test_a_key_that_shares_its_row_is_told_in_its_own_words():
    """A cause ranked beside a lead is named by its meaning: the latency row's keys each have
    their own, so "close behind" reads "a memory instruction queue full", not "latency, by the
    top stall"; a key of its own row keeps the row's words."""
    assert causes.meaning_of("latency_queue") == "a memory instruction queue full (MIO or LG throttle)"
    assert causes.meaning_of("latency") == "latency, by the top stall"
    for row in causes.TABLE:
        assert {key for key, _ in row.each} <= set(row.keys)
