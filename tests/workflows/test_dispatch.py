"""The dispatch workflow (profiler.workflows.dispatch) called as a library on the sample run: the
rules, their entry and what they choose; the entry written into a copy of the manifest."""

import pytest

from helpers.paths import SAMPLE_RUN
from profiler.catalogue.dispatchers import parse_dispatchers
from profiler.catalogue.manifest import load_manifest
from profiler.errors import GemmprofError
from profiler.workflows.dispatch import DispatchOptions, dispatch, write_entry


def test_rules_entry_and_choices_of_the_sample_sweep():
    result = dispatch(DispatchOptions(SAMPLE_RUN))
    assert result.rules and result.sms > 0 and "[[dispatch]]" in result.entry
    (parsed,) = parse_dispatchers(result.entry, load_manifest())
    assert parsed.rules == result.rules and set(result.chosen.index.names) == {"M", "N", "K"}


def test_bad_options_are_one_line():
    with pytest.raises(GemmprofError, match="--tier must be one of"):
        dispatch(DispatchOptions(SAMPLE_RUN, tier="fp64"))
    with pytest.raises(GemmprofError, match="--tolerance must be a fraction"):
        dispatch(DispatchOptions(SAMPLE_RUN, tolerance=1.5))
    with pytest.raises(GemmprofError, match="or auto"):
        dispatch(DispatchOptions(SAMPLE_RUN, tolerance="loose"))


def test_tolerance_auto_derives_with_the_tolerance_it_chose_and_records_it():
    from profiler.analyze.dispatch_tolerance import CANDIDATES

    result = dispatch(DispatchOptions(SAMPLE_RUN, tolerance="auto"))
    assert result.tolerance_pick is not None and result.tolerance == result.tolerance_pick.tolerance in CANDIDATES
    fixed = dispatch(DispatchOptions(SAMPLE_RUN, tolerance=result.tolerance))
    assert fixed.rules == result.rules and fixed.entry == result.entry and fixed.tolerance_pick is None


def test_the_entry_is_written_into_the_manifest(monkeypatch, tmp_path):
    import profiler.catalogue.dispatchers as dispatchers
    import profiler.catalogue.kernel_paths as kernel_paths

    kernels = load_manifest()  # read before the copy stands in: its sources stay beside the original
    copy = tmp_path / "ladder.toml"
    copy.write_text(kernel_paths.MANIFEST_PATH.read_text())
    monkeypatch.setattr(kernel_paths, "MANIFEST_PATH", copy)
    monkeypatch.setattr(dispatchers, "load_dispatchers", lambda path=copy: parse_dispatchers(copy.read_text(), kernels))
    result = dispatch(DispatchOptions(SAMPLE_RUN, name="mine"))
    assert write_entry("mine", "fp32", result.entry) == copy
    assert [d.rules for d in parse_dispatchers(copy.read_text(), kernels) if d.name == "mine"] == [result.rules]


def test_rules_are_scored_on_held_out_shapes_and_on_a_second_sweep():
    """--hold-out derives from part of a sweep and scores on the rest; --validate scores on
    another run; both report the fit beside the validation."""
    from helpers.paths import DATA

    sweep = DATA / "sweeps-h100" / "shapes-suite-9"
    held = dispatch(DispatchOptions(sweep, hold_out=0.5, seed=1))
    shapes = len(held.fit.rows) + len(held.validation.rows)
    assert shapes == 37 and held.validation.min_shape is not None and "seed 1" in held.validated_on
    assert held.validation.geomean_pct <= held.validation.best_geomean_pct
    other = dispatch(DispatchOptions(DATA / "sweeps-h100" / "shapes-suite-4", validate=sweep))
    assert len(other.validation.rows) == 37 and other.validated_on == str(sweep)
    with pytest.raises(GemmprofError, match="--hold-out must be a fraction"):
        dispatch(DispatchOptions(sweep, hold_out=0.5, validate=sweep))
    with pytest.raises(GemmprofError, match="leaves no shapes"):
        dispatch(DispatchOptions(sweep, hold_out=0.99))
