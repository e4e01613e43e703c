"""Run a target under Nsight Compute: the command line, progress from ncu's output, and errors a
user can act on.

Clock control defaults to `none`: the card is measured at the clocks it runs (ncu would otherwise
lock them at base, 1.5 GHz instead of 1.98 GHz on the H200, and on shared machines it must not
touch them at all).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Exit, GemmprofError
from ..tools import NCU_ENV, find_ncu

# The protocol with the target (`measure.target`, the program ncu runs): the NVTX range that holds
# the one launch profiled, and the prefix of the JSON line the target prints for its parent.
NVTX_OUTER = "gp"
TARGET_PREFIX = "GEMMPROF_TARGET "

CLOCK_CONTROLS = ("none", "base", "reset")


@dataclass
class NcuOptions:
    ncu: Path
    section_set: str = "full"
    clock_control: str = "none"
    import_source: bool = True
    extra_metrics: list[str] = field(default_factory=list)
    timeline: bool = False  # the PM-sampling sections, warp states over time included (`TIMELINE_SECTIONS`)


# What `--timeline` adds: ncu's PM sampling (the pipes and memory over the launch, already in the
# full set) and its warp-state sampling over the launch.
TIMELINE_SECTIONS = ("PmSampling", "PmSampling_WarpStates")


def resolve_ncu(explicit: str | None) -> Path:
    exe = find_ncu(explicit)
    if exe is None:
        from ..paths import KIND_WORDS, path_kind

        given = explicit or os.environ.get(NCU_ENV)  # the place named, where one was (find_ncu's order)
        kind = path_kind(Path(given)) if given else None
        where = ("ncu is not on PATH" if not given else f"{given} does not exist" if kind == "missing"
                 else f"{given} is {KIND_WORDS[kind]}")
        raise GemmprofError(f"Nsight Compute not found: {where}", f"pass --ncu /path/to/ncu or set {NCU_ENV}",
                            exit_code=Exit.NO_NCU)
    return exe


def lock_per_gpu(env: dict[str, str], gpu: str) -> dict[str, str]:
    """`env` with ncu's lock file kept per GPU. ncu serialises profiling host-wide through one
    file, $TMPDIR/nsight-compute-lock, so jobs on two GPUs wait on each other's replay passes (two
    H200s at once: ncu's time per kernel +12%). Jobs on one GPU must still take turns (they would
    share its counters); jobs on different GPUs need not. So each GPU (`gpu`: its UUID, else its
    pin) gets a TMPDIR of its own, this user's only; where that folder cannot be ours, the
    host-wide lock stays."""
    from ..names import slug

    folder = Path(tempfile.gettempdir()) / f"gemmprof-ncu-{os.getuid()}-{slug(gpu)}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        owned = folder.lstat().st_uid == os.getuid() and folder.is_dir() and not folder.is_symlink()
    except OSError:
        owned = False
    if owned:
        env["TMPDIR"] = str(folder)
    return env


def _head(opts: NcuOptions) -> list[str]:
    """What every profiling run passes: the set, clocks, source, NVTX state, child processes."""
    sections = [arg for name in TIMELINE_SECTIONS for arg in ("--section", name)] if opts.timeline else []
    return [str(opts.ncu), "--set", opts.section_set, *sections, "--clock-control", opts.clock_control,
            "--import-source", "yes" if opts.import_source else "no", "--nvtx", "--target-processes", "all"]


def _tail(opts: NcuOptions, report_base: Path) -> list[str]:
    cmd = ["--export", str(report_base), "--force-overwrite"]
    if opts.extra_metrics:
        cmd += ["--metrics", ",".join(opts.extra_metrics)]
    return cmd


def ncu_command(opts: NcuOptions, report_base: Path, target_argv: list[str]) -> list[str]:
    """gemmprof's own target: only the launch inside the NVTX range 'gp' is profiled."""
    return _head(opts) + ["--nvtx-include", f"{NVTX_OUTER}/"] + _tail(opts, report_base) + target_argv


