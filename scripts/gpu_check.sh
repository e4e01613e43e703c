#!/usr/bin/env bash
# Everything GPU-side in one call (device time is scarce): environment, build, GPU tests, the
# independent cuBLAS timing, and the bench sweep. Output: $OUT/gpu-check.log and
# $OUT/gpu-check.tgz (the run directories), or reports/gpu-check/ without $OUT.
# Knobs: GPU_CHECK_SIZES (bench sizes), GPU_CHECK_STEPS (which steps, below), FAST_KERNELS, FAST_SIZES.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-reports/gpu-check}
WORK=$(mktemp -d)
mkdir -p "$OUT_DIR"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 GEMMPROF_CACHE_DIR="$WORK/cache"
STEPS=${GPU_CHECK_STEPS:-env tests events sweep bench}
# Further steps (by name): profile (all kernels under ncu at 2048 into run "sample" and its bench
# sweep), bare (bare ncu on the sample's commands), dispatch (derive `best` from the sample sweep), fixtures (small real reports + ncu's raw export for
# tests/data), many (a 1000-launch report for benchmarks/extract_speed.py, kernel replay), overhead
# (profile --kernel all against bare ncu), sanitize (scripts/sanitize.sh: compute-sanitizer's four
# tools over every kernel and probe; SANITIZE_KERNELS names some), probes (scripts/probes.sh).
# sweep: correctness on odd and rectangular shapes, short timing; bench: the timed comparison.
# The sample run: a run directory under reports/ that travels with the tree and comes back in the tarball.
SAMPLE=${SAMPLE:-$WORK/runs/sample}
SWEEP_SIZES=${GPU_CHECK_SWEEP_SIZES:-256,777,1000,1023,1024,1536x512x2048,2048}
BENCH_SIZES=${GPU_CHECK_BENCH_SIZES:-4096}
LOG="$OUT_DIR/gpu-check.log"
status=0
step() { echo; echo "=== $* ($(date +%T))"; }
exec > >(tee "$LOG") 2>&1
for s in $STEPS; do
    case $s in
      env) step env; python3 -m profiler env || status=1
           python3 -m profiler build --arch sm_90 || status=1 ;;
      tests) step "pytest -m gpu"; python3 -m pytest -q -m gpu tests -p no:cacheprovider || status=1 ;;
      events) step "independent cuBLAS timing"
           nvcc -O3 -o "$WORK/cublas_events" benchmarks/cublas_events.cu -lcublas && "$WORK/cublas_events" 4096 || status=1 ;;
      sweep) step "bench sweep $SWEEP_SIZES"
           COLUMNS=160 python3 -m profiler bench --sizes "$SWEEP_SIZES" --max-seconds 0.3 --min-reps 5 --out "$WORK/runs" --run-id sweep || status=1 ;;
      bench) step "bench $BENCH_SIZES"
           COLUMNS=160 python3 -m profiler bench --sizes "$BENCH_SIZES" --out "$WORK/runs" --run-id bench || status=1 ;;
      profile) step "profile --kernel all --size 2048 into $SAMPLE (reports there already are kept)"
           COLUMNS=160 python3 -m profiler profile --kernel all --size 2048 --xz --out "$(dirname "$SAMPLE")" --run-id "$(basename "$SAMPLE")" || status=1
           ls -l "$SAMPLE/ncu"
           COLUMNS=200 python3 -m profiler analyze "$SAMPLE" || status=1
           step "bench sweep for the sample run (every kernel; dispatchers are timed after they are derived)"
           every_k=$(python3 -c 'from profiler.manifest import load_manifest; print(" ".join("-k " + s.name for s in load_manifest()))')
           COLUMNS=160 python3 -m profiler bench $every_k --sizes 512,1024,2048,4096 --max-seconds 1.5 \
             --out "$(dirname "$SAMPLE")" --run-id "$(basename "$SAMPLE")" || status=1 ;;
      bare) step "bare ncu, the sample run's commands"; python3 benchmarks/bare_ncu.py "$SAMPLE" || status=1 ;;
      dispatch) step "derive the best dispatcher from the sample sweep, write it into the manifest, time it"
           python3 -m profiler dispatch "$SAMPLE" --write || status=1
           cp kernels/ladder.toml "$OUT_DIR/ladder.toml"
           COLUMNS=160 python3 -m profiler bench -k best --sizes 512,1024,2048,4096,8192 --out "$WORK/runs" --run-id best || status=1 ;;
      variants) step "experiment kernels (kernels/experiments/experiments.toml) and their predecessors against cuBLAS"
           exp=kernels/experiments/experiments.toml
           exp_k=$(python3 -c 'import sys; from pathlib import Path; from profiler.manifest import load_manifest; s = load_manifest(Path(sys.argv[1])); print(" ".join("-k " + n for n in dict.fromkeys([x.predecessor for x in s] + [x.name for x in s])))' "$exp")
           COLUMNS=180 python3 -m profiler bench --manifest "$exp" $exp_k --sizes "${FAST_SIZES:-4096,8192}" --max-seconds "${VARIANT_SECONDS:-1.5}" --out "$WORK/runs" --run-id variants || status=1 ;;
      fast) step "fast rungs: bench ${FAST_SIZES:-4096,8192}, profile at 4096"
           # FAST_KERNELS: the rungs under work (default: the manifest's rungs from 10 up, both tiers, and best).
           fast=${FAST_KERNELS:-$(python3 -c 'from profiler.manifest import load_manifest; print(" ".join(s.name for s in load_manifest() if s.index >= 10), "best")')}
           fast_k=""; for k in $fast; do fast_k="$fast_k -k $k"; done
           COLUMNS=180 python3 -m profiler bench $fast_k --sizes "${FAST_SIZES:-4096,8192}" --out "$WORK/runs" --run-id fast || status=1
           # dispatchers (e.g. best) are not profiled: only the kernels they choose from are
           prof_k=$(python3 -c 'import sys; from profiler.manifest import split_names; print(" ".join("-k " + n for n in split_names(sys.argv[1:])[0]))' $fast)
           COLUMNS=160 python3 -m profiler profile $prof_k -k cublas --size 4096 --xz --out "$WORK/runs" --run-id fastprof || status=1
           COLUMNS=220 python3 -m profiler analyze "$WORK/runs/fastprof" || status=1
           python3 -m profiler report "$WORK/runs/fastprof" >/dev/null || status=1 ;;
      overhead) step "profile --kernel all --size 2048 against bare ncu"
           # cold (fresh machine: compile, first ncu start), then bare ncu, then gemmprof again: the
           # fair comparison is the second gemmprof run against the bare replay between the two.
           COLUMNS=160 python3 -m profiler profile --kernel all --size 2048 --out "$WORK/runs" --run-id overhead || status=1
           python3 benchmarks/bare_ncu.py "$WORK/runs/overhead" || status=1
           COLUMNS=160 python3 -m profiler profile --kernel all --size 2048 --out "$WORK/runs" --run-id overhead --force || status=1
           python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print('second gemmprof profile:', round(m['profile_wall_s'],1), 's, phases', m['profile_phases_s'])" "$WORK/runs/overhead/run.json" ;;
      sanitize) step "compute-sanitizer (scripts/sanitize.sh): every kernel and probe, launched directly"
           OUT="$OUT_DIR" bash scripts/sanitize.sh || status=1 ;;
      probes) step "probes (scripts/probes.sh): each at its probe shape into one run, packed as probes.tgz"
           OUT="$OUT_DIR" bash scripts/probes.sh || status=1 ;;
      fixtures) step "fixtures"
           COLUMNS=160 python3 -m profiler profile -k naive -k smem -k vectorized -k warptile -k cublas --mnk 512 256 128 \
             --xz --out "$WORK/runs" --run-id fixtures || status=1
           for f in "$WORK"/runs/fixtures/ncu/*.ncu-rep.xz; do
             xz -dkc "$f" > "$WORK/r.ncu-rep" && ncu --import "$WORK/r.ncu-rep" --page raw --csv > "${f%.ncu-rep.xz}.raw.csv" || status=1
           done ;;
      many) name=${MANY_NAME:-many}
           # The 1,000-launch report for benchmarks/extract_speed.py. Kernel replay of a plain
           # driver-API program that runs the project's cubins (benchmarks/many_launches.cu), with the
           # sections the kernels, rules and source tables read and no cache flushes: 460 s for 1,000
           # launches on the H200 (0.46 s each). Application replay fails there, with this program
           # and with the Python launcher alike ("Failed to profile sgemm_<kernel>", benchmarks/results/2026-11-22-h200/README.md).
           # The report (126 MB) comes back as xz parts of at most 15 MiB ($OUT's file limit): cat them.
           nvcc -O2 -o "$WORK/many_launches" benchmarks/many_launches.cu -lcuda || status=1
           args=$(python3 benchmarks/many_launches.py --args ${MANY_SIZE:-64} ${MANY_KERNELS:-naive coalesced smem}) || status=1
           sections=${MANY_SECTIONS:---section LaunchStats --section Occupancy --section SpeedOfLight --section WarpStateStats --section SourceCounters}
           launches=${MANY_LAUNCHES:-1000}
           step "kernel replay of $launches launches, $sections"
           SECONDS=0
           timeout ${MANY_TIMEOUT:-560} ncu --cache-control none $sections --import-source yes --clock-control none \
               -k regex:sgemm_ -o "$WORK/$name" "$WORK/many_launches" $launches $args | grep -v "^==PROF== Profiling" || status=1
           echo "many: $launches launches in $SECONDS s"
           ls -la "$WORK/$name.ncu-rep" && xz -T0 -6 -c "$WORK/$name.ncu-rep" | split -b 15M - "$OUT_DIR/$name.ncu-rep.xz.part-"
           ls -la "$OUT_DIR" ;;
    esac
done
[ -d "$WORK/runs" ] && tar -cf - -C "$WORK/runs" . | xz -T0 -6 > "$OUT_DIR/gpu-check-runs.tar.xz"
case $SAMPLE in "$WORK"/*) ;; *) [ -d "$SAMPLE" ] && tar -cf - -C "$(dirname "$SAMPLE")" --exclude=extract "$(basename "$SAMPLE")" | xz -T0 -6 > "$OUT_DIR/sample.tar.xz" ;; esac
echo "gpu-check finished (status $status)"
exit $status
