"""A reproducible sample of GEMM shapes no suite lists, to test dispatch rules on shapes they were
not derived from: log-uniform M, N, K (odd sizes included), LLM decode steps (M 1-256 against the
weights of 7B-70B models), prefill projections, and a few batched-attention-sized products run
as one GEMM. Printed as a `[suite.NAME]` table for kernels/shapes.toml.

    python benchmarks/sample_shapes.py --name unseen --count 40 --seed 34

With --sectors, only FP16 shapes whose A or B rows TMA reads in place but that are not whole
32-byte sectors (N a multiple of 8, N or K not of 16; K odd in a quarter of them, so that A is
staged by TMA's own rule), too tall for the decode rules (M > 256) and at least 2^31
multiply-adds: the shapes a staging rule for such rows is chosen and scored on.

    python benchmarks/sample_shapes.py --sectors --name sectors --count 40 --seed 60

With --decode, only decode steps of any width: M log-uniform over 1-128, N over 1024-16384 and K
over 1024-32768, both multiples of 8: the shapes a rule for a decode kernel is chosen and scored on.

    python benchmarks/sample_shapes.py --decode --name decode --count 40 --seed 62

With --decode --weights, the decode steps of LLM inference only: M log-uniform over 1-128
against the weights of 7B-70B models (WEIGHTS). --rows LOW HIGH draws M over LOW-HIGH instead:
more shapes where a rule's bound on M is decided, or (129-512) batched decode and short prefill.

    python benchmarks/sample_shapes.py --decode --weights --name decode-llm --count 30 --seed 64

With --small, only small aligned products: M and N log-uniform over 129-2048, K over 129-65536,
all multiples of 8, at most 2^33 multiply-adds: products of a few to a few tens of microseconds
(squares up to 2048, K long against a small C), where a few large tiles leave most SMs idle.
--rows LOW HIGH draws M over LOW-HIGH instead (any integer: rows need no alignment).

    python benchmarks/sample_shapes.py --small --name small-products --count 30 --seed 75

With --odd, only small products whose rows TMA cannot address: M log-uniform over 16-2048, N over
16-2048 and K over 16-65536, any integers, N or K not a multiple of 8, at most 2^31 multiply-adds:
the products `wmma_tiny`, `skinny_any`, `wmma_stream` and the staging rungs share, where a rule's
bounds on K and on the product are decided (the `sample` suite holds few). --rows LOW HIGH draws
M over LOW-HIGH instead.

    python benchmarks/sample_shapes.py --odd --name small-odd --count 40 --seed 79

With --narrow, only tall products with a few columns whose rows TMA cannot address: M log-uniform
over 256-65536, N over 1-64 and K over 16-65536, any integers, N or K not a multiple of 8, at most
2^33 multiply-adds: where `wmma_tiny`'s 32-column tiles hold all of N and the staging rungs copy
a tall A for a C a tile or two wide.

    python benchmarks/sample_shapes.py --narrow --name narrow-odd --count 40 --seed 83

The same seed gives the same shapes (over the same suites). Shapes of the other suites are left out, and every shape
fits the budget below (memory and time a row may take on one GPU).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from profiler.catalogue.suites import SUITES_PATH, parse_suites  # noqa: E402
from profiler.catalogue.shapes import Shape  # noqa: E402

# Per shape: at most 2 GiB of FP32 operands and result, at most 2^38 multiply-adds (about 10 ms
# of FP32 at 50 TFLOP/s): a sample of 80 shapes benches in minutes.
MAX_BYTES = 2 << 30
MAX_VOLUME = 1 << 38
LOW, HIGH = 16, 65536

# Weight shapes (N x K of x @ W^T) of common decoder layers: Llama-2 7B / 13B, Llama-3 8B / 70B.
WEIGHTS = [(4096, 4096), (11008, 4096), (4096, 11008), (5120, 5120), (13824, 5120), (14336, 4096),
           (4096, 14336), (8192, 8192), (28672, 8192), (8192, 28672)]
DECODE_M = [1, 2, 8, 16, 32, 64, 128, 256]
PREFILL_M = [500, 2000, 3000]


def fits(m: int, n: int, k: int) -> bool:
    return 4 * (m * k + k * n + m * n) <= MAX_BYTES and m * n * k <= MAX_VOLUME


def other_suites_shapes(name: str) -> set[Shape]:
    """Every shape of kernels/shapes.toml's suites but `name`: a draw leaves them out."""
    return {shape for suite, shapes in parse_suites(SUITES_PATH.read_text()).items() if suite != name for shape in shapes}


