#!/usr/bin/env bash
# What each shape rung fixed, from the counters (issue 13): the split-K, small-tile, ragged and
# stream-K rungs profiled beside their predecessors at the shapes they were made for, then
# `gemmprof report` per shape and, per rung, the ladder's changes from its predecessor (SMs busy,
# time, verdict). One device call, about 3 minutes.
# Output under $OUT (reports/shapes-profile without it): shapes-profile.log, shapes-profile.tgz.
# Knobs: SHAPES_PROFILE ("SHAPE:RUNG,RUNG,... SHAPE:..." pairs).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-reports/shapes-profile}
WORK=$(mktemp -d)
mkdir -p "$OUT_DIR" "$WORK/runs"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 COLUMNS=120
export GEMMPROF_CACHE_DIR=${GEMMPROF_CACHE_DIR:-$WORK/cache}
exec > >(tee "$OUT_DIR/shapes-profile.log") 2>&1
PAIRS=${SHAPES_PROFILE:-"1024x1024x8192:ragged128x128x8,ragged64x64x8,splitk128x128x8,splitk64x64x8 2500x2500x2500:ragged128x128x8,streamk128x128x8 1536x1536x1536:streamk128x128x8,streamk64x64x8 256x256x256:streamk64x64x8,streamk64x32x8 4095x4095x4095:spread128x256x8,ragged128x256x8"}
status=0
for pair in $PAIRS; do
    shape=${pair%%:*}; rungs=${pair#*:}
    k_args=""; for n in ${rungs//,/ }; do k_args="$k_args -k $n"; done
    run="shape-$shape"
    echo; echo "=== $shape: $rungs ($(date +%T))"
    python3 -m profiler profile $k_args --mnk ${shape//x/ } --out "$WORK/runs" --run-id "$run" || status=1
    python3 -m profiler report "$WORK/runs/$run" -o "$WORK/runs/$run/report" >/dev/null || status=1
    python3 - "$WORK/runs/$run" <<'PY' || status=1
import sys
from profiler.run import open_run
for d in open_run(sys.argv[1]).diagnose().kernels:
    if d.changes is None or d.changes.empty:
        print(f"{d.name}: {d.gflops:,.0f} GFLOP/s, {d.verdict.label if d.verdict else '?'} (no predecessor profiled)")
        continue
    c = d.changes.set_index("quantity")
    said = [f"{c.at[q, 'label']} {c.at[q, 'change']}" for q in ("gflops", "sm_busy_pct", "bound", "dram_bytes", "top_stall") if q in c.index]
    print(f"{d.name} over {c['predecessor'].iloc[0]}: " + "; ".join(said))
PY
done
tar czf "$OUT_DIR/shapes-profile.tgz" -C "$WORK/runs" --exclude extract . || status=1
echo "shapes-profile finished (status $status)"
exit $status
