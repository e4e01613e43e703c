"""Running jobs on a cluster (profiler.fanout.runner): a job failing once is retried, twice reported."""


import pytest

from helpers.ncu_fixtures import fake_ncu  # noqa: F401  (the stand-in ncu fixture)
from profiler.fanout.runner import run_cluster, run_serial
from profiler.measure.jobs import Job

FLAKY: dict[str, int] = {}


def flaky_task(job: Job, pin: str) -> list[dict]:
    """Fails the first attempt of 'once' and every attempt of 'never'."""
    FLAKY[job.kernel] = FLAKY.get(job.kernel, 0) + 1
    if job.kernel == "never" or (job.kernel == "once" and FLAKY[job.kernel] == 1):
        raise RuntimeError(f"{job.kernel} faulted on GPU {pin}")
    return [{"kernel": job.kernel, "status": "PASS"}]


@pytest.mark.parametrize("where", ["serial", "dask"])
def test_a_job_failing_once_is_retried_and_twice_is_reported(where):
    from profiler.fanout.cluster import open_client

    FLAKY.clear()
    jobs = [Job("bench", name, "fp32", (64, 64, 64)) for name in ("ok", "once", "never", "fine")]
    seen = []
    if where == "serial":
        run_serial(jobs, flaky_task, "0", seen.append)
    else:
        with open_client(["0", "1"], processes=False) as client:
            run_cluster(jobs, flaky_task, client, seen.append)
    final = {d.job.kernel: d for d in seen if d.final}
    assert set(final) == {"ok", "once", "never", "fine"}
    assert final["once"].error is None and final["once"].attempt == 2 and final["once"].result[0]["status"] == "PASS"
    assert final["never"].attempt == 2 and "never faulted" in final["never"].error and final["never"].result is None
    assert final["ok"].attempt == 1 and final["fine"].attempt == 1
    assert FLAKY == {"ok": 1, "once": 2, "never": 2, "fine": 1}


def test_jobs_are_handed_out_as_gpus_come_free_not_queued_ahead():
    """With two workers, never more than two jobs are out at once: a third waits for a GPU to
    come free instead of sitting in one worker's queue (which leaves the other GPU idle at the
    end when jobs differ in length). A retry is still made."""
    from profiler.fanout.cluster import open_client

    FLAKY.clear()
    jobs = [Job("bench", name, "fp32", (64, 64, 64)) for name in ("a", "once", "b", "c", "d", "e")]
    outstanding, most, seen = [0], [0], []

    def done(d):
        outstanding[0] -= 1
        seen.append(d)

    with open_client(["0", "1"], processes=False) as client:
        submit = client.submit

        def counting_submit(*args, **kwargs):
            outstanding[0] += 1
            most[0] = max(most[0], outstanding[0])
            return submit(*args, **kwargs)

        client.submit = counting_submit
        run_cluster(jobs, flaky_task, client, done)
    assert most[0] == 2
    assert sorted(d.job.kernel for d in seen if d.final) == sorted(j.kernel for j in jobs)
    assert [d.attempt for d in seen if d.job.kernel == "once"] == [1, 2]
