"""The layout of tests/ (tests/README.md) held as a test: every test file sits in a layer that
profiler/ has (or in core/, gpu/, project/), is named after a module of its layer, and every module
of profiler/ that defines a function or class has a test file of its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from helpers.paths import REPO, TESTS

PACKAGE = REPO / "profiler"
# Folders of tests/ that are not packages of profiler/: what they hold instead.
OTHER_LAYERS = {
    "core": "the top-level modules of profiler/",
    "gpu": "tests that need a GPU (marker gpu), one folder for the device scripts",
    "project": "what is not a Python module: kernels, manifests, benchmarks, the wheel, the demo",
}
NOT_TESTS = {"data", "helpers", "kernels", "programs"}  # fixtures and shared code, no test files
# Modules with functions but no test file of their own, and why that is enough.
EXEMPT: dict[tuple[str, str], str] = {
    ("analyze", "sentences"): "the verdicts' wording, asserted through diagnose_run in analyze/test_verdict.py",
    ("render", "views"): "what the templates get, asserted on the rendered pages in render/test_report.py",
}


def layer_of(module: Path) -> tuple[str, str]:
    """(layer, name) a module of profiler/ is tested under: profiler/x.py -> (core, x),
    profiler/pkg/x.py -> (pkg, x), profiler/pkg/__init__.py -> (pkg, pkg); a leading underscore
    is dropped (cli/_options.py -> test_options.py)."""
    parts = module.relative_to(PACKAGE).with_suffix("").parts
    if len(parts) == 1:
        return "core", parts[0] if parts[0] != "__init__" else "profiler"
    layer, name = parts[0], parts[-1]
    return layer, (layer if name == "__init__" else name.lstrip("_"))


def has_logic(module: Path) -> bool:
    tree = ast.parse(module.read_text())
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for node in tree.body)


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if has_logic(p))


def layers() -> set[str]:
    return {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()} | set(OTHER_LAYERS)


def files_of_tests() -> list[Path]:
    return sorted(p for p in TESTS.rglob("test_*.py") if p.parent != TESTS and "data" not in p.relative_to(TESTS).parts)


def covering(layer: str, name: str) -> list[Path]:
    folder = TESTS / layer
    return sorted([*folder.glob(f"test_{name}.py"), *folder.glob(f"test_{name}_*.py")])


def test_every_folder_of_test_files_is_a_layer():
    folders = {p.relative_to(TESTS).parts[0] for p in files_of_tests()}
    strays = folders - layers()
    assert not strays, f"test folders with no layer in profiler/: {sorted(strays)} (tests/README.md)"
    assert not folders & NOT_TESTS
    at_top = sorted(p.name for p in TESTS.glob("test_*.py"))
    assert at_top == ["test_layout.py"], f"test files belong in a layer folder: {at_top}"


def test_every_test_file_is_named_after_a_module_of_its_layer():
    names: dict[str, set[str]] = {}
    for module in PACKAGE.rglob("*.py"):
        layer, name = layer_of(module)
        names.setdefault(layer, set()).add(name)
    misnamed = []
    for path in files_of_tests():
        layer = path.relative_to(TESTS).parts[0]
        if layer in ("gpu", "project"):
            continue
        stem = path.stem.removeprefix("test_")
        if not any(stem == n or stem.startswith(n + "_") for n in names.get(layer, ())):
            misnamed.append(str(path.relative_to(TESTS)))
    assert not misnamed, f"test files named after no module of their layer: {misnamed}"


@pytest.mark.parametrize("module", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_module_with_logic_has_a_test_file(module):
    layer, name = layer_of(module)
    if (layer, name) in EXEMPT:
        return
    expected = TESTS / layer / f"test_{name}.py"
    assert covering(layer, name), f"{module.relative_to(REPO)} has no test file: {expected.relative_to(REPO)}"


def test_exemptions_name_modules_that_exist_and_lack_a_test():
    known = {layer_of(m) for m in modules()}
    for key, reason in EXEMPT.items():
        assert key in known and reason, key
        assert not covering(*key), f"{key} has a test file now: drop its exemption"