# ncu's --replay-mode values (ncu --help): kernel replays each launch, application reruns the
# program once per pass, range/app-range profile NVTX or cudaProfilerStart/Stop ranges as a whole.
REPLAY_MODES = ("kernel", "application", "range", "app-range")


@dataclass(frozen=True)
class Filters:
    """Which launches of a program ncu profiles (all of them when empty)."""

    nvtx_include: tuple[str, ...] = ()
    kernel_regex: str | None = None
    launch_skip: int | None = None
    launch_count: int | None = None
    replay_mode: str | None = None

    @property
    def narrows(self) -> bool:
        """True when the filters bound the number of launches (what the launch-count guard asks);
        --launch-skip alone does not."""
        return bool(self.nvtx_include or self.kernel_regex or self.launch_count)

    def describe(self) -> str:
        """The filters as the options that set them, for messages."""
        parts = [f"--nvtx-include {n!r}" for n in self.nvtx_include]
        if self.kernel_regex:
            parts.append(f"-k {self.kernel_regex!r}")
        if self.launch_skip:
            parts.append(f"--launch-skip {self.launch_skip}")
        if self.launch_count:
            parts.append(f"--launch-count {self.launch_count}")
        return " ".join(parts) or "no filter"

    def arguments(self) -> list[str]:
        out: list[str] = []
        for name in self.nvtx_include:
            out += ["--nvtx-include", name]
        if self.kernel_regex:
            out += ["--kernel-name", f"regex:{self.kernel_regex}"]
        if self.launch_skip:
            out += ["--launch-skip", str(self.launch_skip)]
        if self.launch_count:
            out += ["--launch-count", str(self.launch_count)]
        if self.replay_mode:
            out += ["--replay-mode", self.replay_mode]
        return out


def program_command(opts: NcuOptions, filters: Filters, report_base: Path, argv: list[str]) -> list[str]:
    """Any program under ncu: the user's filters instead of gemmprof's NVTX range."""
    return _head(opts) + filters.arguments() + _tail(opts, report_base) + list(argv)


def counting_command(ncu: Path, argv: list[str]) -> list[str]:
    """The cheapest ncu run that still names every launch: one launch-configuration metric (no
    hardware counter, one pass), no cache flush, no report. Used to price a profile before it
    starts."""
    from ..metrics import METRICS

    grid = next(m.ncu for m in METRICS if m.column == "grid_x")
    return [str(ncu), "--metrics", grid, "--clock-control", "none", "--cache-control", "none",
            "--target-processes", "all", *argv]


def target_argv(job: str) -> list[str]:
    return [sys.executable, "-m", "profiler.measure.target", "--job", job]


# One line per profiled launch: '==PROF== Profiling "name" - 0: 0%....100% - 38 passes' ('1 pass'
# when one suffices; the tail goes missing when a warning interrupts the line, the launch still counts).
_PROFILING_START = '==PROF== Profiling "'
_PROFILING = re.compile(r'==PROF== Profiling "(?P<kernel>[^"]+)"(?:.*?(?P<passes>\d+) pass(?:es)?\b)?')


@dataclass
class NcuResult:
    returncode: int
    lines: list[str]
    target: dict | None  # what the target printed about itself (verification status)
    kernels: list[tuple[str, int]]  # (kernel, replay passes) as ncu reported them


def run_ncu(cmd: list[str], env: dict, on_kernel: Callable[[str, int], None] | None = None,
            on_line: Callable[[str], None] | None = None, target_output: bool = True,
            cwd: Path | None = None, on_replay: Callable[[], None] | None = None) -> NcuResult:
    """Run ncu, stream its output, and collect the profiled kernels and the target's JSON line
    (`target_output`: only gemmprof's own target prints one; a program's lines are its own).
    `on_replay`: called once, when ncu starts to replay the first kernel it profiles (its line
    begins; the passes end it), for side work that would otherwise slow the target's start: from
    there on the GPU works and the target waits.
    Interrupted (Ctrl-C, SIGTERM), ncu is asked to stop first, so it can end the program and
    write what it has, and killed only if it does not within STOP_GRACE_S."""
    import json

    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=cwd)
    lines: list[str] = []
    kernels: list[tuple[str, int]] = []
    target = None
    replaying = []

    def seen(text: str) -> None:
        if on_replay and not replaying and text.startswith(_PROFILING_START):
            replaying.append(True)
            on_replay()

    try:
        for line in output_lines(proc.stdout, on_partial=seen):
            seen(line)
            lines.append(line)
            if on_line:
                on_line(line)
            if target_output and line.startswith(TARGET_PREFIX):
                target = json.loads(line[len(TARGET_PREFIX):])
            elif m := _PROFILING.search(line):
                passes = int(m["passes"] or 0)
                kernels.append((m["kernel"], passes))
                if on_kernel:
                    on_kernel(m["kernel"], passes)
        code = proc.wait()
    except BaseException:
        stop(proc)
        raise
    return NcuResult(code, lines, target, kernels)


