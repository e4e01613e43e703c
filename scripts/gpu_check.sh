#!/usr/bin/env bash
# Everything GPU-side in one call (device time is scarce): environment, build, GPU tests, the
# independent cuBLAS timing, and the bench sweep. Output: $OUT/gpu-check.log and
# $OUT/gpu-check.tgz (the run directories), or reports/gpu-check/ without $OUT.
# Knobs: GPU_CHECK_SIZES (bench sizes), GPU_CHECK_STEPS (subset of: env tests events bench).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-reports/gpu-check}
WORK=$(mktemp -d)
mkdir -p "$OUT_DIR"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 GEMMPROF_CACHE_DIR="$WORK/cache"
STEPS=${GPU_CHECK_STEPS:-env tests events sweep bench}
# sweep: correctness on odd and rectangular shapes, short timing; bench: the timed comparison.
SWEEP_SIZES=${GPU_CHECK_SWEEP_SIZES:-256,777,1000,1023,1024,1536x512x2048,2048}
BENCH_SIZES=${GPU_CHECK_BENCH_SIZES:-4096}
LOG="$OUT_DIR/gpu-check.log"
status=0
step() { echo; echo "=== $* ($(date +%T))"; }
exec > >(tee "$LOG") 2>&1
for s in $STEPS; do
    case $s in
      env) step env; python3 -m profiler env || status=1
           python3 -m profiler build --arch sm_90 || status=1 ;;
      tests) step "pytest -m gpu"; python3 -m pytest -q -m gpu tests -p no:cacheprovider || status=1 ;;
      events) step "independent cuBLAS timing"
           nvcc -O3 -o "$WORK/cublas_events" benchmarks/cublas_events.cu -lcublas && "$WORK/cublas_events" 4096 || status=1 ;;
      sweep) step "bench sweep $SWEEP_SIZES"
           COLUMNS=160 python3 -m profiler bench --sizes "$SWEEP_SIZES" --max-seconds 0.3 --min-reps 5 --out "$WORK/runs" --run-id sweep || status=1 ;;
      bench) step "bench $BENCH_SIZES"
           COLUMNS=160 python3 -m profiler bench --sizes "$BENCH_SIZES" --out "$WORK/runs" --run-id bench || status=1 ;;
    esac
done
[ -d "$WORK/runs" ] && tar -czf "$OUT_DIR/gpu-check.tgz" -C "$WORK/runs" .
echo "gpu-check finished (status $status)"
exit $status
