"""Jobs of a bench or profile (profiler.measure.jobs): the fan-out keeps the serial path's seeds and
order."""

import json

from helpers.ncu_fixtures import fake_ncu  # noqa: F401  (the stand-in ncu fixture)
from profiler.catalogue.manifest import select_kernels
from profiler.measure.jobs import BenchWork, Job, bench_jobs


def test_bench_job_list_keeps_the_serial_seeds_and_order():
    specs = select_kernels(["naive", "smem"])
    jobs = bench_jobs(BenchWork(specs, [(64, 64, 64), (128, 128, 128)]))
    assert [j.kernel for j in jobs] == ["cublas", "cublas", "naive", "naive", "smem", "smem"]
    assert [j.seed for j in jobs[2:]] == [specs[0].index * 1000, specs[0].index * 1000 + 1, specs[1].index * 1000, specs[1].index * 1000 + 1]
    assert Job.from_dict(json.loads(json.dumps(jobs[2].to_dict()))) == jobs[2]
    assert len({j.key for j in jobs}) == len(jobs)
