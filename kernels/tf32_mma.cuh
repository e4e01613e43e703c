// TF32 tensor-core primitives shared by the fp32-tc rungs (FP32 in and out, tensor cores inside).
//
// - (cp.async from cp_async.cuh: 16-byte copies global -> shared, one commit group per k tile.)
// - to_tf32: cvt.rna.tf32.f32, round to nearest (ties away) onto TF32's 10-bit mantissa; the
//   result is an FP32 bit pattern whose 13 low mantissa bits are zero, the form mma.sync reads.
// - split_tf32: x = big + small with big = tf32(x) and small = tf32(x - big). x - big is exact in
//   FP32 (big is x rounded), |small| <= 2^-11 |x|, and big + small differs from x by at most
//   2^-22 |x|: two TF32 numbers carry x to about FP32 accuracy ("3xTF32").
// - mma_tf32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32, D = A B + D on one warp.
//   Fragments (PTX ISA, "Matrix Fragments for mma.m16n8k8", .tf32), g = lane / 4, t = lane % 4:
//     A 16x8 row-major, a[0..3] = A[g][t], A[g+8][t], A[g][t+4], A[g+8][t+4]
//     B 8x8 "col", b[0..1] = B[t][g], B[t+4][g]  (a thread's two elements run along K)
//     C 16x8, c[0..3] = C[g][2t], C[g][2t+1], C[g+8][2t], C[g+8][2t+1]
#pragma once

#include <cstdint>

#include "cp_async.cuh"

__device__ __forceinline__ uint32_t to_tf32(float x)
{
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}

__device__ __forceinline__ void split_tf32(float x, uint32_t& big, uint32_t& small)
{
    big = to_tf32(x);
    small = to_tf32(x - __uint_as_float(big));
}

__device__ __forceinline__ void mma_tf32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
