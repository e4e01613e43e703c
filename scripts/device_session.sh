#!/usr/bin/env bash
# One device call for the probes and the sanitizer pass: build (sm_90, ladder + probes), the
# probes' GPU tests (each PASSES verification at its probe shape and at small shapes), the
# probes profiled into one run (scripts/probes.sh) and compute-sanitizer over every kernel
# (scripts/sanitize.sh). Every step prints its time. Output under $OUT (4 files, flat):
# device-session.log, probes.tgz, sanitize.log, build.txt. Knobs: SESSION_STEPS (default
# "build tests probes sanitize"), and those of probes.sh and sanitize.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-reports/device-session}
mkdir -p "$OUT_DIR"
export OUT="$OUT_DIR"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
export GEMMPROF_CACHE_DIR=${GEMMPROF_CACHE_DIR:-$(mktemp -d)/cache}  # shared by the steps: one compile
export GEMMPROF_MANIFEST="$PWD/kernels/probes/probes.toml"
status=0
exec > >(tee "$OUT_DIR/device-session.log") 2>&1
python3 -m profiler env || status=1
TOTAL=$SECONDS
for s in ${SESSION_STEPS:-build tests probes sanitize}; do
    echo; echo "######## $s ($(date +%T))"
    STEP=$SECONDS
    case $s in
      build) COLUMNS=160 python3 -m profiler build --arch sm_90 > "$OUT_DIR/build.txt" 2>&1 || status=1
             cat "$OUT_DIR/build.txt" ;;
      tests) python3 -m pytest -q -m gpu -p no:cacheprovider tests/gpu/test_probes.py || status=1 ;;
      probes) bash scripts/probes.sh || status=1 ;;
      sanitize) bash scripts/sanitize.sh || status=1 ;;
      *) echo "unknown step $s"; status=1 ;;
    esac
    echo "######## $s: $((SECONDS - STEP)) s"
done
echo "device session finished in $((SECONDS - TOTAL)) s (status $status)"
ls -l "$OUT_DIR"
exit $status
