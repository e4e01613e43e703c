"""The program ncu runs (profiler.measure.target), with CuPy, the runners and the verification
replaced: exactly one GEMM inside the NVTX range the ncu command line filters on, warm-up and
verification outside it, and one TARGET line that says what verification found."""

from __future__ import annotations

import json
import sys
import types
from dataclasses import asdict
from pathlib import Path

import pytest

from profiler.catalogue.manifest import load_manifest
from profiler.measure import target
from profiler.measure.ncu import NcuOptions, ncu_command, target_argv


def test_the_ncu_filter_is_the_outer_range_the_target_pushes():
    cmd = ncu_command(NcuOptions(Path("ncu")), Path("base"), target_argv("{}"))
    assert cmd[cmd.index("--nvtx-include") + 1] == target.NVTX_OUTER + "/"
    assert cmd[-4:] == ["-m", "profiler.measure.target", "--job", "{}"]
    assert target.nvtx_inner("naive", 512, 256, 128) == "naive 512x256x128"


class Recorder:
    """Stands in for CuPy's NVTX module, the runners and the device; logs what happens in order."""

    def __init__(self):
        self.events, self.depth = [], 0

    def RangePush(self, name):
        self.events.append(("push", name))
        self.depth += 1

    def RangePop(self):
        self.events.append(("pop",))
        self.depth -= 1

    def runner(self, label):
        def run(g, alpha, beta):
            self.events.append(("launch", label, self.depth))
        return run


@pytest.fixture
def fake_device(monkeypatch):
    rec = Recorder()
    cuda = types.SimpleNamespace(nvtx=rec, runtime=types.SimpleNamespace(deviceSynchronize=lambda: None))
    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(cuda=cuda))
    monkeypatch.setitem(sys.modules, "cupy.cuda", cuda)
    monkeypatch.setattr(target, "import_cupy", lambda: types.SimpleNamespace(cuda=cuda))
    monkeypatch.setattr(target, "CublasRunner", lambda cp, tier, name=None: _Named(rec.runner(name or "cublas"), "cublas"))
    monkeypatch.setattr(target, "KernelRunner", lambda cp, spec, cubin: rec.runner(spec.name))
    monkeypatch.setattr(target.Gemm, "random", staticmethod(lambda *a, **k: "gemm"))
    info = types.SimpleNamespace(cuda_runtime="13.2", cuda_driver_api="13.0", cublas_version="13.1.0", sm_count=132,
                                 l2_bytes=50 << 20)
    monkeypatch.setattr(target, "gpu_info", lambda: info)
    return rec


class _Named:
    def __init__(self, fn, name):
        self.fn, self.name = fn, name

    def __call__(self, *args):
        return self.fn(*args)


@pytest.mark.parametrize("passed,status", [(True, "PASS"), (False, "FAIL")])
def test_one_launch_inside_the_range_and_the_verdict_printed(fake_device, monkeypatch, capsys, passed, status):
    checked = []

    def fake_check(cp, run, reference, M, N, K, tier, seed):
        checked.append((M, N, K, tier, fake_device.depth))
        return types.SimpleNamespace(passed=passed, reason="" if passed else "max error 3", error=1e-7)

    monkeypatch.setattr(target, "check", fake_check)
    spec = {s.name: s for s in load_manifest()}["naive"]
    job = {"kernel": "naive", "tier": "fp32", "M": 512, "N": 256, "K": 128, "cubin": "x.cubin", "spec": asdict(spec)}
    assert target.main(["--job", json.dumps(job)]) == 0
    assert checked == [(512, 256, 128, "fp32", 0)]  # verified outside any range
    launches = [e for e in fake_device.events if e[0] == "launch"]
    assert all(e[1] == "naive" for e in launches)
    assert [e[2] for e in launches] == [0] * target.WARMUP_LAUNCHES + [2]  # warm-up outside, one launch inside
    pushes = [e[1] for e in fake_device.events if e[0] == "push"]
    assert pushes == [target.NVTX_OUTER, target.nvtx_inner("naive", 512, 256, 128)] and fake_device.depth == 0
    (line,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith(target.TARGET_PREFIX)]
    said = json.loads(line.removeprefix(target.TARGET_PREFIX))
    assert (said["kernel"], said["M"], said["N"], said["K"], said["status"]) == ("naive", 512, 256, 128, status)
    assert said["environment"]["sm_count"] == 132


def test_cublas_profiles_the_reference_itself(fake_device, monkeypatch):
    monkeypatch.setattr(target, "check", lambda *a, **k: types.SimpleNamespace(passed=True, reason="", error=0.0))
    assert target.main(["--job", json.dumps({"kernel": "cublas", "tier": "fp32", "M": 64, "N": 64, "K": 64})]) == 0
    assert {e[1] for e in fake_device.events if e[0] == "launch"} == {"cublas"}
