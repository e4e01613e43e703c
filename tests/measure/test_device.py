"""Device facts that need no GPU (profiler.measure.device): the GPU's short name for run ids and
CUDA's packed version numbers."""

from __future__ import annotations

import pytest

from profiler.measure.device import _version, gpu_slug


@pytest.mark.parametrize("name,slug", [("NVIDIA H200", "h200"), ("NVIDIA H100 80GB HBM3", "h100-80gb-hbm3"),
                                       ("NVIDIA GeForce RTX 4090", "geforce-rtx-4090"), ("NVIDIA", "gpu")])
def test_gpu_slug(name, slug):
    assert gpu_slug(name) == slug


def test_cuda_versions_unpack():
    assert _version(13020) == "13.2" and _version(12080) == "12.8"
