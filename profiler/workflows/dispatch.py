"""The dispatch workflow: a dispatcher (ordered rules over M, N, K and the GPU's SM count) derived
from a bench sweep, as a `[[dispatch]]` entry for the manifest; and that entry written into
kernels/ladder.toml, checked before and after."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from ..catalogue.dispatchers import DEFAULT_MAX_RULES, DEFAULT_TOLERANCE
from ..errors import GemmprofError

AUTO = "auto"  # --tolerance auto: chosen by cross-validation
# --objective: what a rule must do to be taken (analyze.dispatch: each rule's kernel within tolerance
# of the fastest at every shape it claims; analyze.dispatch_geomean: the largest rise of the
# sweep's geometric mean)
OBJECTIVES = ("tolerance", "geomean")


@dataclass(frozen=True)
class DispatchOptions:
    """The run with the sweep, the dispatcher's name and tier, how rules are chosen (`objective`,
    OBJECTIVES), how close to the fastest a rule's kernel must be under "tolerance" (0.03 = 3%;
    "auto": chosen by cross-validation on the derivation shapes, `analyze.dispatch_tolerance`),
    at most how many rules; and where the rules are validated: a second sweep (`validate`, shapes
    they never saw), or the share of the run's own shapes held out of the derivation (`hold_out`,
    split by `seed`)."""

    run_dir: Path
    name: str = "best"
    tier: str = "fp32"
    tolerance: float | str = DEFAULT_TOLERANCE
    max_rules: int = DEFAULT_MAX_RULES
    objective: str = OBJECTIVES[0]
    validate: Path | None = None
    hold_out: float = 0.0
    seed: int = 0


@dataclass(frozen=True)
class DispatchResult:
    """The fastest kernel per shape (`winners`), what the rules choose there (`chosen`), the
    rules, their manifest entry, the GPU and SM count they were derived for, and the kernel of
    the last rule's contract when it has one (shapes outside it get no kernel)."""

    winners: object  # DataFrame
    chosen: object  # DataFrame indexed by M, N, K
    rules: list
    entry: str
    gpu: str
    sms: int
    uncovered: str | None = None
    fit: object = None  # analyze.dispatch.Scored: the rules on the shapes they were derived from
    validation: object = None  # ... on the validation shapes (None: no validation asked for)
    validated_on: str = ""  # which shapes: the second run, or the held-out share of this one
    tolerance: float = DEFAULT_TOLERANCE  # the one the rules were derived with
    tolerance_pick: object = None  # analyze.dispatch_tolerance.TolerancePick, with --tolerance auto


def dispatch(options: DispatchOptions) -> DispatchResult:
    """Derive the rules of `options` from its run's bench table."""
    from ..analyze.dispatch import derive_rules, fastest_per_shape, predicted, render_toml, score, share_of_best, split_shapes
    from ..analyze.dispatch_geomean import derive_geomean_rules
    from ..analyze.dispatch_tolerance import choose_tolerance
    from ..catalogue.dispatchers import load_dispatchers
    from ..catalogue.dispatchers import DEFAULT_SMS
    from ..catalogue.manifest import load_manifest
    from ..paths import check_in_path
    from ..runs.rundir import RunDir

    _check(options)
    tier, tolerance = options.tier, tolerance_of(options.tolerance)
    run = RunDir(check_in_path(options.run_dir, "folder"))
    meta = run.meta()
    kernels = {s.name: s for s in load_manifest()}
    bench = run.read_table("bench")
    held = None
    if options.hold_out:
        bench, held = split_shapes(bench, options.hold_out, options.seed)
        if bench.empty or held.empty:
            raise GemmprofError(f"--hold-out {options.hold_out} leaves no shapes on one side of {options.run_dir}",
                                "hold out a share nearer 0.5, or give the sweep more shapes")
    elif options.validate is not None:
        held = RunDir(check_in_path(options.validate, "folder")).read_table("bench")
    winners = fastest_per_shape(bench, kernels, tier)
    if winners.empty:
        raise GemmprofError(f"no {tier} kernel passed at any shape in {options.run_dir}",
                            "bench the ladder first: gemmprof bench --sizes 256..8192")
    environment = meta.get("environment") if isinstance(meta.get("environment"), dict) else {}  # run.json is data: any shape
    sms = environment.get("sm_count")
    sms = int(sms) if isinstance(sms, (int, float)) and sms > 0 else DEFAULT_SMS
    try:
        pick = choose_tolerance(bench, kernels, tier, sms, options.max_rules) if tolerance == AUTO else None
        tolerance = pick.tolerance if pick else tolerance
        if options.objective == "geomean":
            rules = derive_geomean_rules(bench, kernels, tier, sms, options.max_rules)
        else:
            rules = derive_rules(bench, kernels, tier, sms, tolerance, options.max_rules)
    except ValueError as exc:
        raise GemmprofError(f"cannot derive rules from {options.run_dir}: {exc}") from None
    chosen = predicted(share_of_best(bench, kernels, tier), rules, kernels, sms).set_index(["M", "N", "K"])
    gpu = environment.get("gpu_name", "unknown GPU")
    kept = next((d for d in load_dispatchers() if d.name == options.name and d.tier == tier), None)  # its `ahead` rules stay
    entry = render_toml(options.name, tier, rules, str(options.run_dir),
                        f"fastest passing {tier} kernel by shape and SM count, from a sweep on the {gpu}"
                        + (", each rule the one that raised the sweep's geometric mean most" if options.objective == "geomean" else ""),
                        tolerance,
                        kept.ahead if kept else (), kept.ahead_from if kept else "")
    last = kernels[rules[-1].kernel]
    validation = score(rules, held, kernels, tier, sms) if held is not None else None
    if validation is not None and validation.rows.empty:
        raise GemmprofError(f"no {tier} kernel passed at any shape of the validation sweep {options.validate}")
    where = (f"{options.hold_out:.0%} of the shapes held out, seed {options.seed}" if options.hold_out
             else str(options.validate) if options.validate is not None else "")
    return DispatchResult(winners, chosen, rules, entry, environment.get("gpu_name", "?"), sms,
                          uncovered=f"{last.name}'s {last.contract}" if last.contract else None,
                          fit=score(rules, bench, kernels, tier, sms), validation=validation, validated_on=where,
                          tolerance=tolerance, tolerance_pick=pick)


