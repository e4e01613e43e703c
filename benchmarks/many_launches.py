"""Arguments for benchmarks/many_launches.cu, from the manifest: the many-launch report's kernels.

    python3 benchmarks/many_launches.py --args SIZE [KERNEL ...]   # default: naive smem

prints SIZE, then CUBIN ENTRY GX GY BX BY SMEM per kernel (built for this GPU through gemmprof's
build cache). `make gpu-many` runs, on the device (460 s on the H200):

    ncu --cache-control none --section LaunchStats --section Occupancy --section SpeedOfLight \\
        --section WarpStateStats --section SourceCounters --import-source yes --clock-control none \\
        -k regex:sgemm_ -o many ./many_launches 1000 $(python3 benchmarks/many_launches.py --args 64 naive coalesced smem)

Then, on any machine: python3 benchmarks/extract_speed.py many.ncu-rep
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from profiler.catalogue.manifest import select_kernels  # noqa: E402
from profiler.measure.build import build_kernel  # noqa: E402
from profiler.measure.device import gpu_info  # noqa: E402


def launch_args(size: int, kernels: list[str]) -> str:
    """SIZE, then CUBIN ENTRY GX GY BX BY SMEM per kernel (FP32 kernels with 2-D launches only)."""
    arch = gpu_info().arch
    fields = [str(size)]
    for spec in select_kernels(kernels):
        launch = spec.launch(size, size, size)
        reason = spec.unsupported_reason(size, size, size)
        if reason:
            sys.exit(f"{spec.name} cannot run {size}^3: {reason}")
        # many_launches.cu passes the fixed FP32 arguments alone and does not raise the 48 KiB
        # default limit of dynamic shared memory, as the Python launcher does.
        plain = spec.tier == "fp32" and not spec.textures and not spec.tensor_maps and launch.smem_bytes <= 48 * 1024
        if not plain or launch.grid[2] != 1 or launch.block[2] != 1:
            sys.exit(f"many_launches.cu runs plain FP32 kernels with 2-D launches and at most 48 KiB of "
                     f"dynamic shared memory; {spec.name} is not one")
        fields += [str(build_kernel(spec, arch).cubin), spec.entry, *map(str, launch.grid[:2]),
                   *map(str, launch.block[:2]), str(launch.smem_bytes)]
    return " ".join(fields)


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] != "--args":
        sys.exit(__doc__)
    print(launch_args(int(sys.argv[2]), sys.argv[3:] or ["naive", "smem"]))
