#!/usr/bin/env bash
# Issue 11 on the device, one call: a kernel of the user's own, outside kernels/, brought in with
# --manifest: scaffolded by `gemmprof new` into a temporary folder, its manifest edited as a user
# would (predecessor: the built-in rung `coalesced`), then built, verified and timed against
# cuBLAS beside its predecessor, profiled, and reported (its own page, the predecessor's delta).
# Then the Python API on the GPU (gemmprof.bench / gemmprof.profile). Output under $OUT:
# own-kernel.log and own-run.tgz (the run with its report).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-reports/own-out}
WORK=$(mktemp -d)
MINE="$WORK/mine" RUNS="$WORK/runs"
mkdir -p "$OUT_DIR" "$RUNS"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 COLUMNS=${COLUMNS:-160}
export GEMMPROF_CACHE_DIR=${GEMMPROF_CACHE_DIR:-$WORK/cache}
status=0
step() { echo; echo "=== $* ($(date +%T))"; }
exec > >(tee "$OUT_DIR/own-kernel.log") 2>&1
step "gemmprof new tile32 --dir $MINE, predecessor set to coalesced"
python3 -m profiler new tile32 --dir "$MINE" || status=1
sed -i 's/^idea = .*/&\npredecessor = "coalesced"/' "$MINE/tile32.toml"
cat "$MINE/tile32.toml"
step "build, bench (with its predecessor and cuBLAS), profile, report"
python3 -m profiler build --manifest "$MINE/tile32.toml" -k tile32 || status=1
python3 -m profiler bench --manifest "$MINE/tile32.toml" -k tile32 -k coalesced --sizes 1024,2048 \
    --max-seconds 0.5 --out "$RUNS" --run-id own || status=1
python3 -m profiler profile --manifest "$MINE/tile32.toml" -k tile32 -k coalesced --size 2048 --xz \
    --out "$RUNS" --run-id own || status=1
python3 -m profiler report "$RUNS/own" --manifest "$MINE/tile32.toml" -o "$RUNS/own/report" || status=1
ls "$RUNS/own/report"
grep -o "coalesced[^<]*" "$RUNS/own/report/tile32.md" | head -5
python3 - "$RUNS/own/report/diagnosis.json" <<'PY' || status=1
import json, sys
d = {k["kernel"]: k for k in json.load(open(sys.argv[1]))["kernels"]}
mine = d["tile32"]
print({k: mine.get(k) for k in ("kernel", "status", "gflops", "pct_cublas", "bound", "cause", "predecessor")})
assert mine.get("status", "PASS") == "PASS", mine
PY
step "the Python API on the GPU"
# `import gemmprof` is profiler/api/ under its installed name; a checkout on PYTHONPATH has no
# such name, so link it.
mkdir -p "$WORK/api" && ln -s "$PWD/profiler/api" "$WORK/api/gemmprof"
PYTHONPATH="$WORK/api:$PYTHONPATH" python3 - "$RUNS" <<'PY' || status=1
import sys
import gemmprof
r = gemmprof.bench(kernel=["vectorized"], sizes="1024", out=sys.argv[1], run_id="api-bench", max_seconds=0.3)
print(r.bench[["kernel", "M", "status", "gflops", "pct_of_cublas"]].to_string(index=False))
p = gemmprof.profile(kernel=["vectorized"], size=1024, out=sys.argv[1], run_id="api-profile")
print([(d.name, d.verdict.cause if d.verdict else None) for d in p.diagnose().kernels])
PY
tar -czf "$OUT_DIR/own-run.tgz" -C "$RUNS" --exclude=extract own "$MINE" 2>/dev/null || tar -czf "$OUT_DIR/own-run.tgz" -C "$RUNS" --exclude=extract own
echo "own kernel finished (status $status)"
exit $status
