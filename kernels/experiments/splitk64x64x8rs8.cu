// splitk64x64x8rs8: splitk64x64x8rs at eight blocks per SM, so 512 tiles still split in two.
//
// Predecessor: splitk64x64x8rs. Its launch bounds (64, 6) hold six blocks per SM: a split grid of
// at most 792 blocks leaves the 512 tiles of 32768x64x1024 and 16384x128x4096 unsplit. Idea:
// launch bounds (64, 8) (at most 128 registers, 16 warps an SM), split grids of up to 1056 blocks.
// Measured (H100, fp32-small suite, benchmarks/results/2026-11-23-h100/README.md): slower
// everywhere, 128x128x65536 91.5% of cuBLAS against the rung's 96.8%, 32768x64x1024 82.1 against
// 88.7: at 128 registers the main loop loses more than the extra warps and splits win.
//
// Contract and launch: the rung's, with 1056 // tiles in place of 792 // tiles in S.

#define RS_MIN_BLOCKS 8
#define sgemm_splitk64x64x8rs sgemm_splitk64x64x8rs8  // its own entry
#include "../29_splitk64x64x8rs.cu"
