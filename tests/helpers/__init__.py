"""Shared test helpers (importable as `helpers.*`: pytest puts tests/ on sys.path, see the pytest
config in pyproject.toml). No tests live here."""
