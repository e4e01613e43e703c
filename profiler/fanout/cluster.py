"""The Dask cluster a fanned-out run uses: one worker per GPU, each declaring one GPU resource
and running one job at a time; or an existing cluster (`--scheduler ADDRESS`), whose workers
must declare the resource too (`dask worker ADDRESS --resources GPU=1`, one per GPU;
dask-cuda-worker starts one per GPU and pins each)."""

from __future__ import annotations

import contextlib

from ..errors import GemmprofError


def require_distributed() -> None:
    import importlib.util

    if importlib.util.find_spec("distributed") is None:
        raise GemmprofError("--gpus and --scheduler need Dask (dask.distributed)", "pip install 'gemmprof[scale]'")


def local_spec(pins: list[str]) -> dict:
    """Worker specs named gpu-<pin>, one per GPU, each with one GPU resource, running in this
    process. A worker does no GPU work itself: each job runs in child processes pinned to the
    worker's GPU (ncu and its target, the bench worker; `subprocess_env.pin_env`), so a worker
    process per GPU would add only its start-up (two seconds on a busy host) to the run.

    No memory limit: an in-process worker measures the whole process, and Dask's default limit
    (the machine's memory times the worker's share of the cores: 8 GB of 128 on 16 cores) pauses
    a worker past 80% of it, so a gemmprof process that holds large tables would stop handing out
    jobs and wait for them forever (the test suite's process did, at 9.9 GB of 23 on 2 cores)."""
    from distributed import Worker

    return {f"gpu-{pin}": {"cls": Worker, "options": {"nthreads": 1, "resources": {"GPU": 1}, "name": f"gpu-{pin}",
                                                       "memory_limit": 0}}
            for pin in pins}


@contextlib.contextmanager
def open_client(pins: list[str], scheduler: str | None = None, processes: bool = True):
    """A Client on an existing cluster (`scheduler`) or on a local one of one worker per pin:
    dask-cuda's worker processes where it is installed (and `processes`), else in-process workers."""
    require_distributed()
    from distributed import Client, Scheduler, SpecCluster

    if scheduler is not None:
        try:
            client = Client(scheduler, timeout="20s")
        except OSError as exc:
            raise GemmprofError(f"--scheduler {scheduler}: cannot reach it ({exc})",
                                "start one with: dask scheduler; then dask worker ADDRESS --resources GPU=1") from None
        with client:
            if not any(w.get("resources", {}).get("GPU") for w in client.scheduler_info()["workers"].values()):
                raise GemmprofError(f"--scheduler {scheduler}: no worker declares a GPU resource",
                                    "start workers with --resources GPU=1 (one per GPU), or dask-cuda-worker --resources GPU=1")
            yield client
        return
    cluster = None
    if processes:
        try:  # dask-cuda's one-worker-per-GPU cluster where it is installed; its workers see their GPU first
            from dask_cuda import LocalCUDACluster

            cluster = LocalCUDACluster(CUDA_VISIBLE_DEVICES=",".join(pins), n_workers=len(pins), threads_per_worker=1,
                                       resources={"GPU": 1}, dashboard_address=None, memory_limit=0)
        except ImportError:
            pass
    cluster = cluster or SpecCluster(workers=local_spec(pins),
                          scheduler={"cls": Scheduler, "options": {"dashboard_address": None}}, silence_logs=40)
    with cluster, Client(cluster) as client:
        client.wait_for_workers(len(pins))
        yield client
