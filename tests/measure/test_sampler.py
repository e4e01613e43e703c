"""The GPU state sampler (profiler.measure.sampler): throttle reasons decoded, no NVML no summary."""


from profiler.measure.sampler import THROTTLING_MASK, StateSampler, decode_reasons


def test_throttle_reasons_decode_and_mask():
    assert decode_reasons(0x1 | 0x4) == ["gpu_idle", "sw_power_cap"]
    assert not (0x1 & THROTTLING_MASK) and (0x40 & THROTTLING_MASK)


def test_sampler_without_nvml_gives_an_empty_summary(monkeypatch):
    import profiler.measure.sampler as sampler

    monkeypatch.setattr(sampler, "read_gpu_state", lambda index=0: None)
    with StateSampler() as s:
        pass
    assert s.summary().samples == 0 and not s.summary().throttled
