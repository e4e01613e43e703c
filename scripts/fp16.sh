#!/usr/bin/env bash
# The FP16 tier's wgmma rungs and best-fp16 on the device, in one call (issue 13; about 4-5
# minutes on an H100/H200):
#   build   the persistent, split-K, tail-split, ping-pong, unaligned and TMA-store wgmma rungs for
#           sm_90a (ptxas table)
#   tests   tests/gpu/test_fp16.py (aligned, ragged and odd shapes, tail splits, repeats,
#           best-fp16's choices) and the ladder's GPU tests of the new rungs (tailsplit, pingpong,
#           unaligned, tmastore)
#   bench   the rungs and best-fp16 paired with cuBLAS GemmEx (FP16 in, FP32 accumulate) at 1024,
#           2048, 4096, 8192 and ragged and odd shapes; table of % of cuBLAS per shape (the
#           quick suite's shapes are the suite step's)
#   suite   best-fp16 and cuBLAS over the quick suite (geomean / min printed and in suite.csv)
#   profile wgmma_persist, wgmma_persist128 and cuBLAS GemmEx under ncu at 4096^3 (-k cublas is
#           the fp16 tier's reference, cublas-fp16), then `gemmprof report`; each kernel's bound,
#           cause and summary from diagnosis.json printed, the report folder in fp16-report.tgz
# Output under $OUT (reports/fp16 without it): fp16.log, build.txt, fp16-runs.tgz (run directories).
# Knobs: FP16_STEPS (default "build tests bench suite profile"), FP16_SIZES, FP16_MAX_SECONDS,
# FP16_SUITE, FP16_PROFILE (kernels profiled), FP16_PROFILE_SIZE, FP16_RUNGS (rungs built and
# benched), FP16_TESTS (a pytest -k expression narrowing the tests step).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-reports/fp16}
WORK=$(mktemp -d)
RUNS="$WORK/runs"
mkdir -p "$OUT_DIR" "$RUNS"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
export GEMMPROF_CACHE_DIR=${GEMMPROF_CACHE_DIR:-$WORK/cache}
SIZES=${FP16_SIZES:-1024,2048,4096,8192,3000x3000x3000,2500x2500x2500,32768x64x1024}
MAX_SECONDS=${FP16_MAX_SECONDS:-0.3}
SUITE=${FP16_SUITE:-quick}
PROFILE=${FP16_PROFILE:-wgmma_persist wgmma_persist128}
PROFILE_SIZE=${FP16_PROFILE_SIZE:-4096}
RUNGS=${FP16_RUNGS:-wgmma_persist wgmma_persist128 wgmma_splitk128 wgmma_tailsplit wgmma_tailsplit128 wgmma_pingpong wgmma_unaligned128 wgmma_tmastore wgmma_tmastore_deep}
TESTS=${FP16_TESTS:-}
k_args=""; for n in $RUNGS; do k_args="$k_args -k $n"; done
status=0
step() { echo; echo "=== $* ($(date +%T))"; }
exec > >(tee "$OUT_DIR/fp16.log") 2>&1
python3 -m profiler env || status=1
TOTAL=$SECONDS
for s in ${FP16_STEPS:-build tests bench suite profile}; do
    STEP=$SECONDS
    case $s in
      build) step "build $RUNGS (sm_90a)"
           COLUMNS=160 python3 -m profiler build $k_args --arch sm_90a > "$OUT_DIR/build.txt" 2>&1 || status=1
           cat "$OUT_DIR/build.txt" ;;
      tests) step "GPU tests of the fp16 rungs"
           python3 -m pytest -q -m gpu -p no:cacheprovider tests/gpu/test_fp16.py ${TESTS:+-k "$TESTS"} || status=1
           python3 -m pytest -q -m gpu -p no:cacheprovider tests/gpu/test_ladder.py -k "${TESTS:-tailsplit or pingpong or unaligned or tmastore}" || status=1 ;;
      bench) step "bench $RUNGS best-fp16 with cuBLAS GemmEx at $SIZES"
           COLUMNS=200 python3 -m profiler bench $k_args -k best-fp16 --tier fp16 --sizes "$SIZES" \
               --max-seconds "$MAX_SECONDS" --out "$RUNS" --run-id bench || status=1
           python3 - "$RUNS/bench/bench.csv" <<'PY' || status=1
import sys
import pandas as pd
b = pd.read_csv(sys.argv[1])
b["shape"] = b["M"].astype(str) + "x" + b["N"].astype(str) + "x" + b["K"].astype(str)
pct = b.pivot_table(index="shape", columns="kernel", values="pct_of_cublas", aggfunc="first", sort=False)
print("% of cuBLAS GemmEx per shape (empty: SKIP or not timed)")
print(pct.to_string(float_format=lambda v: f"{v:.1f}"))
cols = [c for c in ("kernel", "shape", "status", "dispatched_to", "gflops", "pct_of_cublas", "error", "reason") if c in b]
print(b[b["status"] != "SKIP"][cols].to_string(index=False, float_format=lambda v: f"{v:.4g}"))
PY
           ;;
      suite) step "best-fp16 over the $SUITE suite"
           COLUMNS=200 python3 -m profiler bench -k best-fp16 --tier fp16 --suite "$SUITE" \
               --max-seconds "$MAX_SECONDS" --out "$RUNS" --run-id suite || status=1
           [ -f "$RUNS/suite/suite.csv" ] && cat "$RUNS/suite/suite.csv" ;;
      profile) step "profile $PROFILE and cuBLAS GemmEx at $PROFILE_SIZE^3, then report"
           p_args="-k cublas"; for n in $PROFILE; do p_args="$p_args -k $n"; done
           COLUMNS=200 python3 -m profiler profile $p_args --size "$PROFILE_SIZE" --xz --out "$RUNS" --run-id profile || status=1
           COLUMNS=200 python3 -m profiler report "$RUNS/profile" -o "$WORK/report" || status=1
           python3 - "$WORK/report/diagnosis.json" <<'PY' || status=1
import json
import sys
doc = json.load(open(sys.argv[1]))
for k in doc["kernels"] if isinstance(doc, dict) else doc:
    print(f"{k['kernel']}: {k.get('pct_cublas')}% of cuBLAS; bound {k['bound']}; cause {k['cause']}")
    print(f"    {k['summary']}")
    for e in k.get("evidence") or []:
        print(f"    - {e}")
PY
           tar -czf "$OUT_DIR/fp16-report.tgz" -C "$WORK" report || status=1 ;;
      *) echo "unknown step $s"; status=1 ;;
    esac
    echo "step $s: $((SECONDS - STEP)) s"
done
tar -czf "$OUT_DIR/fp16-runs.tgz" -C "$RUNS" . || status=1
ls -l "$OUT_DIR"
echo "fp16 finished in $((SECONDS - TOTAL)) s (status $status)"
exit $status
