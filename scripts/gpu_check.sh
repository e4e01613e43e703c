#!/usr/bin/env bash
# `make gpu-check`: GPU_CHECK_STEPS (default "env tests events sweep bench"; the others are in the
# Makefile, e.g. "sample bare dispatch", "fast", "many") run in order as `make gpu-STEP`, each
# whatever the one before did; one device call. Output: $OUT/gpu-check.log and the run
# directories packed as $OUT/gpu-check-runs.tar.xz (and $OUT/sample.tar.xz for a SAMPLE outside).
set -uo pipefail
cd "$(dirname "$0")/.."
export GPU_OUT=${OUT:-reports/gpu-check} WORK=$(mktemp -d)
export RUNS=$WORK/runs GEMMPROF_CACHE_DIR=$WORK/cache SAMPLE=${SAMPLE:-$WORK/runs/sample}
mkdir -p "$GPU_OUT"
exec > >(tee "$GPU_OUT/gpu-check.log") 2>&1
status=0
for s in ${GPU_CHECK_STEPS:-env tests events sweep bench}; do
    echo; echo "=== $s ($(date +%T))"
    make --no-print-directory -k "gpu-$s" || status=1
done
[ -d "$RUNS" ] && tar -cf - -C "$RUNS" . | xz -T0 -6 > "$GPU_OUT/gpu-check-runs.tar.xz"
case $SAMPLE in "$WORK"/*) ;; *) [ -d "$SAMPLE" ] && tar -cf - -C "$(dirname "$SAMPLE")" --exclude=extract "$(basename "$SAMPLE")" | xz -T0 -6 > "$GPU_OUT/sample.tar.xz" ;; esac
echo "gpu-check finished (status $status)"
exit $status
