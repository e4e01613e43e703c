"""Derive a dispatcher's rules from a bench sweep: an ordered list of readable conditions over
M, N, K and the GPU's SM count (`SMS`), each naming a kernel, ending in a kernel with no contract
so that every shape gets one (the way cuBLAS picks a kernel by shape and GPU).

How: a greedy decision list. At each step, among (kernel, condition) pairs, take the one that
claims the most shapes not yet claimed, provided the kernel is within `tolerance` of the fastest
kernel at every shape it claims (a rule never sends a shape to a kernel that is clearly slower
there). Conditions come from a small fixed vocabulary (tile counts against SMS, M*N*K thresholds
at the sweep's volumes, K against max(M, N), the short side of tall-skinny shapes, a last wave of
tiles at most 3/4 full), so the rules
stay readable. When no pair claims a shape cleanly, the last rule sends what is left to the
contract-free kernel that is fastest there (geometric mean of its share of the best). A rule whose kernel does not take a shape (contract)
is passed over at run time, exactly as here.

Pure: a bench table and the ladder in, rules out; `render_toml` writes them for the manifest
(through tomlkit, a TOML writer: nothing from a run is pasted into TOML text).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from ..catalogue.dispatchers import DEFAULT_MAX_RULES, DEFAULT_SMS, DEFAULT_TOLERANCE, DispatchRule
from ..catalogue.expressions import evaluate
from ..catalogue.kernel_spec import KernelSpec
from ..tiers import PASS
from .suite import geomean

TILES = "cdiv(M, {t}) * cdiv(N, {t})"
RECT_TILES = "cdiv(M, {m}) * cdiv(N, {n})"
# Wave quantisation: the tile shapes of the fast and the small rungs, and how many of each the GPU
# runs at once (128x256: one block per SM; 128x128: two). A last wave at most three quarters full
# is where a stream-K schedule (streamk*) gains on one block per tile.
WAVES = (((128, 256), "SMS"), ((128, 128), "2 * SMS"))


def fastest_per_shape(bench: pd.DataFrame, kernels: dict[str, KernelSpec], tier: str = "fp32") -> pd.DataFrame:
    """One row per shape: the ladder kernel of `tier` fastest (by `speed`) among those that passed
    there (cuBLAS and dispatchers excluded), its GFLOP/s and % of cuBLAS (NaN where not paired),
    and the runner-up's."""
    rows = _passed(bench, kernels, tier)
    rows = rows.assign(speed=speed(rows))
    out = []
    for (M, N, K), group in rows.groupby(["M", "N", "K"], sort=False):
        ranked = group.sort_values("speed", ascending=False)
        pct = pd.to_numeric(ranked["pct_of_cublas"], errors="coerce") if "pct_of_cublas" in ranked else None
        second = len(ranked) > 1
        out.append({"M": int(M), "N": int(N), "K": int(K), "volume": int(M) * int(N) * int(K),
                    "kernel": ranked.iloc[0]["kernel"], "gflops": float(ranked.iloc[0]["gflops"]),
                    "pct": float(pct.iloc[0]) if pct is not None else float("nan"),
                    "runner_up": ranked.iloc[1]["kernel"] if second else None,
                    "runner_up_gflops": float(ranked.iloc[1]["gflops"]) if second else float("nan"),
                    "runner_up_pct": float(pct.iloc[1]) if second and pct is not None else float("nan")})
    return pd.DataFrame(out).sort_values("volume", ignore_index=True) if out else pd.DataFrame(out)


def _passed(bench: pd.DataFrame, kernels: dict[str, KernelSpec], tier: str) -> pd.DataFrame:
    names = [n for n, s in kernels.items() if s.tier == tier]
    return bench[(bench["status"] == PASS) & bench["kernel"].isin(names) & (bench["gflops"] > 0)]


