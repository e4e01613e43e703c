"""Where the "bank conflicts" ncu counts on 4-byte cp.async come from (a probe, run once on the
device: `ncu --clock-control none --metrics smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum,
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum,smsp__inst_executed_op_ldgsts.sum python3
scripts/ldgsts_lines_probe.py`; benchmarks/results/2026-11-23-h100/ldgsts-probe.log). One warp; every
variant writes shared word `lane` (bank = lane: conflict-free), reading global memory as
  line:   32 consecutive floats (one 128-byte line)
  rows4:  4 rows x 8 floats (4 lines: the spread tile's A copies)
  rows32: 32 rows x 1 float (32 lines)
  f16:    16-byte copies, 512 contiguous bytes, shared words 4 lane.. (the B copies)
On the H100: 1, 4, 32 and 4 wavefronts per warp copy (256 of each); ncu counts 0, 3, 30 and 0 as bank
conflicts. analyze/shared_memory.py reads LDGSTS excess up to its lines as lines."""

import cupy as cp

SRC = r'''
extern "C" __global__ void probe(const float* __restrict__ g, float* out, int mode, int iters)
{
    __shared__ __align__(16) float s[4 * 32 * 4];
    const int lane = threadIdx.x;
    const int stride = 4096;  // floats between rows
    unsigned d = (unsigned)__cvta_generic_to_shared(&s[lane]);
    for (int it = 0; it < iters; ++it) {
        const float* src;
        if (mode == 0) src = g + it * 32 + lane;
        else if (mode == 1) src = g + it * 8 + (lane >> 3) * stride + (lane & 7);
        else if (mode == 2) src = g + it + lane * stride;
        if (mode < 3) {
            asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" :: "r"(d), "l"(src) : "memory");
        } else {
            unsigned d16 = (unsigned)__cvta_generic_to_shared(&s[4 * lane]);
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(d16), "l"(g + it * 128 + 4 * lane) : "memory");
        }
        asm volatile("cp.async.commit_group;\n" ::: "memory");
        asm volatile("cp.async.wait_group 0;\n" ::: "memory");
        __syncwarp();
    }
    out[lane] = s[lane] + s[4 * lane];
}
'''
mod = cp.RawModule(code=SRC, options=("-arch=sm_90",))
k = mod.get_function("probe")
g = cp.arange(4096 * 64, dtype=cp.float32)
out = cp.zeros(32, dtype=cp.float32)
for mode in range(4):
    k((1,), (32,), (g, out, cp.int32(mode), cp.int32(256)))
cp.cuda.runtime.deviceSynchronize()
print("done")
