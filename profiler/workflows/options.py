"""What the options records of the workflows share: the fan-out over GPUs (`--gpus`,
`--mixed-gpus`, `--scheduler`, `--shared-dir` on bench and profile) and turning it into a plan;
where a run goes; what a profile under ncu is asked; and building a record from named values
(a command's parameters, a notebook call's keywords)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

from ..errors import GemmprofError


@dataclass(frozen=True)
class FanoutOptions:
    """Where the jobs run: one worker per GPU of `gpus` ('all' or '0,1'), or the workers of an
    existing Dask `scheduler`; `shared_dir`, a folder every host sees, for the reports."""

    gpus: str | None = None
    mixed_gpus: bool = False
    scheduler: str | None = None
    shared_dir: Path | None = None

    def plan(self):
        """The `profiler.fanout.fan.Plan`; None when no option asks for a fan-out (the workflow
        runs as it always has)."""
        from ..fanout.gpus import check_one_model, list_gpus, parse_gpus

        if self.gpus is None and self.scheduler is None:
            if self.shared_dir is not None:
                raise GemmprofError("--shared-dir applies with --gpus or --scheduler only")
            return None
        from ..fanout.fan import Plan
        from ..paths import check_out_dir

        if self.shared_dir is not None:
            check_out_dir(self.shared_dir, "--shared-dir")
        chosen = parse_gpus(self.gpus or "all", list_gpus()) if self.gpus is not None or self.scheduler is None else []
        check_one_model(chosen, self.mixed_gpus)
        plan = Plan(chosen, scheduler=self.scheduler, shared_dir=str(self.shared_dir) if self.shared_dir else None)
        if plan.dask:
            from ..fanout.cluster import require_distributed

            require_distributed()
        return plan


@dataclass(frozen=True)
class RunOptions:
    """Where a measuring workflow writes its run directory: `out`/`run_id` (a new date-time-gpu
    name by default; an existing run is extended)."""

    out: Path = Path("reports")
    run_id: str | None = None


@dataclass(frozen=True)
class NcuRunOptions(RunOptions):
    """What a profile under Nsight Compute is asked, of the ladder or of a program: the kernels
    (names; of a program, regexes on its kernels' names), ncu's section set and clock control,
    warp-state sampling over each launch, which ncu, whether finished reports are redone and
    stored xz-compressed."""

    kernel: list[str] | None = None
    section_set: str = "full"
    timeline: bool = False
    clock_control: str = "none"
    ncu: str | None = None
    force: bool = False
    compress: bool = False


def record_of(record: type, values: dict):
    """`record` made of the entries of `values` that name one of its fields (a command's
    parameters hold more: --manifest, read before the command runs), each as its field takes it:
    one item where a list is wanted (`kernel="naive"`, as a notebook writes it), a list where a
    tuple is (`mnk=[M, N, K]`), a string where a path is."""
    kinds = {f.name: str(f.type) for f in fields(record)}
    return record(**{name: _as_field(kinds[name], value) for name, value in values.items() if name in kinds})


def _as_field(kind: str, value):
    """`value` as a field annotated `kind` (the annotation's text) takes it."""
    if value is None:
        return None
    if kind.startswith("list[") and isinstance(value, (str, int, float)):
        return [value]
    if kind.startswith("tuple[") and isinstance(value, list):
        return tuple(value)
    if kind.startswith("Path") and isinstance(value, str):
        return Path(value)
    return value


def check_names(record: type, values: dict, caller: str) -> None:
    """A name in `values` that is no field of `record` (a misspelt keyword) is a one-line error."""
    names = [f.name for f in fields(record)]
    unknown = sorted(set(values) - set(names))
    if unknown:
        raise GemmprofError(f"{caller} takes no {', '.join(unknown)}", "its options are " + ", ".join(names))
