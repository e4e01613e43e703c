"""Dispatchers of the manifest (profiler.catalogue.dispatchers): rule order, contract fallback, parsing, and
which names a bench times."""

import pytest

from profiler.catalogue.dispatchers import DispatchRule, Dispatcher, load_dispatchers, parse_dispatchers, split_names
from profiler.errors import GemmprofError
from profiler.catalogue.manifest import load_manifest

KERNELS = {s.name: s for s in load_manifest()}


def test_first_rule_that_holds_and_fits_the_contract_wins():
    d = Dispatcher("d", "fp32", "x", (DispatchRule("warptile", "M * N * K >= 8589934592"), DispatchRule("naive")))
    assert d.choose(1024, 1024, 1024, KERNELS).name == "naive"  # 2^30 < 2^33
    assert d.choose(2048, 2048, 2048, KERNELS).name == "warptile"
    assert d.choose(4095, 4095, 4095, KERNELS).name == "naive"  # warptile needs N, K multiples of 4


@pytest.mark.parametrize("text,fragment", [
    ('[[dispatch]]\nname="naive"\ntier="fp32"\nidea="x"\nrules=[{kernel="smem"}]', "taken"),
    ('[[dispatch]]\nname="b"\ntier="fp32"\nidea="x"\nrules=[{kernel="nope"}]', "unknown kernel"),
    ('[[dispatch]]\nname="b"\ntier="fp32"\nidea="x"\nrules=[{kernel="wmma"}]', "not a fp32 kernel"),
    ('[[dispatch]]\nname="b"\ntier="fp32"\nidea="x"\nrules=[{kernel="smem", when="M ** 2"}]', "bad condition"),
    ('[[dispatch]]\nname="b"\ntier="fp32"\nrules=[]', "needs name, tier, idea, rules"),
    # strict FP32 may not choose a tensor-core kernel; FP16 may not choose an FP32 dispatcher
    ('[[dispatch]]\nname="b"\ntier="fp32"\nidea="x"\nrules=[{kernel="tf32x3bits"}]', "not a fp32 kernel"),
    ('[[dispatch]]\nname="a"\ntier="fp32"\nidea="x"\nrules=[{kernel="smem"}]\n'
     '[[dispatch]]\nname="b"\ntier="fp16"\nidea="x"\nrules=[{kernel="a"}]', "a is not a fp16 kernel"),
    # a dispatcher is named only once it is declared (no cycles)
    ('[[dispatch]]\nname="b"\ntier="fp32-tc"\nidea="x"\nrules=[{kernel="a"}]\n'
     '[[dispatch]]\nname="a"\ntier="fp32"\nidea="x"\nrules=[{kernel="smem"}]', "unknown kernel 'a'"),
])
def test_bad_dispatchers_are_one_clear_error(text, fragment):
    with pytest.raises(GemmprofError, match=fragment):
        parse_dispatchers(text, load_manifest())


def test_kernel_options_split_into_kernels_and_dispatchers():
    names, dispatchers = split_names(["smem", "best"])
    assert names == ["smem"] and [d.name for d in dispatchers] == ["best"]
    assert split_names(None)[1] == list(load_dispatchers())


def test_bench_without_a_kernel_list_times_every_kernel_and_every_dispatcher():
    # (a regression: with dispatchers in the manifest, a plain `gemmprof bench` timed `best` alone)
    from profiler.catalogue.dispatchers import select_named

    every = [s.name for s in load_manifest()]
    for names in (None, [], ["all"]):
        specs, dispatchers = select_named(names)
        assert [s.name for s in specs] == every and [d.name for d in dispatchers] == ["best", "best-tc", "best-fp16"]
    specs, dispatchers = select_named(["best"])
    assert specs == [] and [d.name for d in dispatchers] == ["best"]
    specs, dispatchers = select_named(["naive", "best"])
    assert [s.name for s in specs] == ["naive"] and [d.name for d in dispatchers] == ["best"]


def test_a_small_grid_rule_depends_on_the_gpu_and_names_its_reason():
    d = Dispatcher("d", "fp32", "x", (DispatchRule("ragged64x64x8", "cdiv(M, 128) * cdiv(N, 128) <= SMS"),
                                      DispatchRule("ragged128x128x8")))
    assert d.pick(1024, 1024, 1024, KERNELS, sms=132) == (KERNELS["ragged64x64x8"], 0)
    assert d.pick(1024, 1024, 1024, KERNELS, sms=32) == (KERNELS["ragged128x128x8"], 1)
    assert d.reason(0) == "rule 1: cdiv(M, 128) * cdiv(N, 128) <= SMS" and d.reason(1) == "rule 2: always"


def test_a_dispatch_rule_dividing_by_zero_names_dispatcher_and_kernel():
    from profiler.catalogue.dispatchers import DispatchRule, Dispatcher, parse_dispatchers
    from profiler.catalogue.manifest import load_manifest

    kernels = load_manifest()
    text = '[[dispatch]]\nname = "b"\ntier = "fp32"\nidea = "i"\nrules = [{kernel = "naive", when = "K // (M - 1024)"}]\n'
    with pytest.raises(GemmprofError, match=r"dispatch b: rule for naive: bad condition: .* divides by zero"):
        parse_dispatchers(text, kernels)
    # a condition that is fine at 1024 but divides by zero at another shape: caught when choosing
    d = Dispatcher("b", "fp32", "i", (DispatchRule("naive", "K // (M - 512)"),))
    with pytest.raises(GemmprofError, match="dispatch b: rule for naive: .* divides by zero at M=512"):
        d.choose(512, 512, 512, {s.name: s for s in kernels})


def test_a_rule_may_name_a_dispatcher_of_a_tier_its_own_runs():
    """fp32-tc runs strict FP32 kernels (same inputs, yardstick and bound): its dispatcher falls
    back to `best` where the tensor cores do not pay, and `best`'s own rules choose there."""
    text = ('[[dispatch]]\nname="a"\ntier="fp32"\nidea="x"\nrules=[{kernel="warptile", when="M >= 2048"}, {kernel="naive"}]\n'
            '[[dispatch]]\nname="b"\ntier="fp32-tc"\nidea="x"\n'
            'rules=[{kernel="tf32x3bits", when="K >= 4096"}, {kernel="smem", when="N == 7"}, {kernel="a"}]')
    a, b = parse_dispatchers(text, load_manifest())
    assert b.via == (a,) and b.kernel_names() == ["tf32x3bits", "smem", "warptile", "naive"]
    assert b.pick(4096, 4096, 4096, KERNELS) == (KERNELS["tf32x3bits"], 0)
    assert b.pick(4096, 4096, 4092, KERNELS) == (KERNELS["warptile"], 2)
    assert b.pick(4096, 4096, 4097, KERNELS) == (KERNELS["naive"], 2)  # K % 4: neither tf32x3bits's contract nor warptile's
    assert b.pick(1023, 1023, 1023, KERNELS) == (KERNELS["naive"], 2)
    assert b.reason(2) == "rule 3: always, then a's rules"


def test_the_committed_fp32_tc_dispatcher_answers_every_suite_shape():
    from profiler.catalogue.suites import load_suite

    best_tc = next(d for d in load_dispatchers() if d.name == "best-tc")
    for shape in load_suite("default") + load_suite("unseen"):
        assert best_tc.pick(*shape, KERNELS, 132) is not None, shape
