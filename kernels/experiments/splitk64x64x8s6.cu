// splitk64x64x8s6: splitk64x64x8 with six cp.async stages instead of four.
//
// Predecessor: splitk64x64x8. At 32768x64x1024 (one wave, two warps per scheduler) its warps
// wait on the copies (long scoreboard 0.26 cycles an instruction, against cuBLAS's 0.09). Idea:
// two more k tiles in flight (25,348 bytes of shared memory a block, six blocks still fit an SM).
//
// Measured (H100, one run beside the rung, benchmarks/results/2026-11-23-h100/lean-copies/s6.csv):
// no gain, 0.5-3% slower at eight shapes (32768x64x1024 91.6% of cuBLAS against 92.8); where
// the rung waits, two more tiles in flight do not shorten it.
//
// Contract and launch: the rung's.

#define RAGGED_STAGES 6
#define sgemm_splitk64x64x8 sgemm_splitk64x64x8s6  // its own entry
#include "../21_splitk64x64x8.cu"
