"""Dispatchers: one name, a kernel chosen by shape (as cuBLAS's heuristics do), from the manifest's
`[[dispatch]]` rules; parsed and checked against the kernels, and picked out of a --kernel list."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..errors import GemmprofError
from ..tiers import CUBLAS
from .expressions import DEFAULT_SMS, Expr, evaluate
from .kernel_spec import KernelSpec
from . import kernel_paths
from .manifest import UnknownKernelError, forget_kernels, load_manifest, select_kernels
from .manifest_parse import parse_manifest
from .toml_tables import entries, read_toml


# A derived rule may send a sweep shape only to a kernel within this share of the fastest there.
DEFAULT_TOLERANCE = 0.03
# At most this many derived rules (the last takes any shape). Greedy rules peel shapes off the
# sweep a few at a time; when the cap runs out first, the last rule takes what is left, whatever
# its share there: 14, with splitk64x64x8rs and streamk128x256x8 among the FP32 candidates, sent
# 2048^3 to a kernel at 79% of the fastest (the H100 sweep tests/data/sweeps-h100/shapes-suite-9).
DEFAULT_MAX_RULES = 16


@dataclass(frozen=True)
class DispatchRule:
    kernel: str
    when: Expr = 1  # a condition over M, N, K and SMS; the first rule that holds and whose kernel takes the shape wins


@dataclass(frozen=True)
class Dispatcher:
    """`[[dispatch]]` in the manifest: rules derived from a sweep (`gemmprof dispatch RUN`), after
    the `ahead` rules: those for shapes the sweep did not hold (a kernel added for a regime it
    never timed), each measured apart, in the run `ahead_from` names."""

    name: str
    tier: str
    idea: str
    rules: tuple[DispatchRule, ...]
    derived_from: str = ""  # the run whose sweep the rules come from
    tolerance: float = DEFAULT_TOLERANCE  # how close to the fastest a rule's kernel had to be there
    ahead: tuple[DispatchRule, ...] = ()  # tried before `rules`
    ahead_from: str = ""  # the run that measured them
    via: tuple[Dispatcher, ...] = ()  # the dispatchers its rules name instead of a kernel (declared above it)

    @property
    def via_named(self) -> dict[str, Dispatcher]:
        return {d.name: d for d in self.via}

    @property
    def ordered(self) -> tuple[DispatchRule, ...]:
        """Every rule in the order they are tried: `ahead`, then the derived `rules`."""
        return self.ahead + self.rules

    def choose(self, M: int, N: int, K: int, kernels: dict[str, KernelSpec], sms: int = DEFAULT_SMS) -> KernelSpec | None:
        picked = self.pick(M, N, K, kernels, sms)
        return picked[0] if picked else None

    def pick(self, M: int, N: int, K: int, kernels: dict[str, KernelSpec], sms: int = DEFAULT_SMS) -> tuple[KernelSpec, int] | None:
        """(the kernel, the index of the rule that chose it) at this shape on a GPU of `sms` SMs. A
        rule naming a dispatcher holds where its condition does and that dispatcher has a kernel."""
        nested = self.via_named
        for i, rule in enumerate(self.ordered):
            try:
                holds = evaluate(rule.when, M, N, K, sms)
            except ValueError as exc:  # e.g. a condition dividing by zero at this shape only
                raise GemmprofError(f"dispatch {self.name}: rule for {rule.kernel}: {exc}",
                                    "fix the condition in the manifest") from None
            if not holds:
                continue
            if rule.kernel in nested:
                picked = nested[rule.kernel].pick(M, N, K, kernels, sms)
                if picked is not None:
                    return picked[0], i
            elif kernels[rule.kernel].unsupported_reason(M, N, K) is None:
                return kernels[rule.kernel], i
        return None

    def kernel_names(self) -> list[str]:
        """Every kernel its rules can choose, those of the dispatchers they name included."""
        nested = self.via_named
        names = [n for r in self.ordered for n in (nested[r.kernel].kernel_names() if r.kernel in nested else [r.kernel])]
        return list(dict.fromkeys(names))

    def reason(self, index: int) -> str:
        """Why rule `index` was chosen, for the bench row: its number and condition."""
        rule = self.ordered[index]
        via = f", then {rule.kernel}'s rules" if rule.kernel in self.via_named else ""
        return f"rule {index + 1}: " + ("always" if rule.when == 1 else str(rule.when)) + via


def parse_dispatchers(text: str, kernels: tuple[KernelSpec, ...], where: str = "ladder.toml") -> tuple[Dispatcher, ...]:
    data = read_toml(text, where)
    names = {s.name: s for s in kernels}
    out = []
    for i, entry in enumerate(entries(data, "dispatch", where), start=1):
        label = entry.get("name", f"dispatch #{i}")
        unknown = sorted(set(entry) - {"name", "tier", "idea", "rules", "derived_from", "tolerance", "ahead", "ahead_from"})
        if unknown or not all(k in entry for k in ("name", "tier", "idea", "rules")):
            raise GemmprofError(f"{where}: dispatch {label}: needs name, tier, idea, rules" + (f"; unknown keys {unknown}" if unknown else ""))
        if not all(isinstance(entry.get(k, ""), str) for k in ("name", "tier", "idea", "derived_from", "ahead_from")):
            raise GemmprofError(f"{where}: dispatch {label}: name, tier, idea, derived_from and ahead_from must be strings")
        tolerance = entry.get("tolerance", DEFAULT_TOLERANCE)
        if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 <= tolerance < 1:
            raise GemmprofError(f"{where}: dispatch {label}: tolerance must be a fraction in [0, 1), e.g. 0.05")
        for key in ("rules", "ahead"):
            if not isinstance(entry.get(key, []), list) or not all(isinstance(r, dict) for r in entry.get(key, [])):
                raise GemmprofError(f"{where}: dispatch {label}: {key} must be an array of tables ({{kernel = ..., when = ...}})")
        if label in names or label == CUBLAS:
            raise GemmprofError(f"{where}: dispatch {label}: the name is taken by a kernel")
        above = {d.name: d for d in out}
        rules, ahead = (tuple(_rule(r, label, entry["tier"], names, above, where) for r in entry.get(key, []))
                        for key in ("rules", "ahead"))
        via = tuple(dict.fromkeys(above[r.kernel] for r in ahead + rules if r.kernel in above))
        out.append(Dispatcher(entry["name"], entry["tier"], entry["idea"], rules, entry.get("derived_from", ""),
                              float(tolerance), ahead, entry.get("ahead_from", ""), via))
    return tuple(out)


def _rule(rule: dict, label: str, tier: str, names: dict[str, KernelSpec], above: dict[str, Dispatcher],
          where: str) -> DispatchRule:
    """One rule, naming a kernel or a dispatcher declared above, of this tier or of one it runs."""
    from ..tiers import tier as tier_record

    name = rule.get("kernel")
    target = names.get(name) or above.get(name)
    if target is None:
        raise GemmprofError(f"{where}: dispatch {label}: rule names unknown kernel {name!r}",
                            "a kernel of the manifest, or a dispatcher declared above this one")
    if not tier_record(tier).runs_kernels_of(target.tier):
        raise GemmprofError(f"{where}: dispatch {label}: {name} is not a {tier} kernel")
    try:
        evaluate(rule.get("when", 1), 1024, 1024, 1024, DEFAULT_SMS)
    except ValueError as exc:
        raise GemmprofError(f"{where}: dispatch {label}: rule for {rule['kernel']}: bad condition: {exc}") from None
    return DispatchRule(rule["kernel"], rule.get("when", 1))


def check_manifest_text(text: str, where: str = "ladder.toml") -> None:
    """Validate a whole manifest (kernels and dispatchers) from its text, with no cache: what
    `dispatch --write` runs on the file it wrote before keeping it."""
    parse_dispatchers(text, parse_manifest(text, where), where)


def load_dispatchers(path: Path | None = None) -> tuple[Dispatcher, ...]:
    """The dispatchers of a manifest, the ladder's by default (read when called, so a test or
    `dispatch --write` that points `kernel_paths.MANIFEST_PATH` elsewhere is followed)."""
    return _load_dispatchers(path or kernel_paths.MANIFEST_PATH)


@cache
def _load_dispatchers(path: Path) -> tuple[Dispatcher, ...]:
    return parse_dispatchers(path.read_text(), load_manifest(path), where=str(path.name))


def clear_caches(kernels: bool = True) -> None:
    """Forget the manifests read so far: the dispatchers, and the kernels unless only the
    dispatchers changed (`dispatch --write`)."""
    if kernels:
        forget_kernels()
    _load_dispatchers.cache_clear()


def select_named(names: list[str] | None) -> tuple[list[KernelSpec], list[Dispatcher]]:
    """The kernels and dispatchers a --kernel list of bench or build names: none or 'all' is the
    whole ladder and every dispatcher; dispatcher names alone are only those (bench builds their
    kernels and times the dispatchers, not the kernels)."""
    kernel_names, dispatchers = split_names(names)
    try:
        return ([] if kernel_names == [] else select_kernels(kernel_names)), dispatchers
    except UnknownKernelError as exc:  # these commands take dispatchers too: say so (not for a bad manifest)
        raise GemmprofError(exc.message, f"{exc.hint}; dispatchers: {', '.join(d.name for d in load_dispatchers())}",
                            exc.exit_code) from None


def with_dispatched(specs: list[KernelSpec], dispatchers: list[Dispatcher]) -> list[KernelSpec]:
    """`specs` and every kernel the dispatchers can choose, each once: what must be compiled for
    them to run."""
    every = {s.name: s for s in load_manifest()}
    return list({s.name: s for s in specs + [every[name] for d in dispatchers for name in d.kernel_names()]}.values())


def split_names(names: list[str] | None) -> tuple[list[str] | None, list[Dispatcher]]:
    """Separate dispatcher names from kernel names in a --kernel list. No list, or 'all', means
    every kernel and every dispatcher."""
    if not names or names == ["all"]:
        return None, list(load_dispatchers())
    by_name = {d.name: d for d in load_dispatchers()}
    return [n for n in names if n not in by_name], [by_name[n] for n in names if n in by_name]