def tolerance_of(value: float | str) -> float | str:
    """--tolerance as a fraction in [0, 1), or AUTO; a number given as text (the command line's)
    is read as one. Anything else is a one-line error."""
    if isinstance(value, str) and value.strip().lower() == AUTO:
        return AUTO
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not 0 <= number < 1:
        raise GemmprofError(f"--tolerance must be a fraction in [0, 1), e.g. 0.03, or auto; not {value!r}")
    return number


def _check(options: DispatchOptions) -> None:
    """The options' values, each wrong one a one-line error."""
    from ..catalogue.manifest import TIERS

    if options.tier not in TIERS:
        raise GemmprofError(f"--tier must be one of {', '.join(TIERS)}")
    tolerance = tolerance_of(options.tolerance)
    if options.objective not in OBJECTIVES:
        raise GemmprofError(f"--objective must be one of {', '.join(OBJECTIVES)}, not {options.objective!r}")
    if options.objective == "geomean" and tolerance != DEFAULT_TOLERANCE:
        raise GemmprofError("--tolerance is the tolerance objective's: drop it with --objective geomean")
    if not 0 <= options.hold_out < 1 or (options.hold_out and options.validate is not None):
        raise GemmprofError("--hold-out must be a fraction in [0, 1), e.g. 0.5, and not given with --validate")


def write_entry(name: str, tier: str, entry: str) -> Path:
    """Replace (or add) the dispatcher `name` in kernels/ladder.toml with `entry`; the manifest is
    refused before it is touched, and put back if what is on disk then is not a valid manifest.
    Returns the manifest's path."""
    from ..analyze.dispatch import replace_entry
    from ..catalogue.dispatchers import check_manifest_text, clear_caches, load_dispatchers
    from ..catalogue.kernel_paths import MANIFEST_PATH
    from ..outdir import writing
    from ..runs.rundir import write_atomic

    clash = next((d for d in load_dispatchers() if d.name == name and d.tier != tier), None)
    if clash is not None:  # replacing it would silently swap an fp32 dispatcher for an fp16 one
        raise GemmprofError(f"the manifest's dispatcher {name!r} chooses among {clash.tier} kernels, not {tier}",
                            f"give this one its own name: --name {name}-{tier}")
    old = MANIFEST_PATH.read_text()
    new = replace_entry(old, name, entry)
    check_manifest_text(new, MANIFEST_PATH.name)  # refused before the file is touched
    with writing(MANIFEST_PATH):
        write_atomic(MANIFEST_PATH, new)
    try:  # what is on disk now, read afresh (no cache), must be a valid manifest
        check_manifest_text(MANIFEST_PATH.read_text(), MANIFEST_PATH.name)
    except GemmprofError:
        write_atomic(MANIFEST_PATH, old)
        raise
    clear_caches(kernels=False)  # the kernels did not change
    return MANIFEST_PATH
