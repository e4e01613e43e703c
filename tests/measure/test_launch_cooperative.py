"""The manifest key `cooperative` and KernelRunner's cooperative launches, without a GPU: the key as
true or as an expression of the shape, and the runner's choice of a module loaded for
cuLaunchCooperativeKernel (CuPy's enable_cooperative_groups) launch by launch, against a stand-in
for CuPy."""

import types

import pytest

from helpers.device_arrays import FakeArray

from profiler.errors import GemmprofError
from profiler.catalogue.manifest import load_manifest
from profiler.catalogue.manifest_parse import parse_manifest
from profiler.measure.launch import Gemm, KernelRunner

ENTRY = """
[[kernel]]
name = "w"
file = "28_splitk128x256x8rs.cu"
entry = "sgemm_splitk128x256x8rs"
tier = "fp32"
idea = "x"
grid = ["cdiv(N, 256)", "cdiv(M, 128)", "max(1, K // 4096)"]
block = [256]
smem_bytes = 49664
"""


def spec(cooperative: str = ""):
    (s,) = parse_manifest(ENTRY + cooperative)
    return s


def test_cooperative_is_true_or_an_expression_of_the_shape():
    assert not spec().launch(256, 256, 8192).cooperative
    assert spec("cooperative = true\n").launch(4096, 4096, 1024).cooperative
    where = spec('cooperative = "K // 4096 > 1"\n')
    assert [where.launch(256, 256, k).cooperative for k in (4096, 8192)] == [False, True]


@pytest.mark.parametrize("value, fragment", [('"K // "', "bad launch expression"), ('"P > 1"', "bad launch expression"),
                                             ("[1]", "cooperative")])
def test_a_bad_cooperative_is_one_clear_error(value, fragment):
    with pytest.raises(GemmprofError, match=fragment):
        spec(f"cooperative = {value}\n")


@pytest.mark.parametrize("name, per_sm", [("splitk128x256x8rs", 1), ("splitk64x64x8rs", 6)])
def test_the_reduce_scatter_rungs_wait_only_where_they_split_on_grids_132_sms_hold(name, per_sm):
    rs = {s.name: s for s in load_manifest()}[name]
    for shape in [(256, 256, 32768), (1024, 1024, 8192), (4096, 4096, 4096), (2048, 2048, 2048), (100, 30, 20000),
                  (128, 128, 65536), (1000, 1000, 1000), (32768, 64, 1024)]:
        launch = rs.launch(*shape)
        assert launch.cooperative == (launch.grid[2] > 1)
        assert not launch.cooperative or launch.grid[0] * launch.grid[1] * launch.grid[2] <= 132 * per_sm


def test_runner_launches_through_a_cooperative_module_only_where_the_shape_asks():
    modules, launches = [], []

    class Function:
        def __init__(self, cooperative):
            self.cooperative, self.max_dynamic_shared_size_bytes = cooperative, 0
            self.shared_size_bytes = 0  # the kernel's own `__shared__` bytes, as CuPy's Function has them

        def __call__(self, grid, block, args, shared_mem=0):
            launches.append((self.cooperative, grid, shared_mem, self.max_dynamic_shared_size_bytes))

    def raw_module(path, enable_cooperative_groups=False):
        modules.append(enable_cooperative_groups)
        return types.SimpleNamespace(get_function=lambda entry: Function(enable_cooperative_groups))

    device = types.SimpleNamespace(attributes={"MultiProcessorCount": 132})  # SMS of the launch geometry
    cp = types.SimpleNamespace(RawModule=raw_module, cuda=types.SimpleNamespace(Device=lambda: device))
    run = KernelRunner(cp, spec('cooperative = "K // 4096 > 1"\n'), "w.cubin")

    def gemm(M, N, K):
        return Gemm(M, N, K, FakeArray(1, (M, K)), FakeArray(2, (K, N)), FakeArray(3, (M, N)))

    for shape in [(256, 256, 4096), (256, 256, 16384), (256, 256, 16384), (512, 512, 4096)]:
        run(gemm(*shape), 1.0, 0.5)
    assert modules == [False, True]  # the cooperative module is loaded once, when first needed
    assert [(c, g) for c, g, *_ in launches] == [(False, (1, 2, 1)), (True, (1, 2, 4)), (True, (1, 2, 4)), (False, (2, 4, 1))]
    assert all(smem == 49664 and limit == 49664 for *_, smem, limit in launches)  # each module's limit raised
