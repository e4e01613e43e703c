"""Replay the exact ncu commands a `gemmprof profile` run recorded, by hand, and compare wall
times: what gemmprof adds on top of ncu (build, verification bookkeeping, extraction, tables).

    python benchmarks/bare_ncu.py reports/<run-id>
    python benchmarks/bare_ncu.py --wall reports/<run-id>    # only the run's own wall time and phases
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main(run: Path) -> None:
    records = [json.loads(line) for line in (run / "profile.jsonl").read_text().splitlines()]
    meta = json.loads((run / "run.json").read_text())
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    total = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for rec in records:
            cmd = list(rec["ncu_command"])
            cmd[cmd.index("--export") + 1] = str(Path(tmp) / rec["kernel"])
            t0 = time.perf_counter()
            subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            total += time.perf_counter() - t0
    ours = meta["profile_wall_s"]
    print(f"bare ncu, same {len(records)} commands by hand: {total:.1f} s; gemmprof profile: {ours:.1f} s "
          f"(+{100 * (ours / total - 1):.1f}%)")


def wall(run: Path) -> None:
    """The profile run's wall time and phases, as run.json recorded them (no replay)."""
    meta = json.loads((run / "run.json").read_text())
    print(f"gemmprof profile: {meta['profile_wall_s']:.1f} s, phases {meta['profile_phases_s']}")


if __name__ == "__main__":
    if sys.argv[1] == "--wall":
        wall(Path(sys.argv[2]))
    else:
        main(Path(sys.argv[1]))
