"""KernelSpec (profiler.catalogue.kernel_spec): what a kernel of the manifest says about where it runs."""

from profiler.catalogue.manifest import load_manifest


def test_kernels_for_a_newer_gpu_are_skipped_with_the_reason():
    from profiler.catalogue.manifest import load_manifest

    by_name = {s.name: s for s in load_manifest()}
    wgmma, cpasync, naive = by_name["wgmma"], by_name["cpasync"], by_name["naive"]
    assert wgmma.gpu_too_old((8, 0)) == "wgmma needs compute capability 9.0, this GPU has 8.0"
    assert wgmma.gpu_too_old((9, 0)) is None and cpasync.gpu_too_old((8, 0)) is None
    assert "needs compute capability 8.0" in cpasync.gpu_too_old((7, 5))
    assert naive.gpu_too_old((7, 0)) is None  # no min_cc: runs anywhere


def test_spec_survives_the_trip_to_a_child_process():
    """Workers and ncu targets get the spec as JSON (tuples become lists) and rebuild it."""
    import json
    from dataclasses import asdict

    from profiler.catalogue.kernel_spec import KernelSpec

    for spec in load_manifest():
        again = KernelSpec.from_dict(json.loads(json.dumps(asdict(spec))))
        assert again == spec
        assert again.launch(1536, 512, 2048) == spec.launch(1536, 512, 2048)
