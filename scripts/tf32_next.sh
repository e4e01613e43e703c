#!/usr/bin/env bash
# The newest fp32-tc rung (tf32x3bits) beside its predecessor tf32x3raw, in one device call (about 2
# minutes on an H100): scripts/tf32.sh with
#   build   the two rungs for sm_90a, ptxas table and SASS mix
#   tests   tf32x3bits' GPU tests: whole-tile shapes (1 to 64 k tiles, rectangles both ways) PASS
#           the FP32 bound, shapes outside the contract SKIP, error vs FP64 within 2x of strict
#           cuBLAS's at 1024^3, 2048x2048x4096, 4096^3 and 8192^3
#   suite   the quick shape suite: PASS at every shape they claim (K up to 11008), SKIP elsewhere
#   bench   4096 and 8192, paired with strict cuBLAS (yardstick) and cuBLAS FAST_TF32 (context)
#   profile the two rungs at 4096 (ncu --set full, --clock-control none), then `gemmprof report`
# Output under $OUT as scripts/tf32.sh's. Any TF32_* knob set by the caller wins.
export TF32_RUNGS=${TF32_RUNGS:-"tf32x3raw tf32x3bits"}
export TF32_PROFILE_RUNGS=${TF32_PROFILE_RUNGS:-"tf32x3raw tf32x3bits"}
export TF32_TESTS=${TF32_TESTS:-tf32x3bits}
export TF32_SIZES=${TF32_SIZES:-4096,8192}
export TF32_STEPS=${TF32_STEPS:-"build tests suite bench profile"}
exec bash "$(dirname "$0")/tf32.sh"
