"""How fast does gemmprof read a report, against a bare loop over ncu_report?

    python benchmarks/extract_speed.py REPORT.ncu-rep [--repeat 3] [--cycle N]

Prints (1) metric values per second of a bare Python loop over ncu_report (open each launch,
read every metric's name, value and unit) and of `tables.metrics` (the same values into a
DataFrame), best of --repeat runs each, and their ratio (the target is at least 2/3); (2) the
time of `kernels` + `rules` + `source` (+ `sass`) in one pass, per launch and extrapolated to
1,000 launches (the target is under 10 s). Both sides read a report opened fresh each run, after
one warm-up pass, so that ncu_report's one-time costs fall on neither.

A report of many launches takes long to capture; `--cycle N` estimates from a small one by
reading its launches over and over, N launches in all, in one process (the per-kernel caches then
hit as they do for repeated kernels; worker processes, used from 96 launches on, are not).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# ncu_report before pandas: the copy bundled with ncu 2025.3 crashes when numpy came first.
from profiler.extract.ncu_reader import import_ncu_report, open_report  # noqa: E402

import_ncu_report()
from profiler.extract import tables  # noqa: E402


def bare_loop(path: str) -> int:
    """The baseline: every metric of every launch through ncu_report's public API."""
    count = 0
    with open_report(path) as report:
        for launch in report.launches():
            action = launch.action
            for name in action.metric_names():
                metric = action.metric_by_name(name)
                metric.value()
                metric.unit()
                count += 1
    return count


class Cycled:
    """A report whose launches are the given report's, read over and over to `count` in all."""

    def __init__(self, report, count: int):
        self.report, self.count = report, count
        self.name, self.path, self.local_path = report.name, report.path, report.local_path

    def __len__(self) -> int:
        return self.count

    def launches(self, start: int = 0, stop: int | None = None):
        from profiler.extract.ncu_reader import ReportLaunch

        context = self.report._require()
        profile_range = context.range_by_idx(0)
        actions = profile_range.num_actions()
        for i in range(start, self.count if stop is None else stop):
            yield ReportLaunch(i, profile_range.action_by_idx(i % actions))


def cycled_rates(path: str, count: int) -> None:
    from profiler.extract.rows import read_rows

    with open_report(path) as report:
        fake = Cycled(report, count)

        def bare() -> int:
            n = 0
            for launch in fake.launches():
                for name in launch.action.metric_names():
                    metric = launch.action.metric_by_name(name)
                    metric.value()
                    metric.unit()
                    n += 1
            return n

        def ours(names: list[str]):
            return tables.frames(read_rows(fake, names), names)

        ours(["kernels", "rules", "source", "sass", "metrics"])  # warm-up: one-time costs
        bare_s, values = best_of(1, bare)
        ours_s, _ = best_of(1, ours, ["metrics"])
        krs_s, _ = best_of(1, ours, ["kernels", "rules", "source"])
    print(f"cycled: {count} launches of {path}, one process")
    print(f"bare ncu_report loop : {values / bare_s:12,.0f} values/s")
    print(f"tables.metrics       : {values / ours_s:12,.0f} values/s  (ratio {bare_s / ours_s:.2f}, target >= 0.67)")
    print(f"kernels+rules+source : {krs_s / count * 1e3:.2f} ms/launch, {krs_s / count * 1000:.1f} s per 1,000 launches "
          "in one process (target < 10 s)")


RUNS: dict[str, list[float]] = {}  # every run's seconds, by what was timed: printed at the end


def best_of(repeat: int, fn, *args):
    """Best time of `repeat` runs (this machine's timings spread by up to ~30% run to run)."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn(*args)
        times.append(time.perf_counter() - start)
    RUNS.setdefault(f"{getattr(fn, '__name__', fn)}{list(args[1:]) if len(args) > 1 else ''}", []).extend(times)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cycle", type=int, default=0, help="also estimate N launches by re-reading this report's")
    args = parser.parse_args()
    path = args.report

    with open_report(path) as report:
        launches = len(report)
    # Warm-up: ncu_report loads libraries and disassembles once per process.
    tables.read_tables(path, tables.TABLES)
    bare_loop(path)

    bare_s, values = best_of(args.repeat, bare_loop, path)
    ours_s, frame = best_of(args.repeat, tables.metrics, path)
    assert len(frame) == values, (len(frame), values)
    bare_rate, ours_rate = values / bare_s, values / ours_s
    print(f"report: {path} ({launches} launches, {values} metric values)")
    print(f"bare ncu_report loop : {bare_rate:12,.0f} values/s  ({bare_s:.3f} s)")
    print(f"tables.metrics       : {ours_rate:12,.0f} values/s  ({ours_s:.3f} s)")
    print(f"ratio ours/bare      : {ours_rate / bare_rate:12.2f}   (target >= 0.67)")

    names = ["kernels", "rules", "source"]
    krs_s, _ = best_of(args.repeat, tables.read_tables, path, names)
    all_s, _ = best_of(args.repeat, tables.read_tables, path, names + ["sass"])
    for label, seconds in (("kernels+rules+source", krs_s), ("kernels+rules+source+sass", all_s)):
        per_launch = seconds / launches
        print(
            f"{label:26s}: {seconds:.3f} s, {per_launch * 1e3:.2f} ms/launch, "
            f"{per_launch * 1000:.2f} s per 1,000 launches (target < 10 s)"
        )
    if launches < 100:
        print("(below ~100 launches the one-time cost of opening the report dominates: see --cycle)")
    if args.cycle:
        cycled_rates(path, args.cycle)
    for what, times in RUNS.items():
        print(f"runs of {what}: " + ", ".join(f"{t:.2f}" for t in times) + " s")


if __name__ == "__main__":
    main()
