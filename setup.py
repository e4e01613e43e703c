"""The package list, the one thing pyproject.toml cannot say: every package under profiler/ (found,
so a new subpackage is never left out) plus `profiler._kernels`, which is the checkout's kernels/
folder (the ladder, its manifest and headers) shipped as package data. Everything else about the
package is in pyproject.toml."""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["profiler", "profiler.*"]), "profiler._kernels"],
    package_dir={"profiler._kernels": "kernels"},
)
