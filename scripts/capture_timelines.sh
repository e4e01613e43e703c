#!/usr/bin/env bash
# Capture kernels whose structure over time is known, with ncu's PM sampling and warp-state
# sampling (`gemmprof profile --timeline`), into one run: streamk128x256x8 at 4096^3 (stream-K:
# a fix-up after the main loops), probe-tail (133 blocks on 132 SMs: a tail wave) and
# probe-epilogue (K = 256: the epilogue holds most of the time). Packed (reports xz, no extraction
# cache) as $OUT/timelines.tgz: unpack into tests/data/timelines-<gpu>/.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-reports/timelines-out}
RUNS=$(mktemp -d)
mkdir -p "$OUT_DIR"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 COLUMNS=160
status=0
exec > >(tee "$OUT_DIR/timelines.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks_throttle_reasons.active --format=csv
profile() { python3 -m profiler profile --timeline --xz --out "$RUNS" --run-id timelines "$@" || status=1; }
profile -k streamk128x256x8 --size 4096
profile --manifest kernels/probes/probes.toml -k probe-tail --mnk 896 2432 4096
profile --manifest kernels/probes/probes.toml -k probe-epilogue --mnk 4096 4096 256
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv,noheader
python3 -m profiler report "$RUNS/timelines" --manifest kernels/probes/probes.toml -o "$RUNS/timelines/report" || status=1
grep -h -A3 "^## Over the launch" "$RUNS"/timelines/report/*.md
tar -czf "$OUT_DIR/timelines.tgz" -C "$RUNS" --exclude=extract --exclude=report timelines || status=1
ls -l "$OUT_DIR/timelines.tgz"
echo "capture_timelines finished (status $status)"
exit $status
