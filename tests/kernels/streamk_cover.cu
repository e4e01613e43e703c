// Host driver for tests/project/test_streamk.py: runs kernels/streamk.cuh's schedules on the CPU,
// exactly as the kernels' blocks walk them: the streamk rungs' plan (first_work, next_work) and
// tailsk128x256x8's grid (tail_row, tail_whole_tile; tail_plan, tail_first, tail_next).
// stdin: lines "M N K BM BN G maxSlots maxCounters tail" (tail 0: plan, 1: tail_plan); stdout per
// line: "plan dpTiles tiles iters skCtas", then one line per unit "c tile k0 k1 kind slot counter
// arrivals" (c: the block, or under tail the block's column x; kind 0: whole tile stored directly;
// 1: a split tile's segment, its slot and counter and the arrivals expected on that counter),
// then "end".
#include <cstdio>

#include "../../kernels/streamk.cuh"

static void print_unit(const streamk::Plan& p, int c, const streamk::Work& w)
{
    if (w.k0 == 0 && w.k1 == p.iters) {
        std::printf("%d %d %d %d 0 -1 -1 1\n", c, w.tile, w.k0, w.k1);
        return;
    }
    const int s = w.tile - p.dpTiles;
    const long long base = (long long)s * p.iters;
    const int first = streamk::owner(p, base), last = streamk::owner(p, base + p.iters - 1);
    std::printf("%d %d %d %d 1 %d %d %d\n", c, w.tile, w.k0, w.k1, c + s, s, last - first + 1);
}

int main()
{
    int M, N, K, BM, BN, G, tail;
    long long maxSlots, maxCounters;
    while (std::scanf("%d %d %d %d %d %d %lld %lld %d", &M, &N, &K, &BM, &BN, &G, &maxSlots, &maxCounters, &tail) == 9) {
        if (!tail) {
            const streamk::Plan p = streamk::plan(M, N, K, BM, BN, G, maxSlots, maxCounters);
            std::printf("plan %d %d %d %d\n", p.dpTiles, p.tiles, p.iters, p.skCtas);
            for (int c = 0; c < G; ++c)
                for (streamk::Work w = streamk::first_work(p, c); w.k1 > w.k0; w = streamk::next_work(p, c, w)) print_unit(p, c, w);
        } else {
            const streamk::Plan p = streamk::tail_plan(M, N, K, BM, BN, G, maxSlots, maxCounters);
            std::printf("plan %d %d %d %d\n", p.dpTiles, p.tiles, p.iters, p.skCtas);
            const int rows = (p.tiles + G - 1) / G;
            for (int y = 0; y < rows; ++y)
                for (int x = 0; x < G; ++x) {
                    if (streamk::tail_row(p.tiles, G, y)) {
                        for (streamk::Work w = streamk::tail_first(p, x); w.k1 > w.k0; w = streamk::tail_next(p, w)) print_unit(p, x, w);
                        continue;
                    }
                    const int t = streamk::tail_whole_tile(p.tiles, G, x, y);
                    if (t >= 0) print_unit(p, x, streamk::Work{t, 0, p.iters, 0});
                }
        }
        std::printf("end\n");
    }
    return 0;
}