def speed(rows: pd.DataFrame) -> pd.Series:
    """How fast each row ran, comparable between rows of a sweep: its share of the cuBLAS run
    paired with it (`pct_of_cublas`) where every row has one, else its GFLOP/s. Rows of a sweep are
    timed minutes apart, and the GPU's speed drifts between them (cuBLAS's own time at
    32768x64x1024 differed 5% between two rows of shapes-suite-14, which made the slower of two
    kernels the faster there by GFLOP/s); the pairing cancels that drift."""
    pct = rows["pct_of_cublas"] if "pct_of_cublas" in rows.columns else None
    if pct is not None and len(rows) and bool((pd.to_numeric(pct, errors="coerce") > 0).all()):
        return pd.to_numeric(pct)
    return rows["gflops"]


def share_of_best(bench: pd.DataFrame, kernels: dict[str, KernelSpec], tier: str = "fp32") -> pd.DataFrame:
    """Shapes x kernels: each kernel's `speed` over the fastest kernel's at that shape (NaN where
    it did not pass or was not run). Index: (M, N, K) tuples, smallest volume first."""
    rows = _passed(bench, kernels, tier)
    if rows.empty:
        return pd.DataFrame()
    table = rows.assign(shape=[(int(m), int(n), int(k)) for m, n, k in zip(rows["M"], rows["N"], rows["K"])],
                        speed=speed(rows))
    fast = table.pivot_table(index="shape", columns="kernel", values="speed", aggfunc="max")
    fast = fast.loc[sorted(fast.index, key=lambda s: (s[0] * s[1] * s[2], s))]
    return fast.div(fast.max(axis=1), axis=0)


def conditions(shapes: list[tuple[int, int, int]]) -> list[str]:
    """The vocabulary of conditions, simplest first: tile counts against the SM count, M*N*K at
    the sweep's volumes, K against max(M, N)."""
    out = []
    for t in (64, 128):
        for bound in ("SMS // 2", "SMS", "2 * SMS", "4 * SMS"):
            out += [f"{TILES.format(t=t)} <= {bound}", f"{TILES.format(t=t)} > {bound}"]
    for r in (2, 4, 8, 16):
        out += [f"K >= {r} * max(M, N)", f"K < {r} * max(M, N)"]
    for k in (128, 256, 512):
        out.append(f"K <= {k}")
    for m in (128, 256):  # tall-skinny: one side a tile or two
        out += [f"min(M, N) <= {m}", f"min(M, N) > {m}"]
    for r in (4, 16):
        out += [f"max(M, N) >= {r} * min(M, N)", f"max(M, N) < {r} * min(M, N)"]
    for v in sorted({m * n * k for m, n, k in shapes}):
        out += [f"M * N * K >= {v}", f"M * N * K < {v}"]
    # After the older ones (a tie goes to the earlier condition): the one-warp 64x32 tiles of
    # streamk64x32x8 against the SM count, up to 8 waves of 64x64, and a partly empty last wave.
    for bound in ("SMS // 2", "SMS", "2 * SMS", "4 * SMS"):
        out += [f"{RECT_TILES.format(m=64, n=32)} <= {bound}", f"{RECT_TILES.format(m=64, n=32)} > {bound}"]
    out += [f"{TILES.format(t=64)} <= 8 * SMS", f"{TILES.format(t=64)} > 8 * SMS"]
    for (m, n), per in WAVES:
        out.append(f"0 < {RECT_TILES.format(m=m, n=n)} % {per if per == 'SMS' else f'({per})'} <= 3 * {per} // 4")
    return out


