"""What ships inside the package (profiler.shipped): a source tree reads the folders the packages
are built from; an installed copy its own (tests/project/test_wheel.py installs one)."""

from __future__ import annotations

import tomllib

from helpers.paths import REPO, SAMPLE_RUN
from profiler import shipped


def test_a_checkout_reads_the_folders_the_packages_are_built_from():
    assert shipped.KERNELS_DIR == REPO / "kernels" and shipped.SAMPLE_RUN == SAMPLE_RUN
    assert (shipped.SAMPLE_RUN / "run.json").is_file() and (shipped.KERNELS_DIR / "shapes.toml").is_file()


def test_an_installed_copy_is_read_when_it_holds_its_probe(tmp_path, monkeypatch):
    monkeypatch.setattr(shipped, "PACKAGE", tmp_path / "profiler")
    (tmp_path / "profiler" / "_sample").mkdir(parents=True)
    assert shipped.shipped("_sample", "reports/sample-h200", "run.json") == tmp_path / "reports" / "sample-h200"
    (tmp_path / "profiler" / "_sample" / "run.json").write_text("{}")
    assert shipped.shipped("_sample", "reports/sample-h200", "run.json") == tmp_path / "profiler" / "_sample"


def test_the_folders_are_the_ones_pyproject_ships_under_those_names():
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setuptools["package-dir"]["profiler._kernels"] == "kernels"
    assert setuptools["package-dir"]["profiler._sample"] == "reports/sample-h200"
    data = setuptools["package-data"]
    assert "shapes.toml" in data["profiler._kernels"] or "*.toml" in data["profiler._kernels"]
    assert {"run.json", "bench.parquet", "kernels.parquet"} <= set(data["profiler._sample"])
