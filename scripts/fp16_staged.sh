#!/usr/bin/env bash
# wgmma_staged and wgmma_staged128 (kernels 51-52: operands whose rows TMA cannot address copied by
# the grid to a 16-byte pitch, then the TMA + wgmma main loop) on the device, in one call of about
# 5 minutes on an H100 (issue 13): scripts/fp16.sh narrowed to
#   build   wgmma_persist, wmma_ragged and the staging rungs for sm_90a (ptxas table)
#   tests   the staging rungs' GPU tests (tests/gpu/test_fp16.py -k staged: odd N and K, only A or
#           only B staged, aligned shapes, repeats; tests/gpu/test_ladder.py's odd and whole-tile
#           shapes), each verified with beta = 0 and beta != 0
#   bench   those rungs, best-fp16 and cuBLAS GemmEx at the suite's unaligned squares, shapes with
#           only one operand staged, and 4096^3 (nothing staged: the cost of the path alone)
#   profile wmma_ragged (best-fp16's choice there so far), wgmma_staged and cuBLAS GemmEx under ncu
#           at 4095^3, then the report (what the staging rung fixed)
# Output under $OUT as fp16.sh's (fp16.log, build.txt, fp16-runs.tgz, fp16-report.tgz).
set -uo pipefail
cd "$(dirname "$0")/.."
export FP16_RUNGS=${FP16_RUNGS:-wgmma_persist wmma_ragged wgmma_staged wgmma_staged128}
export FP16_TESTS=${FP16_TESTS:-staged}
export FP16_STEPS=${FP16_STEPS:-build tests bench profile}
export FP16_SIZES=${FP16_SIZES:-1023x1023x1023,2500x2500x2500,4095x4095x4095,1000x1004x1004,512x1024x1001,2048x2047x2048,4096}
export FP16_PROFILE=${FP16_PROFILE:-wmma_ragged wgmma_staged}
export FP16_PROFILE_SIZE=${FP16_PROFILE_SIZE:-4095}
exec bash scripts/fp16.sh
