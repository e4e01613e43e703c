#!/usr/bin/env bash
# The device check of issue 16, one call on kind nvidia-h200-x2 (run scripts/fetch_scale_wheels.sh
# here first and carry .whl): Dask's wheels into /tmp/site, then each command on one GPU and with
# --gpus all, the wall times, their ratio (the issue asks <= 0.55) and the per-kernel numbers of
# the two runs side by side. Output: $OUT/scale-check.log and $OUT/scale-check.tgz (the four runs).
#   profile --kernel all --size 2048   (the whole ladder: about 25 jobs of ~4 s under ncu)
#   bench --sizes 2048 --max-seconds 1 (the whole ladder at one shape: the default sizes and 3 s
#     budget would take ~5 min on one GPU alone and the pair would not fit in 10 minutes)
# The one-GPU runs are the plain commands (no --gpus) pinned with CUDA_VISIBLE_DEVICES=0.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-reports/scale-check}
mkdir -p "$OUT_DIR"
exec > >(tee "$OUT_DIR/scale-check.log") 2>&1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
WORK=$(mktemp -d)
export PYTHONPATH="$PWD:/tmp/site${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 COLUMNS=160 GEMMPROF_CACHE_DIR="$WORK/cache"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi -L
python3 -c 'import distributed; print("distributed", distributed.__version__)' || exit 1
python3 -m profiler build >/dev/null || exit 1   # compile once: both runs then use the cubin cache
status=0
timed() {  # timed NAME CMD...: run, print and record the wall time
    local name=$1; shift
    local t0=$(date +%s.%N)
    "$@" || status=1
    awk -v a="$t0" -v b="$(date +%s.%N)" -v n="$name" 'BEGIN { printf "%s %.2f\n", n, b - a }' | tee -a "$WORK/walls"
}
echo "=== profile, one GPU"; timed profile1 env CUDA_VISIBLE_DEVICES=0 python3 -m profiler profile --kernel all --size 2048 --out "$WORK/runs" --run-id profile1
echo "=== profile, --gpus all"; timed profileN python3 -m profiler profile --kernel all --size 2048 --gpus all --out "$WORK/runs" --run-id profileN
echo "=== bench, one GPU"; timed bench1 env CUDA_VISIBLE_DEVICES=0 python3 -m profiler bench --sizes 2048 --max-seconds 1 --out "$WORK/runs" --run-id bench1
echo "=== bench, --gpus all"; timed benchN python3 -m profiler bench --sizes 2048 --max-seconds 1 --gpus all --out "$WORK/runs" --run-id benchN
python3 - "$WORK" <<'PY' || status=1
import json, sys
from pathlib import Path
import pandas as pd
work = Path(sys.argv[1]); runs = work / "runs"
walls = dict(line.split() for line in (work / "walls").read_text().splitlines())
for cmd in ("profile", "bench"):
    one, many = float(walls[cmd + "1"]), float(walls[cmd + "N"])
    print(f"{cmd}: one GPU {one:.1f} s, --gpus all {many:.1f} s, ratio {many / one:.2f} (issue: <= 0.55)")
    fan = json.loads((runs / f"{cmd}N" / "run.json").read_text()).get("fanout", {})
    print(f"  per GPU busy s: {fan.get('gpu_wall_s')}; failures: {fan.get('failures')}")
a = pd.read_parquet(runs / "profile1" / "kernels.parquet").groupby("kernel_key")["duration_ns"].median()
b = pd.read_parquet(runs / "profileN" / "kernels.parquet").groupby("kernel_key")["duration_ns"].median()
t = pd.DataFrame({"one_gpu_us": a / 1e3, "gpus_all_us": b / 1e3}); t["ratio"] = t.gpus_all_us / t.one_gpu_us
print("profile: ncu duration per kernel\n" + t.round(3).to_string())
key = ["kernel", "tier", "M", "N", "K"]
x = pd.read_csv(runs / "bench1" / "bench.csv").set_index(key)
y = pd.read_csv(runs / "benchN" / "bench.csv").set_index(key)
t = pd.DataFrame({"one_ms": x.median_ms, "one_cv": x.cv, "all_ms": y.median_ms, "all_cv": y.cv, "pct_cublas_one": x.pct_of_cublas,
                  "pct_cublas_all": y.pct_of_cublas, "gpu": y.get("gpu_index")})
t["ratio"] = t.all_ms / t.one_ms
t["within_noise"] = (t.ratio - 1).abs() <= 3 * t[["one_cv", "all_cv"]].max(axis=1).clip(lower=0.01)
print("bench: median per kernel (within_noise: |ratio - 1| <= 3 x the larger CV, at least 1%)\n" + t.round(4).to_string())
print(f"bench rows within noise: {int(t.within_noise.sum())} of {int(t.ratio.notna().sum())} timed")
PY
tar czf "$OUT_DIR/scale-check.tgz" -C "$WORK/runs" --exclude extract . || status=1
exit $status
