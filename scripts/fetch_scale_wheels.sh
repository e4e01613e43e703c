#!/usr/bin/env bash
# Wheels for `--gpus`/`--scheduler` (gemmprof[scale]: dask, distributed) that the device image lacks,
# into .whl/ (git-ignored through .git/info/exclude), for scripts/scale_check.sh there: nothing can be
# fetched on the device. The image already has cloudpickle, msgpack, psutil, pyyaml, toolz, click,
# jinja2, packaging, sortedcontainers, fsspec (KINDS.md's package list); the rest is named here,
# --no-deps so pip brings exactly these. Python 3.12, x86-64 (the device's python3).
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx "/.whl/" "$(git rev-parse --git-path info/exclude)" 2>/dev/null || echo /.whl/ >> "$(git rev-parse --git-path info/exclude)"
DASK=${DASK_VERSION:-2026.8.0}
PY=${PYTHON:-python3}
rm -rf .whl && mkdir -p .whl
"$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  --platform manylinux1_x86_64 -d .whl \
  "dask==$DASK" "distributed==$DASK" locket partd tblib tornado zict
ls -l .whl
du -sh .whl
