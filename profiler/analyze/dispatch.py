"""Derive a dispatcher's rules from a bench sweep: at each shape the fastest kernel that passed,
turned into size thresholds (largest first), the way cuBLAS picks a kernel by shape.

Pure: a bench table and the ladder in, rules out; `render_toml` writes them for the manifest
(through tomlkit, a TOML writer: nothing from a run is pasted into TOML text).
"""

from __future__ import annotations

import pandas as pd

from ..manifest import DispatchRule, KernelSpec


def fastest_per_shape(bench: pd.DataFrame, kernels: dict[str, KernelSpec], tier: str = "fp32") -> pd.DataFrame:
    """One row per shape: the ladder kernel of `tier` with the highest GFLOP/s among those that
    passed there (cuBLAS and dispatchers excluded), its GFLOP/s and the runner-up's."""
    rows = bench[(bench["status"] == "PASS") & bench["kernel"].isin([n for n, s in kernels.items() if s.tier == tier])]
    out = []
    for (M, N, K), group in rows.groupby(["M", "N", "K"], sort=False):
        ranked = group.sort_values("gflops", ascending=False)
        out.append({"M": int(M), "N": int(N), "K": int(K), "volume": int(M) * int(N) * int(K),
                    "kernel": ranked.iloc[0]["kernel"], "gflops": float(ranked.iloc[0]["gflops"]),
                    "runner_up": ranked.iloc[1]["kernel"] if len(ranked) > 1 else None,
                    "runner_up_gflops": float(ranked.iloc[1]["gflops"]) if len(ranked) > 1 else float("nan")})
    return pd.DataFrame(out).sort_values("volume", ignore_index=True) if out else pd.DataFrame(out)


def derive_rules(winners: pd.DataFrame, kernels: dict[str, KernelSpec]) -> tuple[DispatchRule, ...]:
    """Thresholds on M*N*K, largest first: a kernel wins from the smallest volume of its run of
    wins upwards. Then an unconditional fallback that takes any shape (the winner at the smallest
    size if its contract is 'any', else the fastest any-size kernel there), so every shape gets a
    kernel. A rule whose kernel does not take a shape is passed over at run time."""
    if winners.empty:
        raise ValueError("no kernel passed at any shape: nothing to derive from")
    rules: list[DispatchRule] = []
    runs: list[tuple[str, int]] = []  # (kernel, smallest volume of its run), smallest volumes first
    for kernel, volume in zip(winners["kernel"], winners["volume"]):
        if runs and runs[-1][0] == kernel:
            continue
        runs.append((kernel, int(volume)))
    for kernel, volume in reversed(runs[1:]):
        rules.append(DispatchRule(kernel, f"M * N * K >= {volume}"))
    smallest = runs[0][0]
    if kernels[smallest].contract:
        rules.append(DispatchRule(smallest, 1))
        any_size = [n for n, s in kernels.items() if not s.contract and s.tier == kernels[smallest].tier]
        smallest_row = winners.iloc[0]
        preferred = smallest_row["runner_up"] if smallest_row["runner_up"] in any_size else (any_size[0] if any_size else None)
        if preferred:
            rules.append(DispatchRule(preferred, 1))
    else:
        rules.append(DispatchRule(smallest, 1))
    return tuple(rules)


def _entry(name: str, tier: str, rules: tuple[DispatchRule, ...], derived_from: str, idea: str):
    """The `[[dispatch]]` table as a tomlkit item: every value is escaped by the TOML writer, so
    text from a run (its path, its GPU name) can never close a string and add keys or tables."""
    import tomlkit

    table = tomlkit.table()
    for key, value in (("name", name), ("tier", tier), ("idea", idea), ("derived_from", derived_from)):
        table.add(key, str(value))
    array = tomlkit.array()
    array.multiline(True)
    for rule in rules:
        item = tomlkit.inline_table()
        if rule.when != 1:
            item.append("when", str(rule.when))
        item.append("kernel", str(rule.kernel))
        array.append(item)
    table.add("rules", array)
    return table


def render_toml(name: str, tier: str, rules: tuple[DispatchRule, ...], derived_from: str, idea: str) -> str:
    """The manifest entry, ready to paste into kernels/ladder.toml (written by a TOML writer)."""
    import tomlkit

    doc = tomlkit.document()
    entries = tomlkit.aot()
    entries.append(_entry(name, tier, rules, derived_from, idea))
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
            entries[i] = new
            break
    else:
        new.trivia.indent = "\n"  # a blank line before the new entry
        entries.append(new)
    return tomlkit.dumps(doc)
