"""THE table of Nsight Compute metrics gemmprof reads, and the columns derived from them.

Every ncu metric name in gemmprof is spelled here and nowhere else: the `--metrics` argument that
`gemmprof profile` adds to `--set full` (`ncu_extra_metrics()`), the column renames the reader
applies, the units and the one-line meanings that reports and chart labels show. Each entry says
which column it becomes and in which unit we report it; the reader converts ncu's unit to ours.

Three tables:
- `LAUNCH_FIELDS`: columns the reader takes from the report itself, not from a metric
  (launch index, kernel name, NVTX range, the report's path).
- `METRICS`: ncu metric -> our column. `level="launch"` gives one value per profiled launch (the
  `kernels` table); `level="instruction"` gives one value per SASS instruction (the source page:
  the `sass` and `source` tables).
- `DERIVED`: columns computed from the launch columns (FLOPs, peaks at the clock the report saw,
  the occupancy limiter, the top stall). Each is a pure function of a frame of launch columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from .stall_table import BY_REASON, COST_REASONS, LAUNCH_REASONS, SAMPLED_NAMES


class _NumpyOnFirstUse:
    """numpy, imported when a derived column is first computed: `gemmprof profile` reads this
    table (ncu's --metrics) just before it starts ncu, and numpy's import would delay that start
    (by a quarter of a second on a 2-core host). The first use puts numpy itself in `np`."""

    def __getattr__(self, name: str):
        import numpy

        globals()["np"] = numpy
        return getattr(numpy, name)


np: Any = _NumpyOnFirstUse()

LAUNCH = "launch"
INSTRUCTION = "instruction"

# Units we report in. Tests check every entry uses one of these.
UNITS = {
    "text": "a name or label",
    "index": "a position, counted from 0",
    "count": "a plain count",
    "ns": "nanoseconds",
    "Hz": "cycles per second",
    "byte": "bytes",
    "byte/s": "bytes per second",
    "byte/block": "bytes per thread block",
    "byte/cycle": "bytes per clock cycle of the unit",
    "FLOP": "floating-point operations (an FMA counts 2)",
    "FLOP/s": "floating-point operations per second",
    "FLOP/cycle": "floating-point operations per SM clock cycle, whole GPU",
    "inst": "warp-level instructions",
    "inst/cycle": "thread-level instructions per clock cycle",
    "cycle": "clock cycles",
    "cycle/inst": "cycles per issued warp instruction",
    "%": "percent",
    "block": "thread blocks",
    "thread": "threads",
    "register/thread": "registers per thread",
    "wavefront": "shared-memory wavefronts (one pass through the 32 banks)",
    "wavefront/cycle": "shared-memory wavefronts per L1 clock cycle, whole GPU",
    "sector": "32-byte memory sectors",
    "sample": "warp program-counter samples",
    "sector/request": "32-byte sectors per memory request of a warp (4 is a coalesced 128-byte warp access)",
    "SM": "streaming multiprocessors",
}


@dataclass(frozen=True)
class Field:
    """A column the reader takes from the report's structure rather than from a metric."""

    column: str
    unit: str
    meaning: str
    dtype: str = "float64"


@dataclass(frozen=True)
class Metric:
    """One ncu metric and the column it becomes."""

    column: str
    ncu: str
    unit: str
    meaning: str
    level: str = LAUNCH
    # False when `--set full` lacks it, so `gemmprof profile` must ask for it with --metrics.
    in_full_set: bool = True
    dtype: str = "float64"  # "Int64" for integral launch settings, "str" for names


@dataclass(frozen=True)
class Derived:
    """A launch column computed from other launch columns (pure, vectorised over launches)."""

    column: str
    unit: str
    meaning: str
    compute: Callable[[Any], Any]


LAUNCH_FIELDS: tuple[Field, ...] = (
    Field("launch", "index", "Position of the launch in the report, as ncu's raw export numbers it (ID).", "Int64"),
    Field("kernel", "text", "Demangled kernel name, the launch's function signature as ncu shows it.", "str"),
    Field("function", "text", "Kernel function name without parameters (ncu's 'Kernel Name' column).", "str"),
    Field("nvtx", "text", "The NVTX push/pop ranges open at launch, outermost first, joined with '/'.", "str"),
    Field("kernel_key", "text", "gemmprof's kernel name from the NVTX range 'gp/<key> <M>x<N>x<K>'.", "str"),
    Field("M", "count", "Rows of A and C, from the NVTX range.", "Int64"),
    Field("N", "count", "Columns of B and C, from the NVTX range.", "Int64"),
    Field("K", "count", "Columns of A and rows of B, from the NVTX range.", "Int64"),
    Field("report", "text", "Path of the .ncu-rep file the launch came from.", "str"),
)

# Per-instruction fields of the `sass` table that are not metrics.
SASS_FIELDS: tuple[Field, ...] = (
    Field("launch", "index", "Position of the launch in the report.", "Int64"),
    Field("kernel", "text", "Demangled kernel name.", "str"),
    Field("pc", "index", "Address of the instruction.", "Int64"),
    Field("offset", "byte", "Address relative to the kernel's first executed instruction.", "Int64"),
    Field("sass", "text", "The SASS instruction.", "str"),
    Field("file", "text", "Source file the instruction came from (needs nvcc -lineinfo).", "str"),
    Field("line", "index", "Line in that file (1-based).", "Int64"),
)

@dataclass(frozen=True)
class Series:
    """One of a launch's PM-sampling timelines (the `timeline` table's columns): ncu samples these
    counters at a fixed interval over the launch (the "PM Sampling" section of `--set full`)."""

    column: str
    suffix: str  # the metric's name after its counter group ('TPC.TriageCompute.', 'pmsampling:'), which varies
    unit: str
    meaning: str


TIMELINE: tuple[Series, ...] = (
    Series("tensor_pct", "sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed", "%",
           "Tensor pipe busy in the interval, % of its peak."),
    Series("fma_pct", "sm__inst_executed_pipe_fma_realtime.avg.pct_of_peak_sustained_elapsed", "%",
           "Instructions issued to the FMA pipe in the interval, % of its peak."),
    Series("issue_pct", "sm__inst_executed_realtime.avg.pct_of_peak_sustained_elapsed", "%",
           "Instructions issued in the interval, % of the schedulers' peak."),
    Series("dram_pct", "dramc__throughput.avg.pct_of_peak_sustained_elapsed", "%",
           "DRAM throughput in the interval, % of its peak."),
    Series("l2_pct", "lts__throughput.avg.pct_of_peak_sustained_elapsed", "%",
           "L2 throughput in the interval, % of its peak."),
    Series("l1_pct", "l1tex__throughput.avg.pct_of_peak_sustained_elapsed", "%",
           "L1/TEX throughput in the interval, % of its peak."),
    Series("sm_active_cycles", "sm__cycles_active.avg", "cycle",
           "Cycles the average SM had a block in the interval."),
    # PM Sampling: Warp States (`profile --timeline`): warps stalled for each main reason, per interval
    *(Series(f"stalled_{reason}", f"smsp__warps_issue_stalled_{reason}.avg", "warp",
             f"Warps stalled on {reason.replace('_', ' ')} in the interval, summed over its cycles, per "
             f"scheduler (--timeline only): a level to compare across the launch.")
      for reason in ("long_scoreboard", "barrier", "mio_throttle", "lg_throttle", "short_scoreboard", "wait")),
)
TIMELINE_COLUMNS = ["launch", "kernel", "t_ns", *[s.column for s in TIMELINE]]


# Bytes one shared-memory wavefront moves at most: 32 banks x 4 bytes.
SHARED_BYTES_PER_WAVEFRONT = 128
# What one SM's L1 serves per L1 cycle where a report lacks the peak metrics (plain `--set full`
# has neither): one shared-memory wavefront and 512 bytes. Read off reports that have them
# (ncu 2025.3 on an H200, 132 SMs: l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.peak_sustained
# = 132, l1tex__t_bytes.sum.peak_sustained = 67584); the same on every SM since Volta.
SHARED_WAVEFRONTS_PER_SM_CYCLE = 1
L1_BYTES_PER_SM_CYCLE = 512
# An L2 sector is 32 bytes.
L2_SECTOR_BYTES = 32


def _launch_metrics() -> tuple[Metric, ...]:
    m = Metric
    table = [
        # Launch configuration
        m("grid_x", "launch__grid_dim_x", "block", "Thread blocks in the grid along x.", dtype="Int64"),
        m("grid_y", "launch__grid_dim_y", "block", "Thread blocks in the grid along y.", dtype="Int64"),
        m("grid_z", "launch__grid_dim_z", "block", "Thread blocks in the grid along z.", dtype="Int64"),
        m("block_x", "launch__block_dim_x", "thread", "Threads in a block along x.", dtype="Int64"),
        m("block_y", "launch__block_dim_y", "thread", "Threads in a block along y.", dtype="Int64"),
        m("block_z", "launch__block_dim_z", "thread", "Threads in a block along z.", dtype="Int64"),
        m("registers_per_thread", "launch__registers_per_thread", "register/thread",
          "Registers each thread holds; with the block size they bound how many blocks fit on an SM.", dtype="Int64"),
        m("shared_mem_static_per_block", "launch__shared_mem_per_block_static", "byte/block",
          "Shared memory declared statically in the kernel.", dtype="Int64"),
        m("shared_mem_dynamic_per_block", "launch__shared_mem_per_block_dynamic", "byte/block",
          "Shared memory requested at launch.", dtype="Int64"),
        m("sm_count", "launch__sm_count", "SM", "SMs on the GPU.", dtype="Int64"),
        m("waves_per_sm", "launch__waves_per_multiprocessor", "count",
          "Grid size over the blocks the GPU holds at once: below 1 leaves SMs idle."),
        m("cluster_size", "launch__cluster_size", "block",
          "Blocks in a thread-block cluster (0: launched without clusters); a cluster's blocks run at once, "
          "within one GPC.", dtype="Int64"),
        m("cluster_max_active", "launch__cluster_max_active", "count",
          "Clusters the GPU holds at once for this launch (0 without clusters): where clusters must fit "
          "within a GPC, fewer blocks than the SMs hold.", dtype="Int64"),
        # Device
        m("gpu", "device__attribute_display_name", "text", "GPU name.", dtype="str"),
        m("cc_major", "device__attribute_compute_capability_major", "count", "Compute capability, major.", dtype="Int64"),
        m("cc_minor", "device__attribute_compute_capability_minor", "count", "Compute capability, minor.", dtype="Int64"),
        # Time and clocks
        m("duration_ns", "gpu__time_duration.sum", "ns", "GPU time of the launch."),
        m("sm_clock_hz", "sm__cycles_elapsed.avg.per_second", "Hz",
          "SM clock during the launch (ncu locks it at base unless --clock-control none)."),
        m("smsp_cycles", "smsp__cycles_elapsed.avg", "cycle", "Cycles elapsed per SM sub-partition."),
        m("sm_elapsed_cycles", "sm__cycles_elapsed.avg", "cycle", "Cycles elapsed per SM."),
        m("sm_active_cycles", "sm__cycles_active.avg", "cycle",
          "Cycles an SM had at least one warp resident, averaged over the SMs."),
        m("dram_clock_hz", "dram__cycles_elapsed.avg.per_second", "Hz", "DRAM clock during the launch."),
        m("l2_clock_hz", "lts__cycles_elapsed.avg.per_second", "Hz", "L2 slice clock during the launch."),
        m("l1_clock_hz", "l1tex__cycles_elapsed.avg.per_second", "Hz", "L1/TEX clock during the launch."),
        # Memory traffic
        m("dram_read_bytes", "dram__bytes_read.sum", "byte", "Bytes read from device memory."),
        m("dram_write_bytes", "dram__bytes_write.sum", "byte", "Bytes written to device memory."),
        m("l2_bytes_measured", "lts__t_bytes.sum", "byte",
          "Bytes requested at the L2 tag stage, reads and writes from all clients.", in_full_set=False),
        m("l2_sectors", "lts__t_sectors.sum", "sector", "32-byte sectors requested at the L2 tag stage."),
        m("l2_sm_sectors", "lts__t_sectors_srcunit_tex.sum", "sector",
          "32-byte sectors the SMs requested at the L2 (loads, stores, TMA, atomics): the traffic between "
          "the L2's own partitions and to other units left out."),
        m("l1_bytes", "l1tex__t_bytes.sum", "byte",
          "Bytes requested at the L1/TEX tag stage (global and local memory).", in_full_set=False),
        m("shared_load_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "wavefront",
          "Wavefronts of shared-memory loads; each extra wavefront of one request is a replay."),
        m("shared_store_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "wavefront",
          "Wavefronts of shared-memory stores."),
        m("shared_load_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "wavefront",
          "Extra wavefronts of shared loads caused by bank conflicts."),
        m("shared_store_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "wavefront",
          "Extra wavefronts of shared stores caused by bank conflicts."),
        m("shared_ldgsts_wavefronts", "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
          "wavefront", "Shared-memory wavefronts of cp.async (LDGSTS) copies."),
        m("shared_ldgsts_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
          "wavefront", "Extra wavefronts of cp.async (LDGSTS) copies caused by bank conflicts."),
        # Peaks per cycle, to turn into peaks per second at the clock the report saw
        m("dram_bytes_per_cycle_peak", "dram__bytes.sum.peak_sustained", "byte/cycle",
          "Device-memory bytes the GPU can move per DRAM cycle.", in_full_set=False),
        m("l2_bytes_per_cycle_peak", "lts__t_bytes.sum.peak_sustained", "byte/cycle",
          "L2 bytes the GPU can serve per L2 cycle.", in_full_set=False),
        m("l2_sectors_per_cycle_peak_per_slice", "lts__t_sectors.avg.peak_sustained", "sector",
          "L2 sectors one L2 slice can serve per cycle."),
        m("l2_slices", "device__attribute_l2s_count", "count", "L2 slices on the GPU.", dtype="Int64"),
        m("l1_bytes_per_cycle_peak", "l1tex__t_bytes.sum.peak_sustained", "byte/cycle",
          "L1/TEX bytes all SMs can serve per L1 cycle.", in_full_set=False),
        m("shared_wavefronts_per_cycle_peak", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.peak_sustained",
          "wavefront/cycle", "Shared-memory wavefronts all SMs can serve per L1 cycle.", in_full_set=False),
        m("ffma_per_cycle_peak", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", "inst/cycle",
          "FFMA thread instructions all SMs can issue per SM cycle."),
        m("tensor_fp16_per_cycle_peak", "sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum.peak_sustained",
          "FLOP/cycle", "Dense FP16 warpgroup-MMA (Hopper) FLOPs the GPU can do per SM cycle."),
        m("tensor_fp16_mma_per_cycle_peak",
          "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_off.sum.peak_sustained",
          "FLOP/cycle", "Dense FP16 mma.sync FLOPs (FP32 accumulate) the GPU can do per SM cycle."),
        m("tensor_tf32_per_cycle_peak", "sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32_sparsity_off.sum.peak_sustained",
          "FLOP/cycle", "Dense TF32 warpgroup-MMA (Hopper) FLOPs the GPU can do per SM cycle."),
        m("tensor_tf32_mma_per_cycle_peak",
          "sm__ops_path_tensor_op_hmma_src_tf32_dst_fp32_sparsity_off.sum.peak_sustained",
          "FLOP/cycle", "Dense TF32 mma.sync FLOPs the GPU can do per SM cycle (on Hopper 2/3 of the warpgroup rate)."),
        # Occupancy
        m("achieved_occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active", "%",
          "Warps resident on an SM while it is active, over the most it can hold."),
        m("theoretical_occupancy_pct", "sm__maximum_warps_per_active_cycle_pct", "%",
          "Most warps the launch configuration lets an SM hold, over the hardware limit."),
        m("occupancy_limit_registers", "launch__occupancy_limit_registers", "block",
          "Blocks per SM that the register file allows."),
        m("occupancy_limit_shared_mem", "launch__occupancy_limit_shared_mem", "block",
          "Blocks per SM that shared memory allows."),
        m("occupancy_limit_warps", "launch__occupancy_limit_warps", "block", "Blocks per SM that the warp slots allow."),
        m("occupancy_limit_blocks", "launch__occupancy_limit_blocks", "block", "Blocks per SM that the block slots allow."),
        m("occupancy_limit_barriers", "launch__occupancy_limit_barriers", "block",
          "Blocks per SM that the named barriers allow."),
        # Arithmetic
        m("ffma_thread_inst", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst",
          "Predicated-on FFMA thread instructions (2 FLOP each).", in_full_set=False),
        m("fadd_thread_inst", "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "inst",
          "Predicated-on FADD thread instructions.", in_full_set=False),
        m("fmul_thread_inst", "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", "inst",
          "Predicated-on FMUL thread instructions.", in_full_set=False),
        m("ffma_thread_inst_per_cycle", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed",
          "inst/cycle", "FFMA thread instructions per SMSP cycle; times smsp_cycles gives the count."),
        m("fadd_thread_inst_per_cycle", "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed",
          "inst/cycle", "FADD thread instructions per SMSP cycle."),
        m("fmul_thread_inst_per_cycle", "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed",
          "inst/cycle", "FMUL thread instructions per SMSP cycle."),
        m("dadd_thread_inst_per_cycle", "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed",
          "inst/cycle", "DADD (FP64 add) thread instructions per SMSP cycle."),
        m("dmul_thread_inst_per_cycle", "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum.per_cycle_elapsed",
          "inst/cycle", "DMUL (FP64 multiply) thread instructions per SMSP cycle."),
        m("dfma_thread_inst_per_cycle", "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed",
          "inst/cycle", "DFMA (FP64 fused multiply-add) thread instructions per SMSP cycle."),
        m("hadd_thread_inst_per_cycle", "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed",
          "inst/cycle", "HADD2 (packed FP16 add, 2 FLOP) thread instructions per SMSP cycle."),
        m("hmul_thread_inst_per_cycle", "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum.per_cycle_elapsed",
          "inst/cycle", "HMUL2 (packed FP16 multiply, 2 FLOP) thread instructions per SMSP cycle."),
        m("hfma_thread_inst_per_cycle", "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed",
          "inst/cycle", "HFMA2 (packed FP16 FMA, 4 FLOP) thread instructions per SMSP cycle."),
        m("dfma_per_cycle_peak", "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained", "inst/cycle",
          "DFMA thread instructions all SMs can issue per SM cycle."),
        m("hfma_per_cycle_peak", "sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained", "inst/cycle",
          "HFMA2 thread instructions all SMs can issue per SM cycle."),
        m("tensor_fp16_flop", "sm__ops_path_tensor_src_fp16.sum", "FLOP", "Tensor-core FLOPs with FP16 inputs."),
        m("tensor_bf16_flop", "sm__ops_path_tensor_src_bf16_dst_fp32.sum", "FLOP", "Tensor-core FLOPs with BF16 inputs."),
        m("tensor_tf32_flop", "sm__ops_path_tensor_src_tf32_dst_fp32.sum", "FLOP", "Tensor-core FLOPs with TF32 inputs."),
        m("tensor_fp8_flop", "sm__ops_path_tensor_src_fp8_sparsity_off.sum", "FLOP",
          "Dense tensor-core FLOPs with FP8 inputs."),
        m("tensor_fp64_flop", "sm__ops_path_tensor_src_fp64.sum", "FLOP", "Tensor-core FP64 FLOPs."),
        m("inst_executed", "smsp__inst_executed.sum", "inst", "Warp instructions executed."),
        # Local memory (register spills and arrays the compiler cannot keep in registers)
        m("local_load_sectors", "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "sector",
          "32-byte sectors of local-memory loads (LDL) at L1."),
        m("local_store_sectors", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", "sector",
          "32-byte sectors of local-memory stores (STL) at L1."),
        m("local_load_inst", "smsp__sass_inst_executed_op_local_ld.sum", "inst", "Warp-level local loads (LDL)."),
        m("local_store_inst", "smsp__sass_inst_executed_op_local_st.sum", "inst", "Warp-level local stores (STL)."),
        m("stack_bytes", "launch__stack_size", "count",
          "Stack frame per thread: local memory the compiler reserved (arrays, spills, calls)."),
        m("local_spill_requests", "derived__local_spilling_requests", "count",
          "Local-memory requests that are register spills (ncu's source-level attribution)."),
        m("local_spill_pct", "derived__local_spilling_requests_pct", "%",
          "Register spills as a share of all local-memory requests."),
        # Global access granularity
        m("global_load_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sector",
          "32-byte sectors of global loads at L1."),
        m("global_load_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "count",
          "Global load requests (one per warp instruction) at L1."),
        m("global_store_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "sector",
          "32-byte sectors of global stores at L1."),
        m("global_store_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "count",
          "Global store requests (one per warp instruction) at L1."),
        # Atomics and reductions, served by the L2
        m("atomic_l2_sectors", "lts__t_sectors_srcunit_tex_op_atom.sum", "sector",
          "L2 sectors of atomic operations (ATOM, with a return value)."),
        m("reduction_l2_sectors", "lts__t_sectors_srcunit_tex_op_red.sum", "sector",
          "L2 sectors of reductions (RED: atomics whose result is not used)."),
        m("atomic_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "count",
          "Global atomic requests (warp instructions) at L1."),
        m("reduction_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", "count",
          "Global reduction requests (warp instructions) at L1."),
        # Divergence
        m("threads_per_inst", "smsp__thread_inst_executed_per_inst_executed.ratio", "thread",
          "Threads active per executed warp instruction (32 without divergence or predication)."),
        m("branch_uniform_pct", "smsp__sass_average_branch_targets_threads_uniform.pct", "%",
          "Branches whose threads all took the same target (ncu's branch efficiency)."),
        # Pipe utilisation, as the Compute Workload Analysis section shows it
        m("pipe_fma_pct", "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active", "%",
          "FMA pipe (FP32 FFMA/FADD/FMUL, and FP16 HFMA2) issue rate, of its peak while the SM is active."),
        m("pipe_fp64_pct", "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active", "%",
          "FP64 pipe (DFMA/DADD/DMUL) issue rate, of its peak while the SM is active."),
        m("pipe_alu_pct", "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active", "%",
          "ALU pipe (integer, logic, comparisons, conversions) issue rate, of its peak."),
        m("pipe_lsu_pct", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active", "%",
          "Load/store pipe (global, local, shared instructions) issue rate, of its peak."),
        m("pipe_tma_pct", "sm__inst_executed_pipe_tma.avg.pct_of_peak_sustained_active", "%",
          "TMA (bulk tensor copy) instruction issue rate, of its peak."),
        m("pipe_gmma_pct", "sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active", "%",
          "Warpgroup MMA (wgmma, Hopper) instruction issue rate, of its peak."),
        m("pipe_hmma_pct", "sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active", "%",
          "mma.sync (HMMA) instruction issue rate, of its peak."),
        m("pipe_tensor_active_pct", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "%",
          "Cycles the tensor pipe was busy, of the cycles the SM was active."),
        m("pipe_fp64_active_pct", "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active", "%",
          "Cycles the FP64 pipe was busy, of the cycles the SM was active."),
        m("pipe_shared_active_pct", "sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active", "%",
          "Cycles the shared pipe (FP16 and tensor issue) was busy, of the cycles the SM was active."),
        # Hopper asynchronous paths
        m("shared_gmma_inst", "smsp__sass_inst_executed_op_shared_gmma.sum", "inst",
          "wgmma instructions reading an operand from shared memory through a descriptor (their shared "
          "traffic is not in the shared-memory wavefront counters)."),
        m("tma_load_inst", "smsp__sass_inst_executed_op_tma_ld.sum", "inst", "TMA (bulk tensor) load instructions."),
        m("tma_load_bytes", "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum", "byte",
          "Bytes the TMA loads brought from L2 into shared memory."),
        m("l2_throughput_pct", "lts__throughput.avg.pct_of_peak_sustained_elapsed", "%",
          "Busiest L2 unit, in percent of its peak."),
        m("l1_throughput_pct", "l1tex__throughput.avg.pct_of_peak_sustained_active", "%",
          "Busiest L1/TEX unit (data pipes, tags, shared memory), in percent of its peak."),
        # Throughput, as the Speed Of Light section shows it
        m("sm_throughput_pct", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%",
          "Busiest SM pipeline or unit, in percent of its peak (Speed Of Light: Compute)."),
        m("memory_throughput_pct", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "%",
          "Busiest memory unit (L1, L2, DRAM), in percent of its peak (Speed Of Light: Memory)."),
        m("dram_throughput_pct", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "%",
          "Device-memory throughput in percent of its peak."),
    ]
    for reason in LAUNCH_REASONS:
        table.append(
            m(
                f"stall_{reason}",
                f"smsp__average_warps_issue_stalled_{BY_REASON[reason].launch_name}_per_issue_active.ratio",
                "cycle/inst",
                f"Cycles a warp spends stalled on {reason.replace('_', ' ')} per issued instruction.",
            )
        )
    return tuple(table)


def _instruction_metrics() -> tuple[Metric, ...]:
    m = Metric
    table = [
        m("inst_executed", "inst_executed", "inst", "Times a warp executed this instruction.", INSTRUCTION),
        m("thread_inst_executed", "thread_inst_executed_true", "inst",
          "Times a thread executed this instruction with its predicate on.", INSTRUCTION),
        m("samples", "smsp__pcsamp_sample_count", "sample", "Warp PC samples at this instruction.", INSTRUCTION),
        m("shared_wavefronts", "memory_l1_wavefronts_shared", "wavefront",
          "Shared-memory wavefronts this instruction caused.", INSTRUCTION),
        m("shared_wavefronts_ideal", "memory_l1_wavefronts_shared_ideal", "wavefront",
          "Shared-memory wavefronts it would cause without bank conflicts.", INSTRUCTION),
        m("shared_excess_wavefronts", "derived__memory_l1_wavefronts_shared_excessive", "wavefront",
          "Shared-memory wavefronts beyond the ideal: the cost of bank conflicts here.", INSTRUCTION),
        m("l2_global_sectors", "memory_l2_theoretical_sectors_global", "sector",
          "L2 sectors this global access requests.", INSTRUCTION),
        m("l2_global_sectors_ideal", "memory_l2_theoretical_sectors_global_ideal", "sector",
          "L2 sectors a fully coalesced access would request.", INSTRUCTION),
        m("l2_global_excess_sectors", "derived__memory_l2_theoretical_sectors_global_excessive", "sector",
          "L2 sectors beyond the ideal: the cost of uncoalesced global access here.", INSTRUCTION),
    ]
    for ncu_reason, reason in SAMPLED_NAMES.items():
        table.append(
            m(
                f"samples_{reason}",
                f"smsp__pcsamp_warps_issue_stalled_{ncu_reason}",
                "sample",
                f"PC samples of warps stalled on {reason.replace('_', ' ')} at this instruction.",
                INSTRUCTION,
            )
        )
    return tuple(table)


METRICS: tuple[Metric, ...] = _launch_metrics() + _instruction_metrics()


def metrics_at(level: str) -> tuple[Metric, ...]:
    return tuple(m for m in METRICS if m.level == level)


def ncu_extra_metrics() -> list[str]:
    """Metrics `gemmprof profile` passes to ncu with --metrics, on top of `--set full`."""
    return [m.ncu for m in METRICS if not m.in_full_set]


def metrics_argument() -> str:
    """The value of ncu's --metrics option: `ncu_extra_metrics()` joined by commas."""
    return ",".join(ncu_extra_metrics())


# ---------------------------------------------------------------------------------------------
# Derived columns. Each takes a frame (or dict) of launch columns and returns one column.


def _coalesce(*columns: np.ndarray) -> np.ndarray:
    """The first non-missing value of several columns, launch by launch."""
    result = np.array(columns[0], dtype="float64")
    for column in columns[1:]:
        result = np.where(np.isnan(result), column, result)
    return result


def _f(frame: Any, column: str) -> np.ndarray:
    """A column as float64 with NaN for missing (pandas nullable columns included)."""
    values = frame[column]
    if hasattr(values, "to_numpy"):
        return values.to_numpy(dtype="float64", na_value=np.nan)
    return np.array([np.nan if v is None else v for v in values], dtype="float64")


def _dims(frame: Any, prefix: str) -> list[str | None]:
    x, y, z = (_f(frame, f"{prefix}_{axis}") for axis in "xyz")
    return [
        None if np.isnan(dims).any() else f"({int(dims[0])}, {int(dims[1])}, {int(dims[2])})"
        for dims in zip(x, y, z)
    ]


def fp32_flop(frame: Any) -> np.ndarray:
    """FADD + FMUL + 2 x FFMA. The plain `.sum` counts are exact; `--set full` alone has only
    their per-cycle rates, which times the SMSP cycles give back the count (rounded)."""
    cycles = _f(frame, "smsp_cycles")
    total = np.zeros(len(cycles))
    for op, weight in (("fadd", 1), ("fmul", 1), ("ffma", 2)):
        rate_based = np.round(_f(frame, f"{op}_thread_inst_per_cycle") * cycles)
        total = total + weight * _coalesce(_f(frame, f"{op}_thread_inst"), rate_based)
    return total


def _rate_count(frame: Any, op: str) -> np.ndarray:
    """Thread instructions of `op` from the per-cycle rate `--set full` has, times the cycles."""
    return np.round(_f(frame, f"{op}_thread_inst_per_cycle") * _f(frame, "smsp_cycles"))


def fp64_flop(frame: Any) -> np.ndarray:
    """DADD + DMUL + 2 x DFMA: double-precision FLOPs on the FP64 pipe."""
    return _rate_count(frame, "dadd") + _rate_count(frame, "dmul") + 2 * _rate_count(frame, "dfma")


def fp16_flop(frame: Any) -> np.ndarray:
    """Packed half-precision FLOPs outside the tensor cores: 2 per HADD2 and HMUL2, 4 per HFMA2."""
    return 2 * _rate_count(frame, "hadd") + 2 * _rate_count(frame, "hmul") + 4 * _rate_count(frame, "hfma")


def _flop_parts(frame: Any) -> dict[str, np.ndarray]:
    """FLOPs per pipe, a missing part counted 0 (an older table lacks the FP64/FP16 counters)."""
    return {"tensor": np.nan_to_num(_f(frame, "tensor_flop")), "fp64": np.nan_to_num(_f(frame, "fp64_flop")),
            "fp16": np.nan_to_num(_f(frame, "fp16_flop")), "fp32": _f(frame, "fp32_flop")}


def achieved_flops(frame: Any) -> np.ndarray:
    """FLOP/s of every pipe's arithmetic. FP16 counts only where it is the math pipe: compilers zero
    registers with `HFMA2.MMA R, -RZ, RZ, 0, 0`, which the HFMA counter counts as 4 FLOPs (cuBLAS's
    FP32 kernel shows thousands), so elsewhere it is no arithmetic of the GEMM."""
    parts = _flop_parts(frame)
    fp16 = np.where(np.array(math_pipe(frame), dtype=object) == "fp16", parts["fp16"], 0.0)
    total = parts["fp32"] + parts["fp64"] + parts["tensor"] + fp16
    return total / (_f(frame, "duration_ns") * 1e-9)


def tensor_input(frame: Any) -> np.ndarray:
    """The input type whose tensor-core peak a launch is measured against: 'TF32' when most of its
    tensor FLOPs are TF32 (the fp32-tc tier), else 'FP16' (also when the TF32 counter is missing)."""
    tf32 = np.nan_to_num(_f(frame, "tensor_tf32_flop")) if "tensor_tf32_flop" in frame else np.zeros(len(frame))
    mostly_tf32 = (tf32 > 0) & (tf32 >= 0.5 * np.nan_to_num(_f(frame, "tensor_flop")))
    return np.where(mostly_tf32, "TF32", "FP16")


def tensor_peak(frame: Any) -> np.ndarray:
    """The tensor-core peak of the input type a launch mostly fed them (`tensor_input`)."""
    return np.where(tensor_input(frame) == "TF32", _f(frame, "peak_tensor_tf32_flops"), _f(frame, "peak_tensor_fp16_flops"))


# The pipes a GEMM's math can run on, and the peak column each is measured against.
MATH_PIPES = {"tensor": "peak_tensor_flops", "fp64": "peak_fp64_flops", "fp16": "peak_fp16_flops",
              "fp32": "peak_fp32_flops"}


def math_pipe(frame: Any) -> list[str | None]:
    """The pipe that did the launch's math: the tensor cores when it used them at all (their few
    FP32 FFMAs are the epilogue), else the pipe with the most FLOPs (FP32 on a tie or no math)."""
    parts = _flop_parts(frame)
    known = ~np.isnan(np.vstack([_f(frame, c) for c in ("fp32_flop", "fp64_flop", "fp16_flop", "tensor_flop")])).all(axis=0)
    out: list[str | None] = []
    for i in range(len(parts["fp32"])):
        if not known[i] or parts["tensor"][i] > 0:
            out.append("tensor" if known[i] else None)
            continue
        scalar = {p: np.nan_to_num(parts[p][i]) for p in ("fp32", "fp64", "fp16")}
        best = max(scalar, key=lambda p: (scalar[p], p == "fp32"))
        out.append(best if scalar[best] > 0 else "fp32")
    return out


def math_peak(frame: Any) -> np.ndarray:
    """The peak FLOP/s of each launch's math pipe (`math_pipe`) at its clock."""
    pipes = math_pipe(frame)
    peaks = {p: _f(frame, column) for p, column in MATH_PIPES.items()}
    return np.array([np.nan if p is None else peaks[p][i] for i, p in enumerate(pipes)], dtype="float64")


def launch_waves(frame: Any) -> np.ndarray:
    """Waves of the launch: ncu's waves per SM, or, where blocks come in clusters, the clusters over
    those the GPU holds at once when that is more. ncu's count leaves out that a cluster's blocks
    must fit within one GPC: on an H200 with 197 KB of shared memory a block, 32 clusters of four
    (128 blocks, 0.97 of ncu's waves) take two waves, since it holds 30 such clusters at once."""
    waves = _f(frame, "waves_per_sm")
    size, active = _f(frame, "cluster_size"), _f(frame, "cluster_max_active")
    blocks = _f(frame, "grid_x") * _f(frame, "grid_y") * _f(frame, "grid_z")
    with np.errstate(invalid="ignore", divide="ignore"):
        clustered = blocks / size / active
    return np.where((size > 1) & (active > 0), np.fmax(waves, clustered), waves)


def tail_cost_pct(frame: Any) -> np.ndarray:
    """Share of the SMs' time the partial last wave leaves idle, for blocks of equal length:
    100 x (ceil(w) - w) / ceil(w) for w waves (124.5 waves: 0.4%; 1.01 waves: 49.6%), w the
    launch's waves (`launch_waves`: of clusters, where they bind; ncu's in a table without it). NaN
    below one wave (then the grid is too small, a different problem) and 0 for whole waves."""
    waves = _f(frame, "launch_waves" if "launch_waves" in frame else "waves_per_sm")
    whole = np.ceil(waves)
    with np.errstate(invalid="ignore", divide="ignore"):
        cost = 100.0 * (whole - waves) / whole
    return np.where(waves >= 1.0, cost, np.nan)


def _sum_known(*columns: np.ndarray) -> np.ndarray:
    """Launch by launch, the sum of the known values; NaN where all are missing."""
    values = np.vstack(columns)
    total = np.nansum(values, axis=0)
    return np.where(np.isnan(values).all(axis=0), np.nan, total)


def _per(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / denominator, np.nan)


def tensor_flop(frame: Any) -> np.ndarray:
    """All tensor-core FLOPs; a GPU lacking some precisions reports them missing (counted 0),
    but when every part is missing the sum is missing too."""
    parts = ["tensor_fp16_flop", "tensor_bf16_flop", "tensor_tf32_flop", "tensor_fp8_flop", "tensor_fp64_flop"]
    values = np.vstack([_f(frame, p) for p in parts])
    missing = np.isnan(values).all(axis=0)
    total = np.nansum(values, axis=0)
    total[missing] = np.nan
    return total


# Each resource that caps blocks per SM, and its column; ties are named in this order.
OCCUPANCY_LIMITS = (
    ("registers", "occupancy_limit_registers"),
    ("shared memory", "occupancy_limit_shared_mem"),
    ("warps", "occupancy_limit_warps"),
    ("blocks", "occupancy_limit_blocks"),
    ("barriers", "occupancy_limit_barriers"),
)


def occupancy_limiter(frame: Any) -> list[str | None]:
    """The resource allowing the fewest blocks per SM (ties listed in a fixed order)."""
    limits = {name: _f(frame, column) for name, column in OCCUPANCY_LIMITS}
    n = len(next(iter(limits.values())))
    return [choose_limiter({name: values[i] for name, values in limits.items()}) for i in range(n)]


def choose_limiter(limits: dict[str, float]) -> str | None:
    """{'registers': 2, 'warps': 2, 'blocks': 32} -> 'registers, warps'; None if all missing."""
    known = {k: v for k, v in limits.items() if v is not None and not np.isnan(v)}
    if not known:
        return None
    low = min(known.values())
    return ", ".join(k for k, v in known.items() if v == low)


def top_stall(frame: Any) -> list[str | None]:
    """The stall reason costing the most cycles per issued instruction, among the reasons that are
    a cost ('selected' and 'not selected' never are: `stall_table`)."""
    reasons = tuple(r for r in COST_REASONS if r in LAUNCH_REASONS)
    values = np.vstack([_f(frame, f"stall_{r}") for r in reasons])
    out: list[str | None] = []
    for i in range(values.shape[1]):
        column = values[:, i]
        out.append(None if np.isnan(column).all() else reasons[int(np.nanargmax(column))])
    return out


def _peak(per_cycle: str, clock: str, times: float = 1.0) -> Callable[[Any], np.ndarray]:
    return lambda f: _f(f, per_cycle) * times * _f(f, clock)


DERIVED: tuple[Derived, ...] = (
    Derived("grid", "text", "Grid dimensions (x, y, z).", lambda f: _dims(f, "grid")),
    Derived("block", "text", "Block dimensions (x, y, z).", lambda f: _dims(f, "block")),
    Derived("threads_per_block", "thread", "Threads in a block.",
            lambda f: _f(f, "block_x") * _f(f, "block_y") * _f(f, "block_z")),
    Derived("shared_mem_per_block", "byte/block", "Shared memory per block, static plus dynamic.",
            lambda f: _f(f, "shared_mem_static_per_block") + _f(f, "shared_mem_dynamic_per_block")),
    Derived("fp32_flop", "FLOP", "FP32 FLOPs on the FMA pipes: FADD + FMUL + 2 x FFMA.", fp32_flop),
    Derived("tensor_flop", "FLOP", "Tensor-core FLOPs of all precisions.", tensor_flop),
    Derived("fp64_flop", "FLOP", "FP64 FLOPs on the FP64 pipe: DADD + DMUL + 2 x DFMA.", fp64_flop),
    Derived("fp16_flop", "FLOP", "FP16 FLOPs outside the tensor cores: 2 x HADD2 + 2 x HMUL2 + 4 x HFMA2.", fp16_flop),
    Derived("math_pipe", "text", "The pipe that did the math: tensor, fp64, fp16 or fp32.", math_pipe),
    Derived("achieved_flops", "FLOP/s",
            "FLOPs / duration: FP32 + FP64 + tensor-core FLOPs, and the FP16 ones where FP16 is the math pipe.",
            achieved_flops),
    Derived("local_bytes", "byte", "Local-memory bytes loaded and stored at L1 (32 per sector).",
            lambda f: (_f(f, "local_load_sectors") + _f(f, "local_store_sectors")) * L2_SECTOR_BYTES),
    Derived("global_load_sectors_per_request", "sector/request",
            "Sectors per global load request: 4 for a warp reading 128 contiguous bytes, up to 32 when scattered.",
            lambda f: _per(_f(f, "global_load_sectors"), _f(f, "global_load_requests"))),
    Derived("global_store_sectors_per_request", "sector/request",
            "Sectors per global store request: 4 for a warp writing 128 contiguous bytes, up to 32 when scattered.",
            lambda f: _per(_f(f, "global_store_sectors"), _f(f, "global_store_requests"))),
    Derived("atomic_bytes", "byte", "L2 bytes of atomics and reductions (32 per sector).",
            lambda f: _sum_known(_f(f, "atomic_l2_sectors"), _f(f, "reduction_l2_sectors")) * L2_SECTOR_BYTES),
    Derived("launch_waves", "count",
            "Waves of the launch: waves_per_sm, or where blocks come in clusters, the clusters over those the "
            "GPU holds at once (cluster_max_active) when that is more.", launch_waves),
    Derived("tail_cost_pct", "%", "Share of SM time the partial last wave of blocks leaves idle.", tail_cost_pct),
    Derived("sm_busy_pct", "%",
            "Share of the launch the average SM had work: what split-K, stream-K and smaller tiles raise.",
            lambda f: 100.0 * _per(_f(f, "sm_active_cycles"), _f(f, "sm_elapsed_cycles"))),
    Derived("dram_bytes", "byte", "Bytes moved to and from device memory.",
            lambda f: _f(f, "dram_read_bytes") + _f(f, "dram_write_bytes")),
    Derived("l2_bytes", "byte", "Bytes requested at the L2 (lts__t_bytes; else 32 bytes per sector).",
            lambda f: _coalesce(_f(f, "l2_bytes_measured"), _f(f, "l2_sectors") * L2_SECTOR_BYTES)),
    Derived("l2_sm_bytes", "byte", "Bytes the SMs requested at the L2 (32 per sector).",
            lambda f: _f(f, "l2_sm_sectors") * L2_SECTOR_BYTES),
    Derived("shared_bank_conflicts", "wavefront", "Extra shared-memory wavefronts of loads and stores.",
            lambda f: _f(f, "shared_load_bank_conflicts") + _f(f, "shared_store_bank_conflicts")),
    Derived("peak_fp32_flops", "FLOP/s", "FP32 FMA peak at the SM clock of this launch: 2 FLOP per FFMA lane.",
            _peak("ffma_per_cycle_peak", "sm_clock_hz", 2.0)),
    Derived("peak_tensor_fp16_flops", "FLOP/s",
            "Dense FP16 tensor-core peak at this launch's SM clock (warpgroup MMA where the GPU has it).",
            lambda f: _coalesce(_f(f, "tensor_fp16_per_cycle_peak"), _f(f, "tensor_fp16_mma_per_cycle_peak"))
            * _f(f, "sm_clock_hz")),
    Derived("peak_tensor_tf32_flops", "FLOP/s",
            "Dense TF32 tensor-core peak at this launch's SM clock (warpgroup MMA where the GPU has it; "
            "mma.sync reaches 2/3 of it on Hopper).",
            lambda f: _coalesce(_f(f, "tensor_tf32_per_cycle_peak"), _f(f, "tensor_tf32_mma_per_cycle_peak"))
            * _f(f, "sm_clock_hz")),
    Derived("peak_tensor_flops", "FLOP/s",
            "The tensor-core peak of the input type this launch mostly used: TF32 (peak_tensor_tf32_flops) "
            "when most of its tensor FLOPs are TF32, else FP16 (peak_tensor_fp16_flops).", tensor_peak),
    Derived("peak_fp64_flops", "FLOP/s", "FP64 peak at this launch's SM clock: 2 FLOP per DFMA lane.",
            _peak("dfma_per_cycle_peak", "sm_clock_hz", 2.0)),
    Derived("peak_fp16_flops", "FLOP/s", "FP16 (non-tensor) peak at this launch's SM clock: 4 FLOP per HFMA2 lane.",
            _peak("hfma_per_cycle_peak", "sm_clock_hz", 4.0)),
    Derived("peak_dram_bytes_per_s", "byte/s", "Device-memory bandwidth peak at this launch's DRAM clock.",
            _peak("dram_bytes_per_cycle_peak", "dram_clock_hz")),
    Derived("peak_l2_bytes_per_s", "byte/s", "L2 bandwidth peak at this launch's L2 clock.",
            lambda f: _coalesce(_f(f, "l2_bytes_per_cycle_peak"),
                             _f(f, "l2_sectors_per_cycle_peak_per_slice") * _f(f, "l2_slices") * L2_SECTOR_BYTES)
            * _f(f, "l2_clock_hz")),
    Derived("peak_l1_bytes_per_s", "byte/s",
            "L1/TEX bandwidth peak (all SMs) at this launch's L1 clock (512 bytes per SM cycle where the report "
            "lacks the peak metric).",
            lambda f: _coalesce(_f(f, "l1_bytes_per_cycle_peak"), _f(f, "sm_count") * L1_BYTES_PER_SM_CYCLE)
            * _f(f, "l1_clock_hz")),
    Derived("peak_shared_bytes_per_s", "byte/s",
            "Shared-memory bandwidth peak (all SMs) at this launch's L1 clock, 128 bytes per wavefront (one "
            "wavefront per SM cycle where the report lacks the peak metric).",
            lambda f: _coalesce(_f(f, "shared_wavefronts_per_cycle_peak"), _f(f, "sm_count") * SHARED_WAVEFRONTS_PER_SM_CYCLE)
            * SHARED_BYTES_PER_WAVEFRONT * _f(f, "l1_clock_hz")),
    Derived("fp32_peak_pct", "%", "achieved_flops over peak_fp32_flops.",
            lambda f: 100.0 * _f(f, "achieved_flops") / _f(f, "peak_fp32_flops")),
    Derived("peak_pct", "%",
            "achieved_flops over the peak of the pipe that did the math (math_pipe): the tensor-core peak "
            "of its input type (peak_tensor_flops) when the launch used tensor cores, else the FP64, FP16 or FP32 peak.",
            lambda f: 100.0 * _f(f, "achieved_flops") / math_peak(f)),
    Derived("occupancy_limiter", "text",
            "What caps blocks per SM: registers, shared memory, warps, blocks or barriers.", occupancy_limiter),
    Derived("top_stall", "text", "Stall reason that is a cost with the most cycles per issued instruction.", top_stall),
)


def columns_at(level: str) -> list[str]:
    """Every column the table at `level` holds, in order."""
    if level == LAUNCH:
        return (
            [f.column for f in LAUNCH_FIELDS]
            + [m.column for m in metrics_at(LAUNCH)]
            + [d.column for d in DERIVED]
        )
    return [f.column for f in SASS_FIELDS] + [m.column for m in metrics_at(INSTRUCTION)]


def describe(column: str, level: str = LAUNCH) -> tuple[str, str]:
    """(unit, meaning) of a column, for labels and explanations."""
    for entry in (*LAUNCH_FIELDS, *DERIVED) if level == LAUNCH else SASS_FIELDS:
        if entry.column == column:
            return entry.unit, entry.meaning
    for m in metrics_at(level):
        if m.column == column:
            return m.unit, m.meaning
    raise KeyError(column)
