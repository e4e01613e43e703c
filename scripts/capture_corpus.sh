#!/usr/bin/env bash
# Capture the foreign corpus (tests/programs/corpus/) on a GPU machine: each group of cases
# (triton, torch, cuda) profiled by `gemmprof profile --nvtx-include corpus/ --xz -- python3
# tests/programs/corpus/corpus.py --group G` into its own run, plus one plain `ncu --set full`
# report of the smem case (no gemmprof metrics). Packed small (reports xz, no extraction cache)
# as $OUT/foreign.tgz: unpack into tests/data/foreign-<gpu>/. Knobs: CORPUS_GROUPS, CORPUS_PLAIN (0: no plain report).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-reports/corpus-out}
RUNS=$(mktemp -d)/foreign
mkdir -p "$OUT_DIR" "$RUNS"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 COLUMNS=160
export GEMMPROF_CACHE_DIR=${GEMMPROF_CACHE_DIR:-$(mktemp -d)/cache}
status=0
step() { echo; echo "=== $* ($(date +%T))"; }
exec > >(tee "$OUT_DIR/corpus.log") 2>&1
step "GPU"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,power.limit,clocks_throttle_reasons.active --format=csv
for group in ${CORPUS_GROUPS:-torch cuda triton}; do
  step "profile --nvtx-include corpus/ -- corpus.py --group $group"
  python3 -m profiler profile --nvtx-include corpus/ --xz --out "$RUNS" --run-id "$group" \
      -- python3 tests/programs/corpus/corpus.py --group "$group" || status=1
  nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,clocks_throttle_reasons.active --format=csv,noheader
done
if [ "${CORPUS_PLAIN:-1}" = 1 ]; then
  step "plain ncu --set full of the smem case"
  mkdir -p "$RUNS/plain"
  ncu --set full --clock-control none --import-source yes --nvtx --nvtx-include 'corpus/smem/' \
      -o "$RUNS/plain/smem" python3 tests/programs/corpus/corpus.py smem || status=1
  xz -T0 -6 "$RUNS/plain/smem.ncu-rep" || status=1
fi
for group in ${CORPUS_GROUPS:-torch cuda triton}; do
  step "analyze $group"
  python3 -m profiler analyze "$RUNS/$group" || status=1
done
tar -czf "$OUT_DIR/foreign.tgz" -C "$(dirname "$RUNS")" --exclude=extract --exclude=report foreign || status=1
ls -l "$OUT_DIR/foreign.tgz"
echo "capture_corpus finished (status $status)"
exit $status
