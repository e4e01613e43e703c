"""Where a verdict draws its lines: each threshold with the reason for its value, shared by the
decision (`verdict`) and the sentences that explain it (`sentences`)."""

from __future__ import annotations

# The FMA pipe is the limit from this share of its peak: the best FP32 SGEMMs reach 70-80%.
FP32_BOUND_PCT = 70.0


# The tensor cores are the limit from this share of their dense FP16 peak: cuBLAS's FP16 GEMM on the
# H200 runs at 70% at 4096 (of the peak at the clock it ran, which fell to 1.6 GHz).
TENSOR_BOUND_PCT = 65.0


# Two main-loop causes within this many points of the samples are named together, ranked, not
# chosen between (`loop_causes`), and a bank-conflict line this far below its rival is not the lead.
NOISE_PCT = 5.0


# ncu's own threshold: a unit below 60% of its peak is not saturated; both below means latency.
SOL_BUSY_PCT = 60.0


# Memory and SM throughput within this many points count as balanced; memory is examined first
# then, because in a GEMM the memory side feeds the math.
BALANCE_MARGIN_PCT = 5.0


# The L2 busier by ncu's count (lts throughput, which counts its sector work) than this many
# times the share of its peak its bytes make: it handles more sectors and requests than the bytes
# need. wgmma_tmastore at 5000^3, whose rows start mid-sector, 1.60; at 5120^3 1.11 (H200).
SECTOR_WORK_RATIO = 1.4


# DRAM is the limit from this share of its peak bandwidth.
DRAM_BOUND_PCT = 60.0


# Shared memory is the busy memory unit when its wavefronts make up at least this share of the
# busiest memory unit's utilisation (both run through the L1 data pipe).
SHARED_SHARE_MIN = 0.5


# Schedulers issuing on this share of cycles are the limit themselves (instruction overhead).
ISSUE_BUSY_PCT = 80.0

# FFMAs under this share of the issued instructions are a note whatever the bound: the others take
# issue slots, a ceiling on the FP32 pipe however well latency is hidden. splitk64x64x8 at 1023^3
# issued 64% FFMAs with (k0 + row) * N worked out per copy, 78% once its copies moved pointers
# (H100, benchmarks/results/2026-11-23-h100/lean-copies); the 128x256 rungs issue 92%.
FFMA_SHARE_NOTE_PCT = 70.0
# ... when the schedulers issue on at least this share of cycles (a memory-bound kernel's spare
# slots are not what holds it back).
ISSUE_NOTE_PCT = 50.0

# FFMAs with two fresh operands in one register bank on this share of executions, holding this
# share of the dispatch-stall samples, with dispatch stalls this share of the cycles: a note (the
# accumulators sit in the fragments' banks). cutlass128x128x8 / 128x256x8 on the H200: 94% of
# their FFMAs, 54% / 73% of the samples; regbank128x256x8 (the quads stored rotated) 10%; cuBLAS
# 15%; the memory-bound early rungs 44-50% but with almost no dispatch stalls (reports/sample-h200).
BANK_CONFLICT_NOTE_PCT = 50.0
BANK_DISPATCH_SAMPLES_PCT = 40.0
BANK_DISPATCH_STALL_PCT = 5.0


# Excess L2 sectors from this share of all requested by global accesses: uncoalesced access.
UNCOALESCED_PCT = 25.0


# Bank-conflict replays from this share of a kind's wavefronts are worth naming as the problem.
CONFLICT_NOTABLE_PCT = 10.0


# A stall reason from this share of all cycles between issues is worth quoting as evidence.
STALL_NOTABLE_PCT = 10.0


# Global loads per FFMA (or MMA) from which operands are evidently not reused on chip.
GLOBAL_LOADS_PER_FFMA_HIGH = 0.5


# A register micro-tile at its limit: at most this many shared loads per FFMA (an 8x16 tile with
# 128-bit fragments issues 6 per 128 FFMAs, 0.047; an 8x8 one 4 per 64, 0.0625) with at least
# REGISTER_TILE_FULL registers per thread (128 accumulators and their fragments): a larger tile
# would spill, so "a larger micro-tile" is no longer a cure.
LARGE_TILE_SHARED_PER_MATH = 0.055
REGISTER_TILE_FULL = 192
