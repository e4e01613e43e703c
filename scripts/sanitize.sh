#!/usr/bin/env bash
# compute-sanitizer over every ladder kernel and probe: memcheck, racecheck, synccheck and
# initcheck, one process per tool, each kernel launched directly (python -m
# profiler.measure.launch_once: two launches per kernel at one small odd and one small even
# shape in its contract; no timing harness, no pytest). Prints each tool's ERROR SUMMARY.
# Output: $OUT/sanitize.log (or reports/sanitize/sanitize.log without $OUT).
# Knobs: SANITIZE_TOOLS, SANITIZE_TIMEOUT (seconds per tool), SANITIZE_KERNELS (names, default all).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-reports/sanitize}
mkdir -p "$OUT_DIR"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
export GEMMPROF_MANIFEST=${GEMMPROF_MANIFEST:-$PWD/kernels/probes/probes.toml}
export GEMMPROF_CACHE_DIR=${GEMMPROF_CACHE_DIR:-$(mktemp -d)/cache}
SAN=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
TOOLS=${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}
kernel_args=""; for k in ${SANITIZE_KERNELS:-}; do kernel_args="$kernel_args -k $k"; done
LOG="$OUT_DIR/sanitize.log"
status=0
exec > >(tee "$LOG") 2>&1
echo "=== build (outside the sanitizer) ($(date +%T))"
SECONDS=0
python3 -m profiler build $kernel_args >/dev/null || status=1
echo "build: $SECONDS s"
TMP=$(mktemp -d)
summary=""
for tool in $TOOLS; do
    echo; echo "=== compute-sanitizer --tool $tool ($(date +%T))"
    SECONDS=0
    timeout "${SANITIZE_TIMEOUT:-120}" "$SAN" --tool "$tool" --error-exitcode 9 \
        python3 -m profiler.measure.launch_once $kernel_args > "$TMP/$tool.log" 2>&1
    rc=$?
    cat "$TMP/$tool.log"
    [ $rc -ne 0 ] && status=1
    what=$([ $rc -eq 124 ] && echo "timed out" || echo "exit $rc")
    summary="$summary$tool: $what, $SECONDS s; $(grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" "$TMP/$tool.log" | tr '\n' ' ')"$'\n'
done
echo; echo "=== summary"
printf "%s" "$summary"
echo "sanitize finished (status $status)"
exit $status