def log_draw(rng: random.Random, low: float, high: float) -> float:
    """One draw, log-uniform over low-high."""
    return math.exp(rng.uniform(math.log(low), math.log(high)))


def log_int(rng: random.Random, low: int, high: int) -> int:
    """One integer, log-uniform over low-high."""
    return max(low, round(log_draw(rng, low, high)))


def log_uniform(rng: random.Random) -> int:
    return int(round(log_draw(rng, LOW, HIGH)))


def drawn(count: int, name: str, draw: Callable[[], Shape], keep: Callable[[Shape], bool] = lambda shape: True
          ) -> list[Shape]:
    """`count` shapes of `draw()`: those `keep` takes that fit the budget and that no other suite
    than `name` lists nor an earlier draw gave."""
    taken = other_suites_shapes(name)
    out: list[Shape] = []
    while len(out) < count:
        shape = draw()
        if keep(shape) and fits(*shape) and shape not in taken:
            taken.add(shape)
            out.append(shape)
    return out


def sample(count: int, seed: int, name: str) -> list[Shape]:
    rng = random.Random(seed)
    taken = other_suites_shapes(name)
    out: list[Shape] = []

    def add(shape: Shape) -> None:
        if shape not in taken and fits(*shape):
            taken.add(shape)
            out.append(shape)

    while len(out) < count:
        add((log_uniform(rng), log_uniform(rng), log_uniform(rng)))
    for m in DECODE_M:  # two weights per decode size, drawn
        for n, k in rng.sample(WEIGHTS, 2):
            add((m, n, k))
    for m in PREFILL_M:
        for n, k in rng.sample(WEIGHTS, 2):
            add((m, n, k))
    for heads, seq, dim in ((32, 512, 128), (64, 1024, 64)):  # Q K^T of one layer, heads stacked in M
        add((heads * seq, seq, dim))
    return out


