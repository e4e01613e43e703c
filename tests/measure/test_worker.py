"""The bench worker (profiler.measure.worker) without a GPU: its protocol (one JSON job on stdin,
one JSON record per shape on stdout) with CuPy, the runners and the verification replaced. What
is checked: SKIPs need no GPU work, a wrong kernel never gets a time, a fault ends the worker
with an ERROR record."""

from __future__ import annotations

import io
import json
import types
from dataclasses import asdict

import pytest

from profiler.catalogue.manifest import load_manifest
from profiler.measure import worker
from profiler.measure.timing import TimingPolicy

SPECS = {s.name: s for s in load_manifest()}


class FakeCp:
    def __init__(self):
        self.cuda = types.SimpleNamespace(Device=lambda index: types.SimpleNamespace(use=lambda: None))

    def get_default_memory_pool(self):
        return types.SimpleNamespace(free_all_blocks=lambda: None)


class FakeRunner(tuple):
    """(name, cubin); a cooperative launch too large for the GPU at M = TOO_LARGE."""

    TOO_LARGE = 4096

    def cannot_launch(self, M: int, N: int, K: int) -> str | None:
        return "its grid exceeds what this GPU holds at once" if M == self.TOO_LARGE else None


def run_worker(monkeypatch, capsys, job: dict, cc=(9, 0), measure=None) -> tuple[int, list[dict]]:
    info = types.SimpleNamespace(compute_capability=cc, sm_count=132, sm_clock_max_mhz=1980, l2_bytes=50 << 20)
    monkeypatch.setattr(worker, "import_cupy", FakeCp)
    monkeypatch.setattr("profiler.measure.device.gpu_info", lambda index=0: info)
    monkeypatch.setattr(worker, "CublasRunner", lambda cp, tier, name=None: ("cublas", name))
    monkeypatch.setattr(worker, "KernelRunner", lambda cp, spec, cubin: FakeRunner((spec.name, cubin)))
    monkeypatch.setattr(worker, "L2Flusher", lambda cp, size: None)
    monkeypatch.setattr(worker, "QueueHold", lambda cp: "hold")
    if measure:
        monkeypatch.setattr(worker, "measure_shape", measure)
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(job)))
    code = worker.main()
    return code, [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_a_kernel_for_a_newer_gpu_is_a_skip_per_shape_with_the_reason(monkeypatch, capsys):
    def never(*args, **kwargs):
        raise AssertionError("nothing is measured on a GPU too old for the kernel")

    job = {"kernel": "wgmma", "tier": "fp16", "spec": asdict(SPECS["wgmma"]), "cubin": "x", "shapes": [[128] * 3, [256] * 3]}
    code, records = run_worker(monkeypatch, capsys, job, cc=(8, 0), measure=never)
    assert code == 0 and [r["status"] for r in records] == ["SKIP", "SKIP"]
    assert [r["M"] for r in records] == [128, 256] and "compute capability 9.0" in records[0]["reason"]


def test_shapes_outside_the_contract_are_skipped_the_others_measured_in_order(monkeypatch, capsys):
    """Outside the contract (255^3) or past what the GPU can launch at once (the runner says why):
    a SKIP with the reason, nothing measured."""
    spec = SPECS["warptile"]
    shapes = [[256, 256, 256], [255, 255, 255], [FakeRunner.TOO_LARGE, 256, 256], [512, 256, 128]]
    assert spec.unsupported_reason(255, 255, 255) and not spec.unsupported_reason(256, 256, 256)
    seen = []

    def measure(setup, shape, seed):
        seen.append((shape, seed, setup.runners[setup.name], setup.props["sm_count"], setup.hold))
        M, N, K = shape
        return {"kernel": setup.name, "M": M, "N": N, "K": K, "status": "PASS"}

    job = {"kernel": "warptile", "tier": "fp32", "spec": asdict(spec), "cubin": "w.cubin", "shapes": shapes, "seed": 10}
    code, records = run_worker(monkeypatch, capsys, job, measure=measure)
    assert code == 0 and [r["status"] for r in records] == ["PASS", "SKIP", "SKIP", "PASS"]
    assert "holds at once" in records[2]["reason"]
    assert [s[0] for s in seen] == [(256, 256, 256), (512, 256, 128)]
    assert [s[1] for s in seen] == [10, 13]  # seed + the shape's index: each shape its own data
    assert seen[0][2] == ("warptile", "w.cubin") and seen[0][3] == 132
    assert [s[4] for s in seen] == ["hold", "hold"]  # one queue hold for the worker, every shape timed behind it
    assert all(r["cublas_math_mode"] == worker.CUBLAS_MATH_MODE for r in records if r["status"] == "PASS")


def test_a_fault_is_an_error_record_and_ends_the_worker(monkeypatch, capsys):
    def fault(*args, **kwargs):
        raise RuntimeError("cudaErrorIllegalAddress: an illegal memory access\nmore")

    job = {"kernel": "naive", "tier": "fp32", "spec": asdict(SPECS["naive"]), "cubin": "n", "shapes": [[64] * 3, [128] * 3]}
    code, records = run_worker(monkeypatch, capsys, job, measure=fault)
    assert code == 3 and len(records) == 1  # the context may be unusable: no second shape
    assert records[0]["status"] == "ERROR" and records[0]["reason"] == "RuntimeError: cudaErrorIllegalAddress: an illegal memory access"


@pytest.mark.parametrize("expect_fail", [False, True])
def test_a_wrong_kernel_is_never_timed(monkeypatch, expect_fail):
    def failing_check(cp, run, reference, M, N, K, tier, seed):
        return types.SimpleNamespace(passed=False, reason="max error 1.0 > 1e-5", error=1.0, tolerance=1e-5,
                                     worst_bound_ratio=9.0, error_fp64=1.0)

    def no_timing(*args, **kwargs):
        raise AssertionError("a kernel that failed verification must not be timed")

    monkeypatch.setattr(worker, "check", failing_check)
    monkeypatch.setattr(worker, "time_alternating", no_timing)
    monkeypatch.setattr(worker, "warm_up", no_timing)
    spec = types.SimpleNamespace(expect_fail=expect_fail)
    setup = worker.WorkerSetup(None, {"k": None, "cublas": None}, "k", "fp32", TimingPolicy(), None, {}, spec=spec)
    rec = worker.measure_shape(setup, (64, 64, 64), 0)
    assert rec["status"] == "FAIL" and "median_ms" not in rec and rec["error"] == 1.0
    assert rec["reason"].startswith("expected") is expect_fail


def test_the_hold_can_be_switched_off_to_measure_what_it_changes(monkeypatch, capsys):
    seen = []

    def measure(setup, shape, seed):
        seen.append(setup.hold)
        return {"kernel": "naive", "M": 64, "N": 64, "K": 64, "status": "PASS"}

    monkeypatch.setenv("GEMMPROF_TIMING_HOLD", "0")
    job = {"kernel": "naive", "tier": "fp32", "spec": asdict(SPECS["naive"]), "cubin": "n", "shapes": [[64] * 3]}
    code, _ = run_worker(monkeypatch, capsys, job, measure=measure)
    assert code == 0 and seen == [None]
