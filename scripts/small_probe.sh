#!/usr/bin/env bash
# Small squares (issue 13): what cuBLAS runs at 256^3, 512^3 and 1023^3 (its kernel, grid, block,
# registers, duration under ncu) beside the rungs `best` sends there, and tf32x3bits over the whole
# default suite (the FP32 bound at every suite shape it claims). One device call, about 3 minutes.
# Output under $OUT: small.log, small-runs.tgz (run directories, .ncu-rep.xz included).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-reports/small}
WORK=$(mktemp -d)
mkdir -p "$OUT_DIR" "$WORK/runs"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
export GEMMPROF_CACHE_DIR=${GEMMPROF_CACHE_DIR:-$WORK/cache}
exec > >(tee "$OUT_DIR/small.log") 2>&1
status=0
python3 -m profiler env || status=1
for n in 256 512 1023; do
    COLUMNS=160 python3 -m profiler profile -k cublas -k ragged64x64x8 -k streamk64x32x8 -k splitk64x64x8 \
        --size $n --xz --out "$WORK/runs" --run-id small-$n || status=1
    python3 - "$WORK/runs/small-$n/kernels.csv" <<'PY' || status=1
import sys
import pandas as pd
k = pd.read_csv(sys.argv[1])
cols = [c for c in ("kernel", "function", "grid_x", "grid_y", "grid_z", "block_x", "registers_per_thread",
                    "shared_mem_dynamic_per_block", "shared_mem_static_per_block", "duration_ns") if c in k]
print(k[cols].to_string(index=False))
PY
done
COLUMNS=200 python3 -m profiler bench --tier fp32-tc -k tf32x3bits --suite default --max-seconds 0.2 \
    --out "$WORK/runs" --run-id tf32-suite || status=1
tar -czf "$OUT_DIR/small-runs.tgz" -C "$WORK/runs" --exclude=extract . || status=1
echo "small_probe finished (status $status)"
exit $status
