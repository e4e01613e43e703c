"""The build workflow (profiler.workflows.build) called as a library, nvcc replaced: the result,
the ptxas table shown, a spill_free kernel that spills refused after it."""

from pathlib import Path

import pytest

import profiler.measure.build as measure_build
from profiler.catalogue.manifest import select_kernels
from profiler.errors import GemmprofError
from profiler.workflows.build import BuildOptions, build
from profiler.workflows.progress import Quiet


class Shown(Quiet):
    def __init__(self):
        self.shown = []

    def show(self, renderable):
        self.shown.append(renderable)


def fake_build_all(stack_bytes: int):
    def build_all(specs, arch, force=False, on_built=None):
        built = [measure_build.Built(s, Path(f"/cache/{s.name}.cubin"),
                                     measure_build.Resources(s.entry, arch, 32, 0, stack_bytes, 0, 0, 0), True) for s in specs]
        for b in built:
            on_built(b)
        return built

    return build_all


def test_build_returns_what_it_built_and_shows_the_table(monkeypatch):
    monkeypatch.setattr(measure_build, "build_all", fake_build_all(0))
    shown = Shown()
    result = build(BuildOptions(kernel=["naive", "smem"], arch="sm_90"), shown)
    assert result.arch == "sm_90" and [b.spec.name for b in result.built] == ["naive", "smem"]
    (table,) = shown.shown
    assert table.title == "ptxas resources (sm_90)" and table.row_count == 2


def test_a_dispatcher_named_builds_the_kernels_it_can_choose(monkeypatch):
    from profiler.catalogue.dispatchers import load_dispatchers

    monkeypatch.setattr(measure_build, "build_all", fake_build_all(0))
    fp16 = next(d for d in load_dispatchers() if d.name == "best-fp16")
    result = build(BuildOptions(kernel=["naive", "best-fp16"], arch="sm_90"), Quiet())
    assert [b.spec.name for b in result.built] == ["naive", *fp16.kernel_names()]
    assert "skinny" in fp16.kernel_names() and "wgmma_tmastore" in fp16.kernel_names()


def test_a_spill_free_kernel_that_spills_is_refused(monkeypatch):
    monkeypatch.setattr(measure_build, "build_all", fake_build_all(16))
    spill_free = [s.name for s in select_kernels(None) if s.spill_free][:1]
    if not spill_free:
        pytest.skip("no kernel of the ladder is marked spill_free")
    with pytest.raises(GemmprofError, match="kernels marked spill_free use local memory"):
        build(BuildOptions(kernel=spill_free, arch="sm_90"), Quiet())


def test_an_unknown_name_is_refused_naming_the_dispatchers_too(monkeypatch):
    monkeypatch.setattr(measure_build, "build_all", fake_build_all(0))
    with pytest.raises(GemmprofError, match="unknown kernel 'nosuch'") as refused:
        build(BuildOptions(kernel=["nosuch"], arch="sm_90"), Quiet())
    assert refused.value.hint.endswith("dispatchers: best, best-tc, best-fp16")


def test_a_manifest_that_does_not_load_is_not_told_the_dispatchers(tmp_path, monkeypatch):
    """A mistake in a user's manifest is its one line, not followed by '(; dispatchers: ...)'."""
    from profiler.catalogue.dispatchers import clear_caches
    from profiler.catalogue.manifest import MANIFEST_ENV

    (tmp_path / "mine.cu").write_text("")
    (tmp_path / "mine.toml").write_text(
        '[[kernel]]\nname = "mine"\nfile = "mine.cu"\nentry = "mine"\ntier = "fp16"\nidea = "x"\ngrid = [1]\n'
        'block = [128]\nsmem_bytes = 0\nstaging = ["A"]\nstaging_pitch_bytes = 48\n'
        'tensor_maps = [{ operand = "A", box = [64, 128] }]\n')
    monkeypatch.setenv(MANIFEST_ENV, str(tmp_path / "mine.toml"))
    clear_caches()
    try:
        with pytest.raises(GemmprofError, match="staging_pitch_bytes must be 16, 32, 64 or 128") as refused:
            build(BuildOptions(kernel=["mine"], arch="sm_90"), Quiet())
    finally:
        monkeypatch.delenv(MANIFEST_ENV)
        clear_caches()
    assert "dispatchers" not in str(refused.value)
