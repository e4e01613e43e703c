"""Make a many-launch Nsight Compute report to benchmark extraction speed.

    python3 benchmarks/many_launches.py LAUNCHES [KERNEL ...]     # launch through gemmprof's launcher
    python3 benchmarks/many_launches.py --args SIZE [KERNEL ...]  # arguments for many_launches.cu

Under ncu's kernel replay the first form costs about a second a launch. Application replay (each
pass reruns the program) failed on the H200 with this Python launcher ("Failed to profile
sgemm_<kernel>", benchmarks/NOTES.md), so `scripts/gpu_check.sh` step `many` runs the plain driver-API
program benchmarks/many_launches.cu instead, with the cubins and launch shapes printed by --args:

    ncu --replay-mode application --set full --import-source yes --clock-control none \
        -k regex:sgemm_ -o many ./many_launches 1000 $(python3 benchmarks/many_launches.py --args 64 naive)

Then, on any machine: python3 benchmarks/extract_speed.py many.ncu-rep
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


def launch_args(size: int, kernels: list[str]) -> str:
    """SIZE, then CUBIN ENTRY GX GY BX BY SMEM per kernel, from the manifest (FP32, 2-D launches)."""
    arch = gpu_info().arch
    fields = [str(size)]
    for spec in select_kernels(kernels):
        launch = spec.launch(size, size, size)
        if spec.tier != "fp32" or spec.textures or spec.tensor_maps or launch.grid[2] != 1 or launch.block[2] != 1:
            sys.exit(f"many_launches.cu runs plain FP32 kernels with 2-D launches; {spec.name} is not one")
        fields += [str(build_kernel(spec, arch).cubin), spec.entry, *map(str, launch.grid[:2]),
                   *map(str, launch.block[:2]), str(launch.smem_bytes)]
    return " ".join(fields)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--args"]:
        print(launch_args(int(sys.argv[2]), sys.argv[3:] or ["naive", "smem"]))
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000, sys.argv[2:] or ["naive", "smem"])
