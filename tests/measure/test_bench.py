"""The bench loop (profiler.measure.bench) without a GPU: a dispatcher's records say which kernel ran
and which rule chose it."""


from profiler.catalogue.dispatchers import DispatchRule, Dispatcher
from profiler.catalogue.manifest import load_manifest

KERNELS = {s.name: s for s in load_manifest()}


def test_bench_records_which_kernel_ran_and_which_rule_chose_it(monkeypatch):
    import profiler.measure.bench as measure_bench
    from profiler.measure.jobs import BenchWork
    from profiler.measure.timing import TimingPolicy

    def fake_bench_kernel(target, shapes, policy, on_record, **kw):
        for M, N, K in shapes:
            on_record({"kernel": target.name, "tier": target.tier, "M": M, "N": N, "K": K, "status": "PASS",
                       "cubin": target.cubin})

    monkeypatch.setattr(measure_bench, "bench_kernel", fake_bench_kernel)
    d = Dispatcher("d", "fp32", "x", (DispatchRule("ragged64x64x8", "cdiv(M, 128) * cdiv(N, 128) <= SMS"),
                                      DispatchRule("ragged128x128x8")))
    cubins = {"ragged64x64x8": "small.cubin", "ragged128x128x8": "big.cubin"}
    for sms, expected in ((132, ("ragged64x64x8", "rule 1: cdiv(M, 128) * cdiv(N, 128) <= SMS", "small.cubin")),
                          (16, ("ragged128x128x8", "rule 2: always", "big.cubin"))):
        records = []
        work = BenchWork([], [(1024, 1024, 1024)], include_cublas=False, dispatchers=[d], kernels=KERNELS, sms=sms)
        measure_bench.bench(work, cubins, TimingPolicy(), records.append)
        (r,) = records
        assert r["kernel"] == "d" and (r["dispatched_to"], r["dispatch_rule"], r["cubin"]) == expected
