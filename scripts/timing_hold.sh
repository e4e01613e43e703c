#!/usr/bin/env bash
# The queue hold (profiler/measure/hold.py) measured against timing without it, in one device call:
#   tests  the hold's GPU tests (work queued while held waits; a stuck hold gives up; a tiny
#          kernel behind a slow host times tight)
#   ab     bench of `best` and `best-fp16` at the small shapes whose timings swung between runs,
#          four times in one process order: without, with, without, with the hold
#          (GEMMPROF_TIMING_HOLD=0/1), each row paired with cuBLAS; then one table of median, CV and
#          % of cuBLAS per shape and run, and the holds that timed out.
# Output under $OUT: timing-hold.log, hold-runs.tar.xz (the four run directories).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-reports/timing-hold-out}
mkdir -p "$OUT_DIR" reports
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 COLUMNS=${COLUMNS:-160}
export GEMMPROF_CACHE_DIR=${GEMMPROF_CACHE_DIR:-$(mktemp -d)/cache}
SIZES=${HOLD_SIZES:-256x256x256,512x512x512,768x768x768,1000x1000x1000,1023x1023x1023,1024x1024x1024,2048x2048x64,128x128x65536}
TIMING="--max-seconds 0.25 --min-reps 5 --warmup-seconds 0.05"
status=0
exec > >(tee "$OUT_DIR/timing-hold.log") 2>&1
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks_throttle_reasons.active --format=csv,noheader
echo "######## tests ($(date +%T))"
timeout 120 python3 -m pytest -q -m gpu -p no:cacheprovider tests/measure/test_hold.py || status=1
echo "######## ab ($(date +%T))"
runs=()
for i in 1 2; do
    for held in 0 1; do
        run=hold$held-$i; runs+=("$run"); rm -rf "reports/$run"
        GEMMPROF_TIMING_HOLD=$held timeout 150 python3 -m profiler bench -k best -k best-fp16 --sizes "$SIZES" --no-cublas \
            $TIMING --out reports --run-id "$run" > "reports/$run.log" 2>&1 || { status=1; tail -5 "reports/$run.log"; }
    done
done
python3 - "${runs[@]}" <<'PY' || status=1
import sys
import pandas as pd
rows = []
for run in sys.argv[1:]:
    d = pd.read_csv(f"reports/{run}/bench.csv")
    d["run"] = run
    rows.append(d)
d = pd.concat(rows)
d["shape"] = d.M.astype(str) + "x" + d.N.astype(str) + "x" + d.K.astype(str)
pd.set_option("display.width", 200, "display.max_rows", 200)
for value in ("median_ms", "cv", "cublas_median_ms", "cublas_cv", "pct_of_cublas", "hold_timeouts"):
    print(f"\n{value}")
    print(d.pivot_table(index=["kernel", "shape"], columns="run", values=value, sort=False).round(4).to_string())
PY
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks_throttle_reasons.active --format=csv,noheader
tar -cf - -C reports "${runs[@]}" | xz -T0 -6 > "$OUT_DIR/hold-runs.tar.xz"
exit $status
