"""What `gemmprof profile` of one kernel costs beyond ncu itself: pairs of runs, the profile and
a replay of its exact ncu command by hand (`bare_ncu.py`'s way), their order alternating so that
neither always runs on a machine the other warmed. Prints each pair, the medians, and where the
profile's time beyond ncu went (its run.json's phases; "startup" is the process's time before
the profile workflow starts and after it ends: imports, argument parsing, exit).

    python benchmarks/profile_overhead.py [KERNEL] [SIZE] [PAIRS]      # vectorized 2048 6
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


def main(kernel: str = "vectorized", size: str = "2048", pairs: str = "6") -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    ours, theirs, phases = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        profile(kernel, int(size), out, "warm-up", env)  # ncu's and the driver's first start, left out
        for i in range(int(pairs)):
            if i % 2 == 0:
                p = profile(kernel, int(size), out, f"p{i}", env)
                b = bare(out / f"p{i}", out, env)
            else:
                first = out / "warm-up"
                b = bare(first, out, env)
                p = profile(kernel, int(size), out, f"p{i}", env)
            ours.append(p)
            theirs.append(b)
            phases.append(_phases(out / f"p{i}", p))
            print(f"pair {i}: gemmprof profile {p:.2f} s, bare ncu {b:.2f} s ({100 * (p / b - 1):+.1f}%)", flush=True)
    mp, mb = statistics.median(ours), statistics.median(theirs)
    print(f"median of {pairs}: gemmprof profile {mp:.2f} s, bare ncu {mb:.2f} s: {mp / mb:.3f}x")
    print("the profile's phases, median s: " + ", ".join(
        f"{name} {statistics.median(p[name] for p in phases):.2f}" for name in phases[0]))


def _phases(run: Path, process_s: float) -> dict:
    """The profile workflow's phases (run.json), ncu's own wall time, and the process's time
    outside the workflow."""
    meta = json.loads((run / "run.json").read_text())
    workflow = meta["profile_wall_s"]
    return {"startup": process_s - workflow, "ncu": meta["ncu_wall_s"], **meta["profile_phases_s"]}


if __name__ == "__main__":
    main(*sys.argv[1:])
