#!/usr/bin/env bash
# The fp32-tc tier (FP32 in and out, tensor cores inside) on the device, in one call:
#   build   the tier's rungs for sm_90a (ptxas table) and the SASS mix of each (HMMA or HGMMA,
#           cvt, FADD, shared-memory traffic, TMA and barriers)
#   tests   its GPU tests: tf32x1 FAILs the FP32 bound and is never timed, tf32x3 and tf32x3wg
#           PASS it at several whole-tile shapes with an FP64 error within 2x of strict cuBLAS's, cuBLAS
#           FAST_TF32 is timed as CONTEXT, a ragged shape is SKIPped (the rungs claim whole tiles)
#   bench   `gemmprof bench --tier fp32-tc` at 1024, 2048, 4096, 8192: strict cuBLAS (the
#           yardstick) and cuBLAS FAST_TF32 (context) beside the rungs, error vs FP64 per row
#   profile the rungs and cuBLAS at 4096 under ncu, then `gemmprof report`
#   suite   (opt-in) `gemmprof bench --suite quick` over the rungs: PASS where a shape is in their
#           contract, SKIP elsewhere, the FP32 bound checked at every shape they claim
# Output under $OUT (reports/tf32 without it): tf32.log, build.txt, tf32-runs.tgz (the run
# directories, report included). Knobs: TF32_STEPS (default "build tests bench profile"),
# TF32_RUNGS (default: every fp32-tc rung), TF32_PROFILE_RUNGS (default TF32_RUNGS), TF32_TESTS
# (a pytest -k expression for the tier's GPU tests), TF32_SIZES (bench sizes), TF32_PROFILE_SIZE,
# TF32_MAX_SECONDS (timing budget per row and shape). scripts/tf32_next.sh sets them for the
# newest rungs.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-reports/tf32}
WORK=$(mktemp -d)
RUNS="$WORK/runs"
mkdir -p "$OUT_DIR" "$RUNS"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
export GEMMPROF_CACHE_DIR=${GEMMPROF_CACHE_DIR:-$WORK/cache}
SIZES=${TF32_SIZES:-1024,2048,4096,8192}
PROFILE_SIZE=${TF32_PROFILE_SIZE:-4096}
MAX_SECONDS=${TF32_MAX_SECONDS:-1.0}
RUNGS=${TF32_RUNGS:-$(python3 -c "from profiler.catalogue.manifest import load_manifest; print(' '.join(s.name for s in load_manifest() if s.tier == 'fp32-tc'))")} || exit 1
PROFILE_RUNGS=${TF32_PROFILE_RUNGS:-$RUNGS}
status=0
step() { echo; echo "=== $* ($(date +%T))"; }
exec > >(tee "$OUT_DIR/tf32.log") 2>&1
python3 -m profiler env || status=1
TOTAL=$SECONDS
for s in ${TF32_STEPS:-build tests bench profile}; do
    STEP=$SECONDS
    case $s in
      build) step "build $RUNGS (sm_90a)"
           k_args=""; for n in $RUNGS; do k_args="$k_args -k $n"; done
           COLUMNS=160 python3 -m profiler build $k_args --arch sm_90a > "$OUT_DIR/build.txt" 2>&1 || status=1
           cat "$OUT_DIR/build.txt"
           python3 - $RUNGS <<'PY' || status=1
import collections, re, shutil, subprocess, sys
from profiler.catalogue.manifest import select_kernels
from profiler.measure.build import build_kernel
if not shutil.which("cuobjdump"):
    sys.exit(print("cuobjdump not on PATH: no SASS mix"))
for spec in select_kernels(sys.argv[1:]):
    sass = subprocess.run(["cuobjdump", "-sass", str(build_kernel(spec, "sm_90a").cubin)], capture_output=True, text=True).stdout
    ops = collections.Counter(re.findall(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", sass))
    print(f"{spec.name:10}", " ".join(f"{op}={n}" for op, n in sorted(ops.items()) if n and re.match(r"HMMA|HGMMA|WARPGROUP|UTMALDG|SYNCS|F2F|FADD|LDS|STS|LDGSTS|BAR|FFMA|STG", op)))
PY
           ;;
      tests) step "GPU tests of the tier"
           python3 -m pytest -q -m gpu -p no:cacheprovider tests/gpu/test_tf32.py ${TF32_TESTS:+-k "$TF32_TESTS"} || status=1
           python3 -m pytest -q -m gpu -p no:cacheprovider tests/gpu/test_ladder.py -k "${TF32_TESTS:-tf32}" || status=1 ;;
      suite) step "bench --suite quick over $RUNGS"
           k_args=""; for n in $RUNGS; do k_args="$k_args -k $n"; done
           COLUMNS=200 python3 -m profiler bench --tier fp32-tc $k_args --suite quick --max-seconds 0.3 \
               --out "$RUNS" --run-id suite || status=1 ;;
      bench) step "bench --tier fp32-tc at $SIZES"
           k_args=""; for n in $RUNGS; do k_args="$k_args -k $n"; done
           COLUMNS=200 python3 -m profiler bench --tier fp32-tc $k_args --sizes "$SIZES" --max-seconds "$MAX_SECONDS" \
               --out "$RUNS" --run-id bench || status=1
           python3 - "$RUNS/bench/bench.csv" <<'PY' || status=1
import sys
import pandas as pd
b = pd.read_csv(sys.argv[1])
cols = [c for c in ("kernel", "M", "status", "gflops", "pct_of_cublas", "pct_of_peak", "error", "error_fp64", "worst_bound_ratio") if c in b]
print(b[cols].to_string(index=False, float_format=lambda v: f"{v:.4g}"))
PY
           ;;
      profile) step "profile $PROFILE_RUNGS at $PROFILE_SIZE, then report"
           k_args=""; for n in $PROFILE_RUNGS; do k_args="$k_args -k $n"; done
           COLUMNS=160 python3 -m profiler profile $k_args --size "$PROFILE_SIZE" --xz --out "$RUNS" --run-id profile || status=1
           python3 -m profiler report "$RUNS/profile" -o "$RUNS/profile/report" || status=1
           [ -f "$RUNS/profile/report/summary.md" ] && cat "$RUNS/profile/report/summary.md" ;;
      *) echo "unknown step $s"; status=1 ;;
    esac
    echo "step $s: $((SECONDS - STEP)) s"
done
tar -czf "$OUT_DIR/tf32-runs.tgz" -C "$RUNS" --exclude=extract . || status=1
ls -l "$OUT_DIR"
echo "tf32 finished in $((SECONDS - TOTAL)) s (status $status)"
exit $status
