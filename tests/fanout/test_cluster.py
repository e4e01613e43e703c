"""Local clusters (profiler.fanout.cluster): one worker per GPU pin, pinned through
CUDA_VISIBLE_DEVICES in its own process, with the NVLink settings the machine needs passed on."""

from __future__ import annotations

import pytest

pytest.importorskip("distributed")

from profiler.fanout.cluster import KEEP_ENV, local_spec  # noqa: E402


def test_one_pinned_worker_process_per_gpu(monkeypatch):
    monkeypatch.setenv(KEEP_ENV[0], "0")
    spec = local_spec(["0", "3"], processes=True)
    assert list(spec) == ["gpu-0", "gpu-3"]
    env = spec["gpu-3"]["options"]["env"]
    assert env["CUDA_VISIBLE_DEVICES"] == "3" and env[KEEP_ENV[0]] == "0"
    assert spec["gpu-3"]["options"]["resources"] == {"GPU": 1} and spec["gpu-3"]["options"]["nthreads"] == 1


def test_in_process_workers_carry_no_environment():
    spec = local_spec(["1"], processes=False)
    assert "env" not in spec["gpu-1"]["options"] and spec["gpu-1"]["cls"].__name__ == "Worker"
