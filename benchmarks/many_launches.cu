// Launch the project's cubins many times from a plain CUDA program, for a many-launch ncu report.
//
// Why a C++ program: under ncu every launch costs a fixed time (0.46 s by kernel replay with the
// sections the tables read, on the H200), so 1,000 launches just fit one 600 s device call, and a
// program with nothing but the driver API adds no start-up of its own to that. (Application replay,
// which reruns the program once per pass, failed on the H200 with every section set tried, with this
// program as with the Python launcher: "Failed to profile sgemm_<kernel>"; benchmarks/results/README.md, Open questions.)
//
//   many_launches LAUNCHES SIZE CUBIN ENTRY GX GY BX BY SMEM [CUBIN ENTRY GX GY BX BY SMEM ...]
//
// Each kernel takes the ladder's FP32 arguments (M, N, K, alpha, A, B, beta, C) with M = N = K =
// SIZE; launch i runs kernel i mod (number of kernels). benchmarks/many_launches.py --args prints
// the arguments from the manifest.
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                     \
    do {                                                                                \
        CUresult r_ = (call);                                                           \
        if (r_ != CUDA_SUCCESS) {                                                       \
            const char* s_ = nullptr;                                                   \
            cuGetErrorString(r_, &s_);                                                  \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, s_);     \
            std::exit(1);                                                               \
        }                                                                               \
    } while (0)

struct Kernel {
    CUfunction function;
    unsigned grid[2], block[2], smem;
};

int main(int argc, char** argv)
{
    const int fields = 7;
    if (argc < 3 + fields || (argc - 3) % fields != 0) {
        std::fprintf(stderr, "usage: %s LAUNCHES SIZE (CUBIN ENTRY GX GY BX BY SMEM)...\n", argv[0]);
        return 2;
    }
    const int launches = std::atoi(argv[1]);
    int size = std::atoi(argv[2]);
    CHECK(cuInit(0));
    CUdevice device;
    CHECK(cuDeviceGet(&device, 0));
    CUcontext context;
    CHECK(cuDevicePrimaryCtxRetain(&context, device));
    CHECK(cuCtxSetCurrent(context));

    std::vector<Kernel> kernels;
    for (int a = 3; a < argc; a += fields) {
        CUmodule module;
        CHECK(cuModuleLoad(&module, argv[a]));
        Kernel k;
        CHECK(cuModuleGetFunction(&k.function, module, argv[a + 1]));
        for (int d = 0; d < 2; ++d) {
            k.grid[d] = std::atoi(argv[a + 2 + d]);
            k.block[d] = std::atoi(argv[a + 4 + d]);
        }
        k.smem = std::atoi(argv[a + 6]);
        kernels.push_back(k);
    }

    // Deterministic inputs (the same in every replay pass): small integers, exact in FP32.
    const size_t count = (size_t)size * size, bytes = count * sizeof(float);
    std::vector<float> host(count);
    for (size_t i = 0; i < count; ++i) host[i] = (float)((i * 7) % 13) - 6.0f;
    CUdeviceptr A, B, C;
    CHECK(cuMemAlloc(&A, bytes));
    CHECK(cuMemAlloc(&B, bytes));
    CHECK(cuMemAlloc(&C, bytes));
    CHECK(cuMemcpyHtoD(A, host.data(), bytes));
    CHECK(cuMemcpyHtoD(B, host.data(), bytes));
    CHECK(cuMemcpyHtoD(C, host.data(), bytes));

    float alpha = 1.0f, beta = 0.5f;
    void* args[] = {&size, &size, &size, &alpha, &A, &B, &beta, &C};
    for (int i = 0; i < launches; ++i) {
        const Kernel& k = kernels[i % kernels.size()];
        CHECK(cuLaunchKernel(k.function, k.grid[0], k.grid[1], 1, k.block[0], k.block[1], 1, k.smem,
                             nullptr, args, nullptr));
    }
    CHECK(cuCtxSynchronize());
    std::printf("%d launches of %zu kernels at %d^3\n", launches, kernels.size(), size);
    return 0;
}