def off_sectors(rng: random.Random) -> Shape:
    """One draw for --sectors: M, N, K log-uniform over 257-16384, N (and K in three draws of
    four) rounded to a multiple of 8."""
    def draw() -> int:
        return int(round(log_draw(rng, 257, 16384)))

    m, n, k = draw(), draw() // 8 * 8, draw()
    return m, n, (k // 8 * 8 if rng.random() < 0.75 else k | 1)


def sectors(count: int, seed: int, name: str) -> list[Shape]:
    rng = random.Random(seed)
    return drawn(count, name, lambda: off_sectors(rng),
                 lambda s: bool(s[1] % 16 or s[2] % 16) and s[0] * s[1] * s[2] >= 1 << 31)


def decode(count: int, seed: int, name: str, weights: bool = False, rows: tuple[int, int] = (1, 128)
           ) -> list[Shape]:
    rng = random.Random(seed)

    def draw() -> Shape:
        m = max(1, round(log_draw(rng, *rows)))
        if weights:
            return (m, *rng.choice(WEIGHTS))
        return m, round(log_draw(rng, 1024, 16384) / 8) * 8, round(log_draw(rng, 1024, 32768) / 8) * 8

    return drawn(count, name, draw)


SMALL_ROWS = (129, 2048)


def small(count: int, seed: int, name: str, rows: tuple[int, int] = SMALL_ROWS) -> list[Shape]:
    rng = random.Random(seed)

    def draw(high: int) -> int:
        return max(136, round(log_draw(rng, 129, high) / 8) * 8)

    def draw_m() -> int:  # M over `rows`, any integer; the first draws' M as N and K were drawn
        if rows == SMALL_ROWS:
            return draw(2048)
        return log_int(rng, *rows)

    return drawn(count, name, lambda: (draw_m(), draw(2048), draw(65536)), lambda s: s[0] * s[1] * s[2] <= 1 << 33)


ODD_ROWS = (16, 2048)
ODD_VOLUME = 1 << 31


def small_odd(count: int, seed: int, name: str, rows: tuple[int, int] = ODD_ROWS) -> list[Shape]:
    rng = random.Random(seed)
    return drawn(count, name, lambda: (log_int(rng, *rows), log_int(rng, 16, 2048), log_int(rng, 16, 65536)),
                 lambda s: bool(s[1] % 8 or s[2] % 8) and s[0] * s[1] * s[2] <= ODD_VOLUME)


NARROW_VOLUME = 1 << 33


def narrow_odd(count: int, seed: int, name: str) -> list[Shape]:
    rng = random.Random(seed)
    return drawn(count, name, lambda: (log_int(rng, 256, 65536), log_int(rng, 1, 64), log_int(rng, 16, 65536)),
                 lambda s: bool(s[1] % 8 or s[2] % 8) and s[0] * s[1] * s[2] <= NARROW_VOLUME)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", default="unseen")
    parser.add_argument("--count", type=int, default=40, help="log-uniform shapes (the LLM shapes come on top)")
    parser.add_argument("--seed", type=int, default=34)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--sectors", action="store_true", help="only FP16 rows TMA reads in place that are not whole sectors")
    mode.add_argument("--decode", action="store_true", help="only decode steps: M 1-128, N and K multiples of 8")
    mode.add_argument("--small", action="store_true", help="only small aligned products: M, N 129-2048, K 129-65536")
    mode.add_argument("--odd", action="store_true", help="only small products with N or K not a multiple of 8")
    mode.add_argument("--narrow", action="store_true", help="only tall products of N 1-64 with N or K not a multiple of 8")
    parser.add_argument("--weights", action="store_true", help="with --decode: N and K those of LLM weights")
    parser.add_argument("--rows", type=int, nargs=2, metavar=("LOW", "HIGH"),
                        help="with --decode, --small or --odd: M log-uniform over LOW-HIGH (default 1-128, 129-2048, "
                             "16-2048)")
    args = parser.parse_args(argv)
    if args.weights and not args.decode:
        parser.error("--weights goes with --decode")
    if args.rows and not (args.decode or args.small or args.odd):
        parser.error("--rows goes with --decode, --small or --odd")
    default_rows = SMALL_ROWS if args.small else ODD_ROWS if args.odd else (1, 128)
    rows = tuple(args.rows) if args.rows else default_rows
    if not 1 <= rows[0] <= rows[1]:
        parser.error("--rows LOW HIGH: 1 <= LOW <= HIGH")
    if args.decode:
        shapes = decode(args.count, args.seed, args.name, args.weights, rows)
    elif args.small:
        shapes = small(args.count, args.seed, args.name, rows)
    elif args.odd:
        shapes = small_odd(args.count, args.seed, args.name, rows)
    elif args.narrow:
        shapes = narrow_odd(args.count, args.seed, args.name)
    else:
        shapes = (sectors if args.sectors else sample)(args.count, args.seed, args.name)
    items = [f'"{m}x{n}x{k}"' for m, n, k in shapes]
    lines = [", ".join(items[i:i + 6]) + "," for i in range(0, len(items), 6)]
    low, high = rows
    what = ("M 257-16384 and N, K of FP16 rows that are not whole 32-byte sectors (N a multiple of 8), at least 2^31 "
            "multiply-adds" if args.sectors else
            f"LLM steps of {low}-{high} rows (batched decode, short prefill) against 7B-70B weights" if args.weights and high > 128 else
            f"LLM decode steps, log-uniform M {low}-{high} against 7B-70B weights" if args.weights else
            f"decode steps, log-uniform M {low}-{high}, N 1024-16384 and K 1024-32768, N and K multiples of 8" if args.decode else
            "small aligned products, log-uniform M, N 129-2048 and K 129-65536 rounded to multiples of 8 (136 at least), at most 2^33 "
            "multiply-adds" if args.small and rows == SMALL_ROWS else
            f"small products, log-uniform M {low}-{high}, N 129-2048 and K 129-65536 rounded to multiples of 8 (136 at least), "
            "at most 2^33 multiply-adds" if args.small else
            f"small products whose N or K is not a multiple of 8, log-uniform M {low}-{high}, N 16-2048 and K 16-65536, "
            "at most 2^31 multiply-adds" if args.odd else
            "tall products whose N or K is not a multiple of 8, log-uniform M 256-65536, N 1-64 and K 16-65536, at most "
            "2^33 multiply-adds" if args.narrow else
            "log-uniform M, N, K 16-65536, LLM decode M 1-256 and prefill against 7B-70B weights, attention-sized products")
    print(f"[suite.{args.name}]")
    flags = "".join(f"--{flag} " for flag in ("sectors", "small", "odd", "narrow", "decode", "weights") if getattr(args, flag))
    print(f'description = "{len(shapes)} shapes no other suite lists (benchmarks/sample_shapes.py {flags}'
          f'{f"--rows {low} {high} " * (rows != default_rows)}--name {args.name} --count {args.count} --seed {args.seed}): {what}"')
    print("shapes = [\n  " + "\n  ".join(lines) + "\n]")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
