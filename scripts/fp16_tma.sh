#!/usr/bin/env bash
# wgmma_tmastore (kernel 49: wgmma_persist with the epilogue through shared memory and TMA stores)
# and wgmma_tmastore_deep (50: 4 staging buffers per warpgroup, 3 stages) on the device, in one
# call of about 5 minutes on an H100 (issue 13): scripts/fp16.sh narrowed to
#   build   wgmma_persist and the two TMA-store rungs for sm_90a (ptxas table: registers, spills)
#   tests   the GPU tests of the TMA-store rungs (tests/gpu/test_fp16.py: aligned and ragged shapes,
#           the rows TMA cannot describe skipped, repeats, clipped edges; tests/gpu/test_ladder.py's
#           odd and whole-tile shapes), each verified with beta = 0 and beta != 0
#   bench   wgmma_persist, the TMA-store rungs, best-fp16 and cuBLAS GemmEx at 2048, 4096, 8192 and
#           ragged shapes (% of cuBLAS per shape)
#   profile wgmma_persist, the TMA-store rungs and cuBLAS GemmEx under ncu at 4096^3, then the report
# Output under $OUT as fp16.sh's (fp16.log, build.txt, fp16-runs.tgz, fp16-report.tgz).
# Any FP16_* knob of fp16.sh set by the caller wins.
set -uo pipefail
cd "$(dirname "$0")/.."
export FP16_RUNGS=${FP16_RUNGS:-wgmma_persist wgmma_tmastore wgmma_tmastore_deep}
export FP16_TESTS=${FP16_TESTS:-tmastore}
export FP16_STEPS=${FP16_STEPS:-build tests bench profile}
export FP16_SIZES=${FP16_SIZES:-2048,4096,8192,3000x3000x3000,4095x4104x4096}
export FP16_PROFILE=${FP16_PROFILE:-wgmma_persist wgmma_tmastore wgmma_tmastore_deep}
export FP16_PROFILE_SIZE=${FP16_PROFILE_SIZE:-4096}
exec bash scripts/fp16.sh
