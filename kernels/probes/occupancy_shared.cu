// probe occupancy_shared: a small-block kernel that asks for far more shared memory than it uses.
//
// Predecessor: blocktile2d.
// Idea: a 64x64x8 smem-tiled kernel, 256 threads, each computing a 4x4 micro-tile; its tiles
// take 4 KiB of shared memory. Planted: the manifest launches it with 200 KiB of dynamic shared
// memory, so one block (8 warps) fits on an SM where the registers and threads would allow
// eight. With so few warps the loads' latency is not hidden. Planted cause: occupancy_shared.
//
// Contract: M, N multiples of 64, K of 8. Launch: block (256), grid (N/64, M/64), dynamic
// shared memory 204,800 bytes (4,224 used). beta == 0: C is not read.

#include "probe_tiles.cuh"

#define BM 64
#define BN 64
#define BK 8
#define TM 4
#define TN 4

extern "C" __global__ void __launch_bounds__(256)
sgemm_probe_occupancy_shared(int M, int N, int K, float alpha, const float* __restrict__ A,
                             const float* __restrict__ B, float beta, float* __restrict__ C)
{
    extern __shared__ __align__(16) float smem[];  // the launch asks for 200 KiB; the tiles use 4 KiB
    float (*As)[BM + 4] = reinterpret_cast<float (*)[BM + 4]>(smem);          // As[BK][BM + 4], transposed
    float (*Bs)[BN] = reinterpret_cast<float (*)[BN]>(smem + BK * (BM + 4));  // Bs[BK][BN]
    probe::blocktile2d<BM, BN, BK, TM, TN, float>(As, Bs, N, K, alpha, A, B, beta, C);
}
