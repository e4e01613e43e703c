#!/usr/bin/env bash
# The 1,000-launch report for benchmarks/extract_speed.py (`make gpu-many`). Kernel replay of a
# plain driver-API program that runs the project's cubins (benchmarks/many_launches.cu), with the
# sections the kernels, rules and source tables read and no cache flushes: 460 s for 1,000
# launches on the H200 (0.46 s each). Application replay fails there, with this program and with
# the Python launcher alike ("Failed to profile sgemm_<kernel>",
# benchmarks/results/2026-11-22-h200/README.md). The report (126 MB) comes back as xz parts of at
# most 15 MiB ($OUT's file limit): cat them. Knobs: MANY_NAME, MANY_SIZE, MANY_KERNELS,
# MANY_SECTIONS, MANY_LAUNCHES, MANY_TIMEOUT.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-reports/gpu-check}
WORK=$(mktemp -d)
mkdir -p "$OUT_DIR"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
name=${MANY_NAME:-many}
nvcc -O2 -o "$WORK/many_launches" benchmarks/many_launches.cu -lcuda
args=$(python3 benchmarks/many_launches.py --args ${MANY_SIZE:-64} ${MANY_KERNELS:-naive coalesced smem})
sections=${MANY_SECTIONS:---section LaunchStats --section Occupancy --section SpeedOfLight --section WarpStateStats --section SourceCounters}
launches=${MANY_LAUNCHES:-1000}
echo "=== kernel replay of $launches launches, $sections ($(date +%T))"
SECONDS=0
timeout ${MANY_TIMEOUT:-560} ncu --cache-control none $sections --import-source yes --clock-control none \
    -k regex:sgemm_ -o "$WORK/$name" "$WORK/many_launches" $launches $args | { grep -v "^==PROF== Profiling" || true; }
echo "many: $launches launches in $SECONDS s"
ls -la "$WORK/$name.ncu-rep"
xz -T0 -6 -c "$WORK/$name.ncu-rep" | split -b 15M - "$OUT_DIR/$name.ncu-rep.xz.part-"
ls -la "$OUT_DIR"
