// splitk64x64x8rss6: splitk64x64x8rs with six cp.async stages instead of four.
//
// Predecessor: splitk64x64x8rs. As splitk64x64x8s6, for the reduce-scatter rung that `best` runs
// at 32768x64x1024 and 128x128x65536.
//
// Measured (H100, benchmarks/results/2026-11-23-h100/lean-copies/s6.csv): 4-15% slower than the
// rung at eight shapes (32768x64x1024 80.1% of cuBLAS against 90.0).
//
// Contract and launch: the rung's.

#define RAGGED_STAGES 6
#define sgemm_splitk64x64x8rs sgemm_splitk64x64x8rss6  // its own entry
#include "../29_splitk64x64x8rs.cu"
