"""What `gemmprof profile` of one kernel costs beyond ncu itself: rounds of runs, the profile and
a replay of its exact ncu command by hand (`bare_ncu.py`'s way), their order rotating so that
neither always runs on a machine the other warmed. Prints each round, the medians, and where the
profile's time beyond ncu went (its run.json's phases; "startup" is the process's time before
the profile workflow starts and after it ends: imports, argument parsing, exit).

    python benchmarks/profile_overhead.py [KERNEL] [SIZE] [PAIRS] [BASELINE]   # vectorized 2048 6

BASELINE, another checkout's root: its `gemmprof profile` runs in every round too, beside this
one's and bare ncu, the three in rotating order, so that a change's effect is measured in one run.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def profile(kernel: str, size: int, out: Path, run_id: str, env: dict) -> float:
    """One `gemmprof profile` process, as a user starts it; its wall time."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "profiler", "profile", "-k", kernel, "--size", str(size), "--out", str(out),
                    "--run-id", run_id], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def bare(run: Path, scratch: Path, env: dict) -> float:
    total = 0.0
    for line in (run / "profile.jsonl").read_text().splitlines():
        cmd = list(json.loads(line)["ncu_command"])
        cmd[cmd.index("--export") + 1] = str(scratch / f"bare-{time.monotonic_ns()}")
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        total += time.perf_counter() - t0
    return total


def main(kernel: str = "vectorized", size: str = "2048", pairs: str = "6", baseline: str | None = None) -> None:
    sides = {"gemmprof profile": REPO, **({"baseline": Path(baseline).resolve()} if baseline else {})}
    times: dict[str, list[float]] = {name: [] for name in [*sides, "bare ncu"]}
    phases: dict[str, list[dict]] = {name: [] for name in sides}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for name, root in sides.items():  # ncu's and the driver's first start, left out
            profile(kernel, int(size), out, f"warm-up-{name.split()[0]}", _env(root))
        first = out / "warm-up-gemmprof"  # bare ncu replays this checkout's command
        order = [*sides, "bare ncu"]
        for i in range(int(pairs)):
            said = []
            for name in order[i % len(order):] + order[:i % len(order)]:  # each side first in turn
                if name == "bare ncu":
                    t = bare(first, out, _env(REPO))
                else:
                    run_id = f"{name.split()[0]}-{i}"
                    t = profile(kernel, int(size), out, run_id, _env(sides[name]))
                    phases[name].append(_phases(out / run_id, t))
                times[name].append(t)
                said.append(f"{name} {t:.2f} s")
            print(f"round {i}: " + ", ".join(said), flush=True)
    bare_median = statistics.median(times["bare ncu"])
    for name in sides:
        median = statistics.median(times[name])
        beyond = statistics.median(p["beyond ncu"] for p in phases[name])
        own_ncu = statistics.median(p["ncu"] for p in phases[name])
        print(f"median of {pairs}: {name} {median:.2f} s, bare ncu {bare_median:.2f} s: {median / bare_median:.3f}x")
        # ncu's own time varies from run to run by more than the profile adds to it (H200: 6.7-9.4 s
        # for one command): the time beyond each profile's own ncu run is the steadier measure
        print(f"  beyond its own ncu: {beyond:.2f} s (bare ncu + that: {(bare_median + beyond) / bare_median:.3f}x); "
              f"its ncu {own_ncu:.2f} s against bare {bare_median:.2f} s")
        print(f"  {name}'s phases, median s: " + ", ".join(
            f"{key} {statistics.median(p[key] for p in phases[name]):.2f}" for key in phases[name][0]))


def _env(root: Path) -> dict:
    """The checkout `root` first on the path, the rest of the path kept (where the dependencies may be)."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH")) if p))


def _phases(run: Path, process_s: float) -> dict:
    """The profile workflow's phases (run.json), ncu's own wall time, and the process's time
    outside the workflow."""
    meta = json.loads((run / "run.json").read_text())
    workflow = meta["profile_wall_s"]
    return {"startup": process_s - workflow, "ncu": meta["ncu_wall_s"], "beyond ncu": process_s - meta["ncu_wall_s"],
            **meta["profile_phases_s"]}


if __name__ == "__main__":
    main(*sys.argv[1:])
