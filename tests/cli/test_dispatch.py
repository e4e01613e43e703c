"""`gemmprof dispatch` end to end on the sample run: the printed entry, and --write's tier guard."""

from typer.testing import CliRunner

from helpers.paths import DATA, SAMPLE_RUN
from profiler.cli import app
from profiler.catalogue.dispatchers import parse_dispatchers
from profiler.errors import GemmprofError
from profiler.catalogue.manifest import load_manifest


def test_dispatch_command_prints_the_manifest_entry():
    result = CliRunner().invoke(app, ["dispatch", str(SAMPLE_RUN)])
    assert result.exit_code == 0, result.output
    assert "[[dispatch]]" in result.output and 'kernel = "spread128x256x8"' in result.output
    assert "4096x4096x4096" in result.output


def test_write_refuses_to_replace_a_dispatcher_of_another_tier(monkeypatch, tmp_path):
    import profiler.cli.dispatch  # noqa: F401  (the command reads MANIFEST_PATH from kernel_paths)
    import profiler.catalogue.dispatchers as dispatchers
    import profiler.catalogue.kernel_paths as kernel_paths

    copy = tmp_path / "ladder.toml"
    copy.write_text(kernel_paths.MANIFEST_PATH.read_text())
    monkeypatch.setattr(kernel_paths, "MANIFEST_PATH", copy)
    monkeypatch.setattr(dispatchers, "load_dispatchers", lambda path=copy: parse_dispatchers(copy.read_text(), load_manifest()))
    before = copy.read_text()
    result = CliRunner().invoke(app, ["dispatch", str(SAMPLE_RUN), "--tier", "fp16", "--write"])
    assert isinstance(result.exception, GemmprofError) and "--name best-fp16" in result.exception.hint
    assert copy.read_text() == before  # nothing written
    result = CliRunner().invoke(app, ["dispatch", str(SAMPLE_RUN), "--tier", "fp16", "--name", "best-fp16", "--write"])
    assert result.exit_code == 0, result.output
    assert {d.tier for d in parse_dispatchers(copy.read_text(), load_manifest()) if d.name == "best-fp16"} == {"fp16"}


def test_the_printed_entry_pastes_back_whole_at_a_narrow_terminal():
    """Long conditions (conjunctions) stay on one line at 60 columns: the printed TOML parses back
    to the rules derived, so it can be pasted into a manifest. (shapes-suite-4's rules hold a
    conjunction wider than 60 columns: the H100 sweep that first needed one.)"""
    from profiler.analyze.dispatch import derive_rules
    from profiler.runs.rundir import RunDir

    run = RunDir(DATA / "sweeps-h100" / "shapes-suite-4")
    result = CliRunner(env={"COLUMNS": "60"}).invoke(app, ["dispatch", str(run.path)])
    assert result.exit_code == 0, result.output
    text = result.output[result.output.index("[[dispatch]]"):]
    text = text[: text.index("\n]\n", text.index("rules = [")) + 3]  # past `ahead`, kept as it is
    (printed,) = parse_dispatchers(text, load_manifest())
    assert any(" and " in str(r.when) for r in printed.rules)
    kernels = {s.name: s for s in load_manifest()}
    assert printed.rules == derive_rules(run.read_table("bench"), kernels, "fp32", run.meta()["environment"]["sm_count"])


def test_hold_out_prints_the_rules_scored_and_refuses_write():
    sweep = str(DATA / "sweeps-h100" / "shapes-suite-9")
    result = CliRunner().invoke(app, ["dispatch", sweep, "--hold-out", "0.5", "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert "the rules, scored" in result.output and "validation" in result.output
    result = CliRunner().invoke(app, ["dispatch", sweep, "--hold-out", "0.5", "--write"])
    assert isinstance(result.exception, GemmprofError) and "drop --hold-out" in str(result.exception)


def test_tolerance_auto_prints_each_candidate_and_a_bad_value_is_one_line():
    result = CliRunner().invoke(app, ["dispatch", str(SAMPLE_RUN), "--tolerance", "auto"])
    assert result.exit_code == 0, result.output
    assert "--tolerance auto" in result.output and "chosen" in result.output and "[[dispatch]]" in result.output
    result = CliRunner().invoke(app, ["dispatch", str(SAMPLE_RUN), "--tolerance", "3%"])
    assert isinstance(result.exception, GemmprofError) and "'3%'" in str(result.exception)


def test_objective_geomean_scores_its_rules_and_a_wrong_pairing_is_one_line():
    sweep = str(DATA / "sweeps-h100" / "shapes-suite-9")
    result = CliRunner().invoke(app, ["dispatch", sweep, "--objective", "geomean", "--hold-out", "0.5"])
    assert result.exit_code == 0, result.output
    assert "geometric mean most" in result.output and "validation" in result.output
    for args, words in ((["--objective", "mean"], "--objective must be one of"),
                        (["--objective", "geomean", "--tolerance", "auto"], "drop it with --objective geomean")):
        result = CliRunner().invoke(app, ["dispatch", sweep, *args])
        assert isinstance(result.exception, GemmprofError) and words in str(result.exception)
