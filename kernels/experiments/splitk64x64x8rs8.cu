// splitk64x64x8rs8: splitk64x64x8rs at eight blocks per SM (launch bounds (64, 8): at most 128
// registers, 16 warps an SM), so a split grid may hold 1056 blocks: S = 2 for the 512 tiles of
// 32768x64x1024 and 16384x128x4096, which the rung's 792 leave unsplit.
// Contract and launch: the rung's, with 1056 // tiles in place of 792 // tiles in S.

#define RS_MIN_BLOCKS 8
#include "../29_splitk64x64x8rs.cu"
