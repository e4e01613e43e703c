"""`gemmprof dispatch`: derive a dispatcher (rules over M, N, K and SMS) from a bench sweep, for the manifest."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..catalogue.dispatchers import DEFAULT_MAX_RULES, DEFAULT_TOLERANCE
from ._options import ManifestOption


def dispatch(
    run_dir: Annotated[Path, typer.Argument(help="A run directory with a bench sweep (several sizes).")],
    name: Annotated[str, typer.Option(help="Name of the dispatcher.")] = "best",
    tier: Annotated[str, typer.Option(help="Which kernels it chooses among: fp32 or fp16.")] = "fp32",
    write: Annotated[bool, typer.Option("--write", help="Replace (or add) the entry in kernels/ladder.toml instead of only printing it.")] = False,
    tolerance: Annotated[float, typer.Option(help="A rule may send a sweep shape only to a kernel at least this close to the fastest there (0.03 = 3%); recorded in the entry when not the default.")] = DEFAULT_TOLERANCE,
    max_rules: Annotated[int, typer.Option(min=1, help="At most this many rules, the last taking any shape: fewer read more easily, too few send some shapes to a slower kernel (the table shows which).")] = DEFAULT_MAX_RULES,
    manifest: ManifestOption = None,
) -> None:
    """Derive dispatch rules from a sweep (e.g. `gemmprof bench --suite default`): an ordered list
    of readable conditions over M, N, K and the GPU's SM count (SMS), the last one taking any shape.

    Prints the fastest kernel per shape, what the rules choose there (rule and share of the
    fastest), and a `[[dispatch]]` entry for kernels/ladder.toml (`--write` puts it there); then
    `gemmprof bench -k best` times the dispatcher like any kernel. SMS is the run's GPU's.
    Kernels are ranked by their share of the cuBLAS run paired with each row (GFLOP/s where a row
    has none): rows are timed minutes apart, and the GPU's speed drifts between them.
    """
    from ..analyze.dispatch import derive_rules, fastest_per_shape, predicted, render_toml, replace_entry, share_of_best
    from ..errors import GemmprofError
    from ..catalogue.dispatchers import DEFAULT_SMS, check_manifest_text, clear_caches, load_dispatchers
    from ..catalogue.kernel_paths import MANIFEST_PATH
    from ..catalogue.manifest import TIERS, load_manifest
    from ..render.console import dispatch_table, make_console
    from ..outdir import writing
    from ..paths import check_in_path
    from ..runs.rundir import RunDir, write_atomic

    if tier not in TIERS:
        raise GemmprofError(f"--tier must be one of {', '.join(TIERS)}")
    if not 0 <= tolerance < 1:
        raise GemmprofError("--tolerance must be a fraction in [0, 1), e.g. 0.03")
    run = RunDir(check_in_path(run_dir, "folder"))
    meta = run.meta()
    kernels = {s.name: s for s in load_manifest()}
    winners = fastest_per_shape(run.read_table("bench"), kernels, tier)
    if winners.empty:
        raise GemmprofError(f"no {tier} kernel passed at any shape in {run_dir}", "bench the ladder first: gemmprof bench --sizes 256..8192")
    environment = meta.get("environment") if isinstance(meta.get("environment"), dict) else {}  # run.json is data: any shape
    sms = environment.get("sm_count")
    sms = int(sms) if isinstance(sms, (int, float)) and sms > 0 else DEFAULT_SMS
    try:
        rules = derive_rules(run.read_table("bench"), kernels, tier, sms, tolerance, max_rules)
    except ValueError as exc:
        raise GemmprofError(f"cannot derive rules from {run_dir}: {exc}") from None
    chosen = predicted(share_of_best(run.read_table("bench"), kernels, tier), rules, kernels, sms).set_index(["M", "N", "K"])
    table = dispatch_table(winners, chosen, f"fastest {tier} kernel per shape ({environment.get('gpu_name', '?')}, {sms} SMs)")
    console = make_console()
    console.print(table)
    gpu = environment.get("gpu_name", "unknown GPU")
    entry = render_toml(name, tier, rules, str(run_dir), f"fastest passing {tier} kernel by shape and SM count, from a sweep on the {gpu}", tolerance)
    console.print(entry, markup=False, highlight=False, soft_wrap=True)  # TOML to paste: lines kept whole
    if kernels[rules[-1].kernel].contract:
        console.print(f"note: no {tier} kernel without a contract: shapes outside {rules[-1].kernel}'s "
                      f"{kernels[rules[-1].kernel].contract} get no kernel from this dispatcher", markup=False, highlight=False)
    if write:
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
        console.print(f"wrote the [[dispatch]] entry {name!r} into {MANIFEST_PATH}", markup=False)
