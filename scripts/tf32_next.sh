#!/usr/bin/env bash
# The newest fp32-tc rungs (tf32x3ra, tf32x3raw) beside their predecessor tf32x3wg, in one device
# call (estimated 3-4 minutes on an H100): scripts/tf32.sh with
#   build   the three rungs for sm_90a, ptxas table and SASS mix
#   tests   their GPU tests (tf32x3ra matches tf32x3raw too): whole-tile shapes (1 to 64 k tiles,
#           rectangles both ways) PASS the FP32 bound, shapes outside the contract SKIP, error vs
#           FP64 within 2x of strict cuBLAS's at 1024^3, 2048x2048x4096, 4096^3 (and 8192^3 for raw)
#   suite   the quick shape suite: PASS at every shape they claim (K up to 11008), SKIP elsewhere
#   bench   4096 and 8192, paired with strict cuBLAS (yardstick) and cuBLAS FAST_TF32 (context)
#   profile the three rungs at 4096 (ncu --set full, --clock-control none), then `gemmprof report`
# Output under $OUT as scripts/tf32.sh's. Any TF32_* knob set by the caller wins.
export TF32_RUNGS=${TF32_RUNGS:-"tf32x3wg tf32x3ra tf32x3raw"}
export TF32_PROFILE_RUNGS=${TF32_PROFILE_RUNGS:-"tf32x3wg tf32x3ra tf32x3raw"}
export TF32_TESTS=${TF32_TESTS:-tf32x3ra}
export TF32_SIZES=${TF32_SIZES:-4096,8192}
export TF32_STEPS=${TF32_STEPS:-"build tests suite bench profile"}
exec bash "$(dirname "$0")/tf32.sh"
