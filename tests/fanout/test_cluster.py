"""Local clusters (profiler.fanout.cluster): one in-process worker per GPU pin, named after it,
one GPU resource and one thread each; the jobs' child processes are what gets pinned
(subprocess_env.pin_env), and they inherit the NVLink settings of the command's environment."""

from __future__ import annotations

import pytest

pytest.importorskip("distributed")

from profiler.fanout.cluster import local_spec, open_client  # noqa: E402


def test_one_worker_per_gpu_named_after_its_pin():
    spec = local_spec(["0", "3"])
    assert list(spec) == ["gpu-0", "gpu-3"]
    options = spec["gpu-3"]["options"]
    assert options["name"] == "gpu-3" and options["resources"] == {"GPU": 1} and options["nthreads"] == 1
    assert spec["gpu-3"]["cls"].__name__ == "Worker" and "env" not in options


def test_a_local_cluster_runs_a_job_per_gpu_resource_on_the_named_workers():
    from profiler.fanout.runner import worker_pin

    with open_client(["0", "1"], processes=False) as client:
        pins = client.gather([client.submit(worker_pin, pure=False, resources={"GPU": 1}) for _ in range(4)])
    assert set(pins) <= {"0", "1"} and len(pins) == 4


def test_in_process_workers_never_pause_for_the_memory_the_process_holds():
    """An in-process worker measures the whole gemmprof process against its memory limit; with
    Dask's default (the machine's memory times its share of the cores) a process holding large
    tables paused both workers and a fanned profile waited forever. They carry no limit."""
    def limit(dask_worker):
        return dask_worker.memory_manager.memory_limit

    with open_client(["0", "1"], processes=False) as client:
        limits = client.run(limit)
    assert len(limits) == 2 and all(memory_limit is None for memory_limit in limits.values())
