"""Test tiers by marker: plain (no hardware), `nvcc` (compiler on PATH), `ncu` (ncu_report
importable, real committed reports), `gpu` (a CUDA GPU with CuPy: the device machine only).
Each tier skips with the reason when what it needs is absent (helpers/hardware.py says what each
needs). The layout of tests/ is in tests/README.md."""

from __future__ import annotations

import pytest

from helpers.hardware import CHECKS


def pytest_configure(config):
    """The captured runs of tests/data unpacked in place before any test module is collected
    (some are read at import time): a no-op once done (helpers/captures.py)."""
    from helpers.captures import unpack

    unpack()


def pytest_collection_modifyitems(config, items):
    for item in items:
        for marker, missing in CHECKS.items():
            if marker in item.keywords:
                reason = missing()
                if reason:
                    item.add_marker(pytest.mark.skip(reason=f"{marker}: {reason}"))


@pytest.fixture(autouse=True, scope="session")
def _extraction_cache(tmp_path_factory):
    """Reports outside a run are cached in the user's cache folder: tests use a folder of their
    own (inherited by the CLI subprocesses they start), never ~/.cache."""
    import os

    os.environ["GEMMPROF_CACHE_DIR"] = str(tmp_path_factory.mktemp("gemmprof-cache"))
    yield


@pytest.fixture(scope="session")
def installed(tmp_path_factory):
    """gemmprof installed as a user gets it, outside the checkout (`helpers.installed`): one venv
    for every test that needs it."""
    from helpers.installed import install

    return install(tmp_path_factory.mktemp("installed"))


@pytest.fixture(autouse=True)
def _manifest_variable(monkeypatch):
    """`--manifest` reaches child processes through $GEMMPROF_MANIFEST, which a command invoked
    in-process (CliRunner) leaves set: each test leaves the variable as it found it."""
    import os

    from profiler.catalogue.manifest import MANIFEST_ENV

    original = os.environ.get(MANIFEST_ENV)
    monkeypatch.setitem(os.environ, MANIFEST_ENV, original or "")  # recorded: restored after the test
    if original is None:
        del os.environ[MANIFEST_ENV]
