#!/usr/bin/env bash
# Profile every probe (kernels/probes/probes.toml) at its own probe_shape into ONE run directory
# (run id "probes"; profile extends an existing run, one report per kernel and shape), cuBLAS
# beside the probes that share the most common shape; then `analyze` and `report` on it, the
# SASS instruction mix of each probe's cubin, and the run packed as $OUT/probes.tgz (reports,
# run.json, profile.jsonl, tables, report/). Unpack it into tests/data/probes-<gpu>/ (see the
# README there). Knobs: PROBES (names, default all), PROBES_RUNS (where the run goes).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-reports/probes-out}
RUNS=${PROBES_RUNS:-$(mktemp -d)/runs}
RUN_ID=probes
MANIFEST=kernels/probes/probes.toml
mkdir -p "$OUT_DIR" "$RUNS"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
export GEMMPROF_CACHE_DIR=${GEMMPROF_CACHE_DIR:-$(mktemp -d)/cache}
status=0
step() { echo; echo "=== $* ($(date +%T))"; }
# One line per probe shape: "M N K name ...", the most common shape first with cublas added.
groups=$(python3 - ${PROBES:-} <<'PY'
import sys
from collections import defaultdict
from profiler.catalogue.kernel_paths import PROBES_MANIFEST
from profiler.catalogue.manifest import load_manifest
chosen = set(sys.argv[1:])
by_shape = defaultdict(list)
for s in load_manifest(PROBES_MANIFEST):
    if not chosen or s.name in chosen:
        by_shape[tuple(s.probe_shape)].append(s.name)
for i, (shape, names) in enumerate(sorted(by_shape.items(), key=lambda kv: -len(kv[1]))):
    print(*shape, *names, *(["cublas"] if i == 0 else []))
PY
) || exit 1
START=$SECONDS
while read -r M N K names; do
    step "profile $names at ${M}x${N}x${K}"
    SECONDS_BEFORE=$SECONDS
    k_args=""; for n in $names; do k_args="$k_args -k $n"; done
    COLUMNS=160 python3 -m profiler profile --manifest "$MANIFEST" $k_args --mnk "$M" "$N" "$K" \
        --xz --out "$RUNS" --run-id "$RUN_ID" || status=1
    echo "step: $((SECONDS - SECONDS_BEFORE)) s"
done <<< "$groups"
echo "all profiles: $((SECONDS - START)) s"
RUN="$RUNS/$RUN_ID"
ls -l "$RUN/ncu"
step "analyze"
COLUMNS=220 python3 -m profiler analyze "$RUN" || status=1
step "report"
python3 -m profiler report --manifest "$MANIFEST" "$RUN" -o "$RUN/report" || status=1
[ -f "$RUN/report/diagnosis.json" ] && python3 -c "import json,sys; [print(d.get('kernel'), '|', d.get('bound'), '|', d.get('cause'), '|', d.get('problem')) for d in json.load(open(sys.argv[1]))['kernels']]" "$RUN/report/diagnosis.json" 2>/dev/null
step "SASS instruction mix of each probe (cuobjdump -sass)"
python3 - <<'PY' || status=1
import collections, re, subprocess
from profiler.catalogue.kernel_paths import PROBES_MANIFEST
from profiler.catalogue.manifest import load_manifest
from profiler.measure.build import build_kernel
WATCH = ("DFMA", "DADD", "DMUL", "F2F", "FFMA", "LDL", "STL", "LDS", "STS", "ATOM", "ATOMG", "RED", "REDG", "BAR", "BSSY", "HGMMA", "STG", "LDG")
for spec in load_manifest(PROBES_MANIFEST):
    sass = subprocess.run(["cuobjdump", "-sass", str(build_kernel(spec, "sm_90").cubin)], capture_output=True, text=True).stdout
    ops = collections.Counter(m.split(".")[0] for m in re.findall(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", sass))
    print(f"{spec.name:26} {spec.planted:18}", " ".join(f"{op}={ops[op]}" for op in WATCH if ops[op]))
PY
tar -czf "$OUT_DIR/probes.tgz" -C "$RUNS" --exclude=extract "$RUN_ID" || status=1
ls -l "$OUT_DIR/probes.tgz"
echo "probes finished in $((SECONDS - START)) s (status $status)"
exit $status
