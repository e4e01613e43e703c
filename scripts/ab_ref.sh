#!/usr/bin/env bash
# A/B of kernels against their own sources at another commit, timed in one run on one GPU (the
# only comparison of speeds the device allows). Two steps:
#   prepare (here, where git has the ref): kernels/ab/ gets the ref's kernels/ folder (its headers
#            beside its kernels, so each old kernel compiles against its own headers) and
#            kernels/ab/ab.toml a manifest of NAME_old for each NAME of AB_KERNELS, entry renamed
#            NAME's entry + _old. kernels/ab/ is git-ignored: carry it to the device
#            (`run` with carry ["kernels/ab"]).
#   bench    (on the device): bench of NAME and NAME_old for each NAME at AB_SIZES, each row paired
#            with cuBLAS -> $OUT/ab.csv, $OUT/ab.log (NVML clocks and throttle before and after).
# Knobs: AB_REF (prepare), AB_KERNELS, AB_SIZES (comma-separated MxNxK), AB_MAX_SECONDS (1.0),
# AB_RUN (the run id and file stem, "ab").
# Example: AB_REF=main AB_KERNELS="tailsk128x256x8 streamk128x256x8" bash scripts/ab_ref.sh prepare
#          AB_KERNELS="tailsk128x256x8 streamk128x256x8" AB_SIZES=4096x4096x4096,8192x8192x8192 \
#              bash scripts/ab_ref.sh bench
set -euo pipefail
cd "$(dirname "$0")/.."
AB=kernels/ab
usage() { echo "usage: AB_KERNELS=\"NAME ...\" [AB_REF=REF] [AB_SIZES=MxNxK,...] bash scripts/ab_ref.sh prepare|bench" >&2; exit 2; }
[ -n "${AB_KERNELS:-}" ] || { echo "ab_ref.sh: AB_KERNELS names no kernel" >&2; usage; }
KERNELS=$AB_KERNELS
case ${1:-} in
  prepare)
    ref=${AB_REF:-}
    git rev-parse -q --verify "$ref^{commit}" >/dev/null || { echo "ab_ref.sh: AB_REF '$ref' is no commit here" >&2; exit 2; }
    rm -rf "$AB" && mkdir -p "$AB/src"
    git archive "$ref" kernels | tar -x -C "$AB/src" --strip-components=1
    PYTHONPATH=$PWD python3 - "$AB" "$ref" $KERNELS <<'PY'
import re, sys, tomllib
from pathlib import Path
import tomlkit
ab, ref, names = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
old = {k["name"]: k for k in tomllib.loads((ab / "src" / "ladder.toml").read_text())["kernel"]}
doc = tomlkit.document()
doc.add(tomlkit.comment(f"kernels/ at {ref}, renamed NAME_old (scripts/ab_ref.sh prepare)"))
tables = tomlkit.aot()
for name in names:
    if name not in old:
        sys.exit(f"{name}: not in the manifest at {ref}")
    spec = dict(old[name])
    source = ab / "src" / spec["file"]
    source.write_text(re.sub(rf"\b{re.escape(spec['entry'])}\b", spec["entry"] + "_old", source.read_text()))
    spec.update(name=f"{name}_old", file=f"src/{spec['file']}", entry=spec["entry"] + "_old",
                idea=f"{name} at {ref}: {spec['idea']}")
    tables.append(tomlkit.item(spec))
doc.add("kernel", tables)
(ab / "ab.toml").write_text(tomlkit.dumps(doc))
print(f"{ab}/ab.toml: " + ", ".join(f"{n}_old" for n in names))
PY
    ;;
  bench)
    OUT_DIR=${OUT:-reports/ab-out}; mkdir -p "$OUT_DIR"
    export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 COLUMNS=${COLUMNS:-200}
    export GEMMPROF_MANIFEST=$PWD/$AB/ab.toml GEMMPROF_CACHE_DIR=${GEMMPROF_CACHE_DIR:-$(mktemp -d)/cache}
    RUN=${AB_RUN:-ab}
    [ -f "$AB/ab.toml" ] || { echo "ab_ref.sh: no $AB/ab.toml: run prepare first (and carry $AB)" >&2; exit 2; }
    [ -n "${AB_SIZES:-}" ] || { echo "ab_ref.sh: AB_SIZES names no shape" >&2; usage; }
    ks=(); for k in $KERNELS; do ks+=(-k "$k" -k "${k}_old"); done
    smi() { nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks_throttle_reasons.active,power.draw --format=csv,noheader; }
    { smi; python3 -m profiler bench "${ks[@]}" --sizes "$AB_SIZES" \
          --max-seconds "${AB_MAX_SECONDS:-1.0}" --out "$OUT_DIR" --run-id "$RUN"; smi; } > "$OUT_DIR/$RUN.log" 2>&1 || status=$?
    cp "$OUT_DIR/$RUN/bench.csv" "$OUT_DIR/$RUN.csv" 2>/dev/null || true
    rm -rf "${OUT_DIR:?}/$RUN"
    tail -n 25 "$OUT_DIR/$RUN.log"
    exit ${status:-0}
    ;;
  *) usage ;;
esac