def derive_rules(bench: pd.DataFrame, kernels: dict[str, KernelSpec], tier: str = "fp32", sms: int = DEFAULT_SMS,
                 tolerance: float = DEFAULT_TOLERANCE, max_rules: int = DEFAULT_MAX_RULES) -> tuple[DispatchRule, ...]:
    """Rules for the dispatcher of `tier` from a sweep on a GPU of `sms` SMs (see the module).

    Each step takes the (kernel, condition) pair that claims the most shapes not yet claimed,
    all of them within `tolerance` of the fastest. Threshold conditions peel shapes off either end
    of an ordering, so a few dozen shapes need about a dozen rules: caps of 8, and with the stream-K
    rungs of 12, sent 2048^3 to a kernel at 80% of the fastest there."""
    share = share_of_best(bench, kernels, tier)
    if share.empty:
        raise ValueError("no kernel passed at any shape: nothing to derive from")
    # The last rule's candidates: kernels without a contract. A tier that has none (fp16 today)
    # ends with its broadest measured kernel, and shapes outside its contract get no kernel.
    free = [n for n, s in kernels.items() if s.tier == tier and not s.contract] or list(share.columns)
    search = _Search.of(share, kernels, sms, tolerance)
    # Fallbacks are not rules: when the contract-free kernels win no shape a contract-bound one
    # could take (FP16: wmma_ragged behind the TMA rungs), the shapes only they can take (odd
    # leading dimensions) go to the last rule. A rule sending them there by size (`tiles <= 4 *
    # SMS`) would also catch, on a GPU's next shape, aligned ones the fast kernels take.
    bound = [k for k in share.columns if k not in free]
    bound_takes = search.taken_by(bound)
    free_is_fallback = bool(bound) and not search.fastest_of(free) & bound_takes
    # With the free kernels only a fallback, the rule before it takes every shape the bound kernels
    # do: shapes the size rules did not reach (the cap) go to the best bound kernel, not to the
    # fallback (a first FP16 sweep with the TMA-store rungs sent 4096^3 to wmma_ragged, at 12%).
    left = search.every & bound_takes if free_is_fallback else search.every
    rules, left, complete = _claim(search, left, max_rules - (2 if free_is_fallback else 1), free)
    if complete:
        return tuple(rules)
    rest = search.indices(left) or search.indices(search.every)
    if free_is_fallback:
        if left:
            rules.append(DispatchRule(_fallback(share, rest, [k for k in bound if k in share.columns]), 1))
        # Behind an unconditional bound rule only shapes no bound kernel takes arrive, so rules
        # among the free kernels may split those by size without catching an aligned shape (FP16:
        # wgmma_staged at 2500^3 and 4095^3, wgmma_staged128 at 1023^3).
        among_free, only_free = _claim_among(search, free, search.every & ~bound_takes, max_rules - 1 - len(rules))
        rules += among_free
        rest = search.indices(only_free) or rest
    rules.append(DispatchRule(_fallback(share, rest, free), 1))
    return tuple(rules)


@dataclass(frozen=True)
class _Search:
    """What the greedy search picks among, as masks over the sweep's shapes (bit i: the i-th row
    of `share`): where each condition holds (`single`, "1" first; `pairs`, their conjunctions,
    made on first need), which shapes each kernel takes (`takes`: its contract) and where it is
    within tolerance of the fastest (`close`)."""

    share: pd.DataFrame
    single: list[tuple[str, int]]
    takes: dict[str, int]
    close: dict[str, int]
    pairs: list[tuple[str, int]] = field(default_factory=list)

    @classmethod
    def of(cls, share: pd.DataFrame, kernels: dict[str, KernelSpec], sms: int, tolerance: float) -> _Search:
        shapes = list(share.index)
        single = [(c, _mask(shapes, lambda s, c=c: evaluate(c, *s, sms))) for c in ["1", *conditions(shapes)]]
        takes = {k: _mask(shapes, lambda s, k=k: kernels[k].unsupported_reason(*s) is None) for k in share.columns}
        close = {k: _mask(shapes, lambda s, k=k: share.at[s, k] >= 1 - tolerance) for k in share.columns}  # NaN: False
        return cls(share, single, takes, close)

    @property
    def every(self) -> int:
        return (1 << len(self.share.index)) - 1

    def indices(self, mask: int) -> list[int]:
        return [i for i in range(len(self.share.index)) if mask >> i & 1]

    def taken_by(self, names: list[str]) -> int:
        """The shapes any of `names` takes."""
        out = 0
        for k in names:
            out |= self.takes[k]
        return out

    def fastest_of(self, names: list[str]) -> int:
        """The shapes where one of `names` is the fastest kernel measured."""
        out = 0
        for k in self.share.columns:
            if k in names:
                out |= _mask(list(self.share.index), lambda s, k=k: self.share.at[s, k] >= 1.0)  # NaN: False
        return out

    def pick(self, share: pd.DataFrame, left: int) -> tuple[str, str, int] | None:
        """`_best_rule` over the single conditions, else, where no one condition isolates a
        winner, over conjunctions of two (made on first need into `pairs`, then kept)."""
        pick = _best_rule(self.single, self.takes, self.close, share, left)
        if pick is None:
            if not self.pairs:
                self.pairs.extend(_pairs(self.single[1:]))
            pick = _best_rule(self.pairs, self.takes, self.close, share, left)
        return pick