def output_lines(stream, on_partial: Callable[[str], None]):
    """The lines of a byte stream as they complete, decoded (ended by \\n, \\r\\n or \\r, as a
    program's progress bar ends them); `on_partial` sees the start (PARTIAL_BYTES) of a line
    that has not ended yet (ncu prints a kernel's name, then a dot every few replay passes, then
    the count)."""
    pending = bytearray()  # grows in place: a long line costs its length, not its length squared
    while chunk := os.read(stream.fileno(), 1 << 16):
        ends = b"\n" in chunk or b"\r" in chunk or pending.endswith(b"\r")  # else nothing to split
        pending += chunk
        if ends:
            *done, last = _LINE_END.split(pending)
            pending = bytearray(last)
            for raw in done:
                yield raw.decode(errors="replace")
        if pending and pending != b"\r":  # (a \r can only be its last byte, held back)
            on_partial(pending[:PARTIAL_BYTES].decode(errors="replace"))
    if pending and pending != b"\r":
        yield pending.rstrip(b"\r").decode(errors="replace")


# A \r at the end of what has arrived may be the first half of \r\n: it waits for the next chunk.
_LINE_END = re.compile(rb"\r\n|\r(?!\Z)|\n")
# How much of an unfinished line `on_partial` sees: a program's line that never ends is not
# decoded again with every chunk.
PARTIAL_BYTES = 256


STOP_GRACE_S = 10.0


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL after STOP_GRACE_S."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


_APP_EXIT = re.compile(r"==ERROR== The application returned an error code \((?P<code>-?\d+)\)")


def program_exit_code(result: NcuResult) -> int | None:
    """The profiled program's exit code: ncu prints it when it is not 0 (and exits with it);
    0 when ncu itself succeeded; None when neither says (ncu failed on its own)."""
    for line in reversed(result.lines):
        if m := _APP_EXIT.search(line):
            return int(m["code"])
    return 0 if result.returncode == 0 else None


def counters_refused(result: NcuResult, timing_only: bool = True) -> GemmprofError | None:
    """The one-line error for ERR_NVGPUCTRPERM (the counters are root's), else None.
    `timing_only`: suggest `profile --timing-only` (the ladder has it; a program does not)."""
    if any("ERR_NVGPUCTRPERM" in line for line in result.lines):
        return GemmprofError(
            "ncu may not read the GPU performance counters here (ERR_NVGPUCTRPERM)",
            "run as root or ask the admin to load the driver with NVreg_RestrictProfilingToAdminUsers=0"
            + ("; or time without counters: gemmprof profile --timing-only" if timing_only else ""),
        )
    return None


def failure(result: NcuResult, what: str) -> GemmprofError | None:
    """The one-line error for a failed ncu run, or None when it profiled something."""
    tail = "\n".join(l for l in result.lines[-8:] if l.strip())
    if refused := counters_refused(result):
        return refused
    if result.returncode == 0 and not result.kernels:
        return GemmprofError(f"ncu profiled no kernel for {what}: the NVTX filter '{NVTX_OUTER}/' matched nothing",
                             f"the target must launch inside the '{NVTX_OUTER}' range; ncu said:\n{tail}")
    if result.returncode != 0:
        return GemmprofError(f"ncu failed for {what} (exit code {result.returncode}); its last lines:\n{tail}")
    return None
