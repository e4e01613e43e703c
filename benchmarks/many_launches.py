"""Make a many-launch Nsight Compute report to benchmark extraction speed.

Run under ncu (application replay: each pass reruns this program at full speed; the kernel-name
filter picks the 1,000 launches, where kernel replay would take half an hour):

    ncu --replay-mode application --app-replay-mode relaxed --set basic --section SourceCounters \
        --section WarpStateStats \
        --import-source yes --clock-control none -k regex:sgemm_ \
        -o many python3 benchmarks/many_launches.py 1000 [KERNEL ...]

(application replay with the SourceCounters section failed at its 4th pass on the H200 when the
program launched `smem`, a kernel with shared memory: "Failed to profile sgemm_smem".)

Then: python3 benchmarks/extract_speed.py many.ncu-rep
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from profiler.manifest import select_kernels  # noqa: E402
from profiler.measure.build import build_kernel  # noqa: E402
from profiler.measure.device import gpu_info, import_cupy  # noqa: E402
from profiler.measure.launch import Gemm, KernelRunner  # noqa: E402
from profiler.measure.target import NVTX_OUTER, nvtx_inner  # noqa: E402


def main(launches: int, kernels: list[str], size: int = 64) -> None:
    cp = import_cupy()
    from cupy.cuda import nvtx

    specs = select_kernels(kernels)
    arch = gpu_info().arch
    runners = [KernelRunner(cp, s, str(build_kernel(s, arch).cubin)) for s in specs]
    g = Gemm.random(cp, size, size, size, seed=0)
    nvtx.RangePush(NVTX_OUTER)
    for i in range(launches):
        run = runners[i % len(runners)]
        nvtx.RangePush(nvtx_inner(run.name, size, size, size))
        run(g, 1.0, 0.5)
        nvtx.RangePop()
    nvtx.RangePop()
    cp.cuda.runtime.deviceSynchronize()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000, sys.argv[2:] or ["naive", "smem"])
