// Host driver for tests/test_streamk_schedule.py: runs kernels/streamk.cuh's schedule (plan,
// first_work, next_work, owner) on the CPU, exactly as the kernels' blocks walk it.
// stdin: lines "M N K BM BN G maxSlots maxCounters"; stdout per line: "plan dpTiles tiles iters
// skCtas", then one line per unit "c tile k0 k1 kind slot counter arrivals" (kind 0: whole tile
// stored directly; 1: a split tile's segment, its slot and counter and the arrivals expected on
// that counter), then "end".
#include <cstdio>

#include "../../kernels/streamk.cuh"

int main()
{
    int M, N, K, BM, BN, G;
    long long maxSlots, maxCounters;
    while (std::scanf("%d %d %d %d %d %d %lld %lld", &M, &N, &K, &BM, &BN, &G, &maxSlots, &maxCounters) == 8) {
        const streamk::Plan p = streamk::plan(M, N, K, BM, BN, G, maxSlots, maxCounters);
        std::printf("plan %d %d %d %d\n", p.dpTiles, p.tiles, p.iters, p.skCtas);
        for (int c = 0; c < G; ++c)
            for (streamk::Work w = streamk::first_work(p, c); w.k1 > w.k0; w = streamk::next_work(p, c, w)) {
                if (w.k0 == 0 && w.k1 == p.iters) {
                    std::printf("%d %d %d %d 0 -1 -1 1\n", c, w.tile, w.k0, w.k1);
                    continue;
                }
                const int s = w.tile - p.dpTiles;
                const long long base = (long long)s * p.iters;
                const int first = streamk::owner(p, base), last = streamk::owner(p, base + p.iters - 1);
                std::printf("%d %d %d %d 1 %d %d %d\n", c, w.tile, w.k0, w.k1, c + s, s, last - first + 1);
            }
        std::printf("end\n");
    }
    return 0;
}
