#!/usr/bin/env bash
# Issue 13, FP16: best-fp16 re-derived from a sweep of its candidates, in one device call (about
# 5 minutes on an H100). The candidates: the TMA-store rungs, the 128-wide persistent, split-K and
# tail-split rungs, and the staging rungs, which take every shape (so wmma_ragged, the old
# fallback, and wgmma_ragged / wgmma_tailsplit, never the fastest in fp16-sweep-2, are left out):
#   bench     bench --suite default --tier fp16 of the candidates (each row paired with cuBLAS
#             GemmEx) -> run reports/fp16-sweep
#   dispatch  gemmprof dispatch reports/fp16-sweep --name best-fp16 --tier fp16 --write (the
#             manifest with the derived rules -> $OUT/ladder.toml)
#   best      bench of best-fp16 with the derived rules over the same suite -> run reports/fp16-best
# Output under $OUT: fp16-sweep.log, ladder.toml, <run>.bench.csv / run.json / suite.csv.
# Knobs: SWEEP_STEPS (default "bench dispatch best"), SWEEP_KERNELS, SWEEP_MAX_SECONDS (0.25).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-reports/fp16-sweep-out}
mkdir -p "$OUT_DIR" reports
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 COLUMNS=${COLUMNS:-200}
export GEMMPROF_CACHE_DIR=${GEMMPROF_CACHE_DIR:-$(mktemp -d)/cache}
if ls .whl/tomlkit-*.whl >/dev/null 2>&1; then  # `dispatch --write` needs tomlkit
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/tomlkit-*.whl \
        && export PYTHONPATH="$PYTHONPATH:/tmp/site"
fi
KERNELS=${SWEEP_KERNELS:-wgmma_tmastore wgmma_tmastore_deep wgmma_persist128 wgmma_splitk128 wgmma_tailsplit128 wgmma_staged wgmma_staged128}
TIMING="--max-seconds ${SWEEP_MAX_SECONDS:-0.25} --min-reps 5 --warmup-seconds 0.05"
RUN=fp16-sweep BEST=fp16-best
klist=(); for k in $KERNELS; do klist+=(-k "$k"); done
status=0
exec > >(tee "$OUT_DIR/fp16-sweep.log") 2>&1
python3 -m profiler env || status=1
for s in ${SWEEP_STEPS:-bench dispatch best}; do
    echo; echo "######## $s ($(date +%T))"
    STEP=$SECONDS
    case $s in
      bench) rm -rf "reports/$RUN"
             timeout 330 python3 -m profiler bench --suite default --tier fp16 "${klist[@]}" --no-cublas $TIMING \
                 --out reports --run-id "$RUN" | tail -25 || status=1 ;;
      dispatch) python3 -m profiler dispatch "reports/$RUN" --name best-fp16 --tier fp16 --write || status=1
             cp kernels/ladder.toml "$OUT_DIR/ladder.toml" ;;
      best) rm -rf "reports/$BEST"
             timeout 120 python3 -m profiler bench --suite default --tier fp16 -k best-fp16 --no-cublas $TIMING \
                 --out reports --run-id "$BEST" | tail -60 || status=1 ;;
      *) echo "unknown step $s"; status=1 ;;
    esac
    echo "######## $s: $((SECONDS - STEP)) s"
done
for r in "$RUN" "$BEST"; do
    [ -d "reports/$r" ] || continue
    for f in bench.csv run.json suite.csv; do [ -f "reports/$r/$f" ] && cp "reports/$r/$f" "$OUT_DIR/$r.$f"; done
done
exit $status
