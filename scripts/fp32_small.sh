#!/usr/bin/env bash
# Issue 13, FP32 small and K-large shapes: the t4 rung family (kernels/t4_tile.cuh: 4x4 results per
# thread, split-K summed in a fixed-order tree) against the rungs `best` picks there, in one device
# call. Steps (SMALL_STEPS, default "build tests bench"):
#   build  env, then build --arch sm_90 of the rung splitk64x64x8t4, the t4 experiments
#          (splitk32x32x8t4, splitk64x32x8t4, splitk64x64x8t4deep) and the rungs compared with them
#          (ptxas table) -> $OUT/build.txt
#   tests  GPU tests of the t4 rung and experiments in tests/gpu/test_shapes.py (-k t4: ragged
#          shapes, split shapes, one- and two-level sums, other split counts, repeats, non-finite
#          rows and columns)
#   bench  bench --suite small --tier fp32 of the t4 rung and experiments, splitk64x64x8,
#          streamk64x32x8, ragged64x64x8 and `best` as committed, each row paired with cuBLAS
#          -> run reports/fp32-small
# Output under $OUT: fp32-small.log, build.txt, fp32-small.bench.csv, .run.json, .suite.csv and
# fp32-small-run.tar.xz (the run directory whole).
#
# Time (H100; from scripts/shapes_suite.sh's 8 rows x 37 shapes in 170 s, about 0.6 s a row and
# shape): build ~15 s (cold nvcc cache ~40 s), tests ~60 s, bench 8 rows x 16 shapes ~80 s (the
# slowest rows, ragged64x64x8 at K-large, take a few ms a launch): about 3 min. The timeouts (tests
# 150 s, bench 240 s) keep the worst case inside 8 minutes; a cut bench keeps its rows.
# Knobs: SMALL_SUITE (default "small"), SMALL_KERNELS (the -k list), SMALL_MAX_SECONDS (0.25).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-reports/fp32-small-out}
mkdir -p "$OUT_DIR" reports
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 COLUMNS=${COLUMNS:-200}
export GEMMPROF_CACHE_DIR=${GEMMPROF_CACHE_DIR:-$(mktemp -d)/cache}
EXPERIMENTS=kernels/experiments/experiments.toml
SUITE=${SMALL_SUITE:-small}
KERNELS=${SMALL_KERNELS:-splitk64x64x8t4 splitk32x32x8t4 splitk64x32x8t4 splitk64x64x8t4deep splitk64x64x8 streamk64x32x8 ragged64x64x8 best}
TIMING="--max-seconds ${SMALL_MAX_SECONDS:-0.25} --min-reps 5 --warmup-seconds 0.05"
RUN=fp32-small
klist=(); for k in $KERNELS; do klist+=(-k "$k"); done
status=0
exec > >(tee "$OUT_DIR/fp32-small.log") 2>&1
TOTAL=$SECONDS
for s in ${SMALL_STEPS:-build tests bench}; do
    echo; echo "######## $s ($(date +%T))"
    STEP=$SECONDS
    case $s in
      build) python3 -m profiler env || status=1
             python3 -m profiler build --arch sm_90 --manifest "$EXPERIMENTS" \
                 $(for k in $KERNELS; do [ "$k" = best ] || echo -k "$k"; done) > "$OUT_DIR/build.txt" 2>&1 || status=1
             cat "$OUT_DIR/build.txt" ;;
      tests) timeout 150 python3 -m pytest -q -m gpu -p no:cacheprovider tests/gpu/test_shapes.py -k t4 || status=1 ;;
      bench) rm -rf "reports/$RUN"
             timeout 240 python3 -m profiler bench --suite "$SUITE" --tier fp32 --manifest "$EXPERIMENTS" "${klist[@]}" \
                 --no-cublas $TIMING --out reports --run-id "$RUN" || status=1 ;;
      *) echo "unknown step $s"; status=1 ;;
    esac
    echo "######## $s: $((SECONDS - STEP)) s"
done
if [ -d "reports/$RUN" ]; then
    for f in bench.csv run.json suite.csv; do [ -f "reports/$RUN/$f" ] && cp "reports/$RUN/$f" "$OUT_DIR/$RUN.$f"; done
    tar -cf - -C reports "$RUN" | xz -T0 -6 > "$OUT_DIR/$RUN-run.tar.xz"
fi
echo "fp32 small finished in $((SECONDS - TOTAL)) s (status $status)"
ls -l "$OUT_DIR"
exit $status
