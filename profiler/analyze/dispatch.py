"""Derive a dispatcher's rules from a bench sweep: at each shape the fastest kernel that passed,
turned into size thresholds (largest first), the way cuBLAS picks a kernel by shape.

Pure: a bench table and the ladder in, rules out; `render_toml` writes them for the manifest.
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


def render_toml(name: str, tier: str, rules: tuple[DispatchRule, ...], derived_from: str, idea: str) -> str:
    """The manifest entry, ready to paste into kernels/ladder.toml."""
    lines = ["[[dispatch]]", f'name = "{name}"', f'tier = "{tier}"', f'idea = "{idea}"',
             f'derived_from = "{derived_from}"', "rules = ["]
    for rule in rules:
        when = "" if rule.when == 1 else f'when = "{rule.when}", '
        lines.append(f'  {{ {when}kernel = "{rule.kernel}" }},')
    lines.append("]")
    return "\n".join(lines) + "\n"



def replace_entry(manifest_text: str, name: str, entry: str) -> str:
    """The manifest text with the `[[dispatch]]` entry called `name` replaced by `entry` (appended
    when there is none). Comments and every other entry stay as they are."""
    lines = manifest_text.splitlines(keepends=True)
    start = None
    for i, line in enumerate(lines):
        if line.strip() == "[[dispatch]]" and i + 1 < len(lines) and lines[i + 1].strip() == f'name = "{name}"':
            start = i
            break
    if start is None:
        return manifest_text.rstrip("\n") + "\n\n" + entry
    end = start + 1
    while end < len(lines) and not lines[end].startswith("[["):
        end += 1
    # keep the blank lines and comments that introduce the next entry
    while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
        end -= 1
    tail = "".join(lines[end:])
    return "".join(lines[:start]) + entry + ("\n" + tail if tail else "")
