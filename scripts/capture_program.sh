#!/usr/bin/env bash
# Profile a program that is not gemmprof (tests/programs/cupy_and_own_kernel.py: a CuPy matmul and
# a RawKernel of its own, in NVTX ranges) with `gemmprof profile --nvtx-include app/ -- ...`, render
# `gemmprof report` on the run, and pack it small (reports xz, no extraction cache) as
# $OUT/program.tgz: the fixture for tests/data/program-<gpu>/ (unpack it there, then drop report/
# if it is too big). Knobs: PROGRAM_SHAPE ("M N K", default "512 512 512"), PROGRAM_RUNS.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-reports/program-out}
RUNS=${PROGRAM_RUNS:-$(mktemp -d)/runs}
RUN_ID=program
mkdir -p "$OUT_DIR" "$RUNS"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
export GEMMPROF_CACHE_DIR=${GEMMPROF_CACHE_DIR:-$(mktemp -d)/cache}
status=0
step() { echo; echo "=== $* ($(date +%T))"; }
exec > >(tee "$OUT_DIR/program.log") 2>&1
RUN="$RUNS/$RUN_ID"
rm -rf "$RUN"
step "profile --nvtx-include app/ -- python3 tests/programs/cupy_and_own_kernel.py ${PROGRAM_SHAPE:-512 512 512}"
COLUMNS=160 python3 -m profiler profile --nvtx-include app/ --xz --out "$RUNS" --run-id "$RUN_ID" \
    -- python3 tests/programs/cupy_and_own_kernel.py ${PROGRAM_SHAPE:-512 512 512} || status=1
ls -l "$RUN" "$RUN/ncu"
cat "$RUN/profile.jsonl"
step "analyze"
COLUMNS=220 python3 -m profiler analyze "$RUN" || status=1
step "report"
python3 -m profiler report "$RUN" -o "$RUN/report" || status=1
step "pytest tests/gpu/test_program.py"
python3 -m pytest -q -p no:cacheprovider tests/gpu/test_program.py || status=1
tar -czf "$OUT_DIR/program.tgz" -C "$RUNS" --exclude=extract "$RUN_ID" || status=1
ls -l "$OUT_DIR/program.tgz"
echo "capture_program finished (status $status)"
exit $status
