"""A kernel's parameter sizes read from its cubin (profiler.measure.cubin), on cubins nvcc builds
here: the launcher's signature, another one, a kernel without parameters; and a file that is not
a cubin refused in one line."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from profiler.errors import GemmprofError
from profiler.measure.cubin import parameter_sizes

SOURCE = """
extern "C" __global__ void sgemm_mine(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {}
extern "C" __global__ void other(double x, char c, const float* p) {}
extern "C" __global__ void bare() {}
"""


@pytest.fixture(scope="module")
def cubin(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cubin")
    (folder / "k.cu").write_text(SOURCE)
    subprocess.run([shutil.which("nvcc") or "nvcc", "-cubin", "-arch=sm_90", "-o", str(folder / "k.cubin"),
                    str(folder / "k.cu")], check=True, capture_output=True, timeout=300)
    return (folder / "k.cubin").read_bytes()


@pytest.mark.nvcc
def test_sizes_in_the_order_of_the_signature(cubin):
    assert parameter_sizes(cubin, "sgemm_mine") == [4, 4, 4, 4, 8, 8, 4, 8]
    assert parameter_sizes(cubin, "other") == [8, 1, 8]
    assert parameter_sizes(cubin, "bare") is None and parameter_sizes(cubin, "missing") is None


def test_not_a_cubin_is_one_error():
    with pytest.raises(GemmprofError, match="not a 64-bit ELF cubin"):
        parameter_sizes(b"#!/bin/sh\n" + bytes(100), "x")