def _claim(search: _Search, left: int, room: int, free: list[str]) -> tuple[list[DispatchRule], int, bool]:
    """At most `room` rules, each claiming the most of the shapes `left` (see `derive_rules`),
    the shapes still left, and whether the last rule is complete: one of the `free` kernels for
    any shape, after which no rule would ever run."""
    rules: list[DispatchRule] = []
    while left and len(rules) < room:
        pick = search.pick(search.share, left)
        if pick is None:
            break
        k, cond, claimed = pick
        rules.append(DispatchRule(k, 1 if cond == "1" else cond))
        left &= ~claimed
        if cond == "1" and k in free:
            return rules, left, True
    return rules, left, False


def _claim_among(search: _Search, free: list[str], left: int, room: int) -> tuple[list[DispatchRule], int]:
    """At most `room` conditional rules among the measured kernels of `free` claiming the shapes
    `left`, and the shapes still left."""
    measured = search.share[[k for k in free if k in search.share.columns]]
    rules: list[DispatchRule] = []
    while left and len(rules) < room and not measured.empty:
        pick = search.pick(measured, left)
        if pick is None or pick[1] == "1":
            break
        k, cond, claimed = pick
        rules.append(DispatchRule(k, cond))
        left &= ~claimed
    return rules, left


def _pairs(single: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Conjunctions of two conditions that hold together somewhere, in vocabulary order: for a
    shape no one condition tells apart from its neighbours (shapes-suite-4: 2048^3, whose 128x256
    rung is at 33% at 1024x1024x8192 of the same volume)."""
    return [(f"{a} and {b}", ma & mb) for i, (a, ma) in enumerate(single) for b, mb in single[i + 1:] if ma & mb]


def _mask(shapes: list[tuple[int, int, int]], test) -> int:
    """The shapes where `test` holds, as the bits of an integer (bit i: shapes[i])."""
    return sum(1 << i for i, s in enumerate(shapes) if test(s))


def _best_rule(candidates: list[tuple[str, int]], takes: dict[str, int], close: dict[str, int], share: pd.DataFrame,
               left: int) -> tuple[str, str, int] | None:
    """(kernel, condition, claimed shapes) of the candidate claiming the most unclaimed shapes,
    every one of them within tolerance (`close`); ties: higher mean share, then earlier condition."""
    best = None
    for order, (cond, holds) in enumerate(candidates):
        for k in share.columns:
            claimed = left & holds & takes[k]
            if not claimed or claimed & ~close[k]:
                continue
            rows = [i for i in range(len(share.index)) if claimed >> i & 1]
            score = (len(rows), sum(share.iat[i, share.columns.get_loc(k)] for i in rows) / len(rows), -order)
            if best is None or score > best[0]:
                best = (score, k, cond, claimed)
    return best and best[1:]


def _fallback(share: pd.DataFrame, rows: list[int], free: list[str]) -> str:
    """The contract-free kernel with the best geometric mean share of the fastest over `rows`
    (a shape where it did not pass counts as 1%); the first candidate when none was run."""
    measured = [k for k in free if k in share.columns]
    if not measured:
        return free[0]

    def log_mean(k: str) -> float:
        values = [share.iat[i, share.columns.get_loc(k)] for i in rows]
        return sum(math.log(v if v == v and v > 0 else 0.01) for v in values) / len(values)

    return max(measured, key=log_mean)


def predicted(share: pd.DataFrame, rules: tuple[DispatchRule, ...], kernels: dict[str, KernelSpec],
              sms: int = DEFAULT_SMS) -> pd.DataFrame:
    """Per shape of the sweep: the kernel the rules choose, the rule, and its share of the
    fastest kernel measured there (what the dispatcher would lose; NaN where it was not run)."""
    from ..catalogue.dispatchers import Dispatcher

    d = Dispatcher("derived", "", "", rules)
    out = []
    for shape in share.index:
        spec, i = d.pick(*shape, kernels, sms) or (None, -1)
        name = spec.name if spec else ""
        out.append({"M": shape[0], "N": shape[1], "K": shape[2], "kernel": name, "rule": i + 1,
                    "share_of_best": float(share.at[shape, name]) if name in share.columns else math.nan})
    return pd.DataFrame(out)


@dataclass(frozen=True)
class Scored:
    """Rules scored on a sweep: per shape the kernel they choose and its % of cuBLAS there
    (`rows`), and over the shapes where it ran the geometric mean and minimum of that %, beside
    the same for the fastest kernel at each shape (the best any rules could do on this sweep)."""

    rows: pd.DataFrame  # M, N, K, kernel, rule, pct (% of cuBLAS), best_pct, share_of_best
    geomean_pct: float
    min_pct: float
    min_shape: tuple[int, int, int] | None
    best_geomean_pct: float
    unmeasured: int  # shapes whose chosen kernel was not run (or failed) in the sweep


def score(rules: tuple[DispatchRule, ...], bench: pd.DataFrame, kernels: dict[str, KernelSpec], tier: str = "fp32",
          sms: int = DEFAULT_SMS) -> Scored:
    """How `rules` do on a sweep (every candidate timed at each shape, paired with cuBLAS): on the
    sweep they were derived from, the fit; on another, the validation (`gemmprof dispatch RUN
    --validate RUN2`)."""
    rows = _passed(bench, kernels, tier)
    pct = rows.assign(shape=[(int(m), int(n), int(k)) for m, n, k in zip(rows["M"], rows["N"], rows["K"])],
                      pct=pd.to_numeric(rows.get("pct_of_cublas"), errors="coerce"))
    pct = pct.pivot_table(index="shape", columns="kernel", values="pct", aggfunc="max") if len(pct) else pd.DataFrame()
    chosen = predicted(share_of_best(bench, kernels, tier), rules, kernels, sms)
    chosen["pct"] = [float(pct.at[(m, n, k), name]) if name in pct.columns else math.nan
                     for m, n, k, name in zip(chosen["M"], chosen["N"], chosen["K"], chosen["kernel"])]
    chosen["best_pct"] = [float(pct.loc[[(m, n, k)]].max(axis=1).iloc[0]) if len(pct) else math.nan
                          for m, n, k in zip(chosen["M"], chosen["N"], chosen["K"])]
    ran = chosen[chosen["pct"] > 0]
    low = ran.loc[ran["pct"].idxmin()] if len(ran) else None
    return Scored(chosen, geomean(ran["pct"]), float(low["pct"]) if low is not None else math.nan,
                  (int(low["M"]), int(low["N"]), int(low["K"])) if low is not None else None,
                  geomean(chosen["best_pct"][chosen["best_pct"] > 0]), int(len(chosen) - len(ran)))


def split_shapes(bench: pd.DataFrame, held_out: float, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A sweep cut in two by shape: (derivation rows, validation rows), about `held_out` of the
    shapes in the second. Which half a shape falls in depends only on the shape and `seed` (a
    hash, not the row order), so a sweep extended by more shapes keeps its earlier split."""
    import hashlib

    if not 0 < held_out < 1:
        raise ValueError(f"the held-out share must be between 0 and 1, not {held_out}")

    def out(m: int, n: int, k: int) -> bool:
        digest = hashlib.sha256(f"{seed}:{m}x{n}x{k}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2 ** 64 < held_out

    mask = pd.Series([out(int(m), int(n), int(k)) for m, n, k in zip(bench["M"], bench["N"], bench["K"])],
                     index=bench.index)
    return bench[~mask], bench[mask]


def _entry(name: str, tier: str, rules: tuple[DispatchRule, ...], derived_from: str, idea: str,
           tolerance: float = DEFAULT_TOLERANCE, ahead: tuple[DispatchRule, ...] = (), ahead_from: str = ""):
    """The `[[dispatch]]` table as a tomlkit item: every value is escaped by the TOML writer, so
    text from a run (its path, its GPU name) can never close a string and add keys or tables."""
    import tomlkit

    table = tomlkit.table()
    for key, value in (("name", name), ("tier", tier), ("idea", idea), ("derived_from", derived_from)):
        table.add(key, str(value))
    if tolerance != DEFAULT_TOLERANCE:  # recorded, so the rules can be derived again as they were
        table.add("tolerance", float(tolerance))
    if ahead:  # kept as they were: the sweep does not derive them
        table.add("ahead", _rule_array(ahead))
        table.add("ahead_from", str(ahead_from))
    table.add("rules", _rule_array(rules))
    return table


def _rule_array(rules: tuple[DispatchRule, ...]):
    import tomlkit

    array = tomlkit.array()
    array.multiline(True)
    for rule in rules:
        item = tomlkit.inline_table()
        if rule.when != 1:
            item.append("when", str(rule.when))
        item.append("kernel", str(rule.kernel))
        array.append(item)
    return array


def render_toml(name: str, tier: str, rules: tuple[DispatchRule, ...], derived_from: str, idea: str,
                tolerance: float = DEFAULT_TOLERANCE, ahead: tuple[DispatchRule, ...] = (), ahead_from: str = "") -> str:
    """The manifest entry, ready to paste into kernels/ladder.toml (written by a TOML writer)."""
    import tomlkit

    doc = tomlkit.document()
    entries = tomlkit.aot()
    entries.append(_entry(name, tier, rules, derived_from, idea, tolerance, ahead, ahead_from))
    doc.append("dispatch", entries)
    return tomlkit.dumps(doc)


def replace_entry(manifest_text: str, name: str, entry: str) -> str:
    """The manifest text with the `[[dispatch]]` entry called `name` replaced by the one in
    `entry` (appended when there is none), through a TOML parser and writer: comments, layout
    and every other entry stay as they are."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    from ..errors import GemmprofError

    try:
        doc = tomlkit.parse(manifest_text)
        (new,) = tomlkit.parse(entry)["dispatch"]
    except (TOMLKitError, KeyError, ValueError) as exc:
        raise GemmprofError(f"cannot edit the manifest: {exc}") from None
    if "dispatch" not in doc:
        doc.append("dispatch", tomlkit.aot())
    entries = doc["dispatch"]
    for i, table in enumerate(entries):
        if table.get("name") == name:
            # Comments after the old entry's last key belong to what follows it (the next
            # entry's preamble): tomlkit keeps them in the old table, so they move to the new one.
            body = table.value.body
            tail = len(body)
            while tail and body[tail - 1][0] is None:
                tail -= 1
            for _, item in body[tail:]:
                new.value.body.append((None, item))
            entries[i] = new
            break
    else:
        new.trivia.indent = "\n"  # a blank line before the new entry
        entries.append(new)
    return tomlkit.dumps(doc)
