"""The facts the cost model is built from, each with its source. Nothing here is fitted to our own
estimates; the numbers are published measurements and simulator constants, rounded.

Sources
  [mskpp]  MindStudio Kernel Performance Prediction, github.com/Ascend/mskpp @065b75cc,
           csrc/prof_data/resource910b.cpp: single-core measurements on Ascend910B1 at 1800 MHz
           (copy bandwidth by path and transfer size in GB/s of 2^30 bytes; vector instruction
           throughput by instruction and dtype; MMAD rate by m*k*n), and
           csrc/core/arch/arch_info.cpp (the 1800 MHz clock the tables were taken at).
  [pypto]  hicann/pypto @b6e5342e, framework/src/cost_model/simulation_ca/A2A3/model/pipe.h,
           pipe.cpp, def.h: Huawei's A2/A3 pipe simulator (GM read/write latency, vector result
           latency per instruction, cube state latency, scalar LD/ST/ALU latency, one
           instruction dispatched per cycle, MMAD k-step per dtype), and
           framework/src/cost_model/simulation/config/CacheConfig.toml (L2 hit latency).
  [ops-nn] CANN ops-nn, docs/zh/develop/cross_platform_migration_guide.md, as corrected in
           gitcode.com/cann/ops-nn/issues/6033 against the platform INI files: Atlas A2
           (Ascend910B2) 24 cube / 48 vector cores at 1.8 GHz, memory bandwidth 1.6 TB/s.
  [cann-ini] CANN 8.1.RC1 platform descriptions, data/platform_config/Ascend910B2.ini (and the other
           910B/910_93 files; the toolkit's files as mirrored in github.com/leideng/CANN-8.1.RC1):
           l2_size=201326592 (192 MiB; 96 MiB on Ascend910B4: socs.json's l2_bytes), l2_read_rate=110
           and ddr_rate=32 in [AICoreMemoryRates], bytes per cycle (GetCoreMemBw's unit, asc-devkit
           docs PlatformAscendC/GetCoreMemBw.md) per AI Core: 32 x 24 cores ~ the 1.6 TB/s of HBM.
  [ascend-rs] ascend-rs.org, Appendix F "Performance Benchmarks": wall-clock time of the smallest
           AscendC kernels (launch + stream synchronisation, 256..16384 elements) on Ascend910B3:
           0.019 .. 0.030 ms; the smallest, 19 us, is taken as one launch.
"""
from __future__ import annotations

CLOCK_MHZ = 1800.0                 # [mskpp] arch_info.cpp; [ops-nn] 1.8 GHz
HBM_BYTES_PER_S = 1.6e12           # [ops-nn] Atlas A2 memory bandwidth
LAUNCH_US = 19.0                   # [ascend-rs] smallest kernel's launch-to-completion time
# L2 [cann-ini]: read rate per AI Core (bytes per cycle); the chip's L2 rate is taken as that times the AI Cores
# (the conservative reading: per AI Core, not per vector core). No public figure for the aggregate L2 bandwidth,
# the hit latency on the chip, or the replacement policy was found; hits keep the copy's measured latency.
L2_READ_BYTES_PER_CYCLE = 110
GM_SECTOR = 32                     # GM is moved in 32-byte blocks: a burst is rounded up to them

# ---- copies: per path, (KiB moved by one instruction, GB/s) measured on one core [mskpp] ----
COPY_CURVES: dict[str, list[tuple[float, float]]] = {
    "GM_TO_UB": [(1, 7.3), (2, 13.5), (3, 18.6), (4, 23.6), (6, 33.0), (8, 42.7), (12, 54.6), (16, 68.0), (24, 77.1),
                 (32, 77.2), (48, 77.4), (64, 77.0), (96, 78.0), (128, 78.5), (192, 78.4)],
    "UB_TO_GM": [(1, 11.4), (2, 22.1), (3, 30.3), (4, 37.9), (6, 51.2), (8, 57.8), (12, 75.9), (16, 86.8), (24, 106.9),
                 (32, 108.4), (48, 109.9), (64, 110.7), (76, 110.2)],
    "UB_TO_UB": [(1, 436.7), (2, 439.6), (3, 440.1), (8, 440.7), (120, 440.1)],
    "GM_TO_L1": [(1, 9.9), (2, 17.9), (4, 29.3), (8, 58.0), (16, 93.2), (32, 147.4), (48, 166.2), (64, 176.3),
                 (96, 214.5), (128, 232.5), (192, 248.0), (256, 261.4), (384, 260.3), (512, 261.9)],
    "L0C_TO_GM": [(1, 20.8), (2, 41.9), (3, 55.0), (4, 85.8), (6, 112.5), (8, 161.2), (12, 196.7), (16, 203.2),
                  (24, 203.6), (32, 201.3), (64, 196.5), (96, 207.5), (128, 196.8)],
    "L1_TO_L0A": [(1, 217.1), (2, 350.0), (3, 376.6), (4, 390.9), (6, 406.3), (8, 414.6), (12, 423.1), (16, 427.4),
                  (24, 431.8), (48, 436.4), (96, 438.8), (128, 439.3)],
    "L1_TO_L0B": [(1, 175.3), (2, 195.5), (3, 203.2), (4, 207.3), (6, 211.5), (8, 213.7), (12, 215.9), (16, 217.1),
                  (24, 218.2), (48, 219.4), (96, 219.9), (128, 220.1)],
    "L1_TO_BIAS": [(0.0625, 35.8), (0.125, 54.1), (0.25, 55.0), (1, 55.1)],
    "L1_TO_FIXBUF": [(0.125, 11.6), (0.25, 19.2), (0.5, 28.5), (0.75, 33.9), (1, 37.5)],
}
# paths with no measurement of their own borrow the nearest measured one
COPY_ALIASES = {"GM_TO_L0A": "GM_TO_L1", "GM_TO_L0B": "GM_TO_L1", "L1_TO_GM": "UB_TO_GM", "L0C_TO_L1": "L0C_TO_GM",
                "L0C_TO_UB": "L0C_TO_GM", "UB_TO_L1": "UB_TO_GM", "L1_TO_UB": "GM_TO_UB", "L1_TO_L1": "UB_TO_UB"}

# ---- vector instructions: (instruction, dtype) -> (cycles of one repeat, bytes per cycle at many repeats) [mskpp] ----
# One repeat is 256 bytes of the widest operand; an instruction of r repeats takes max(first, r * 256 / rate) cycles.
VECTOR: dict[tuple[str, str], tuple[float, float]] = {
    ("VABS", "FP16"): (4.06, 255.5), ("VABS", "FP32"): (3.07, 255.6), ("VADD", "FP16"): (6.06, 128.0),
    ("VADD", "FP32"): (3.09, 127.9), ("VADD", "INT16"): (3.09, 127.9), ("VADD", "INT32"): (3.03, 127.9),
    ("VADDRELU", "FP16"): (3.03, 127.9), ("VADDRELU", "FP32"): (3.04, 127.9), ("VADDS", "FP16"): (2.99, 261.5),
    ("VADDS", "FP32"): (3.04, 255.4), ("VADDS", "INT16"): (4.06, 255.6), ("VADDS", "INT32"): (4.02, 255.5),
    ("VAND", "INT16"): (3.07, 127.9), ("VAND", "UINT16"): (3.03, 127.9), ("VAXPY", "FP16"): (3.03, 127.9),
    ("VAXPY", "FP32"): (3.04, 127.9), ("VBRCB", "UINT16"): (3.02, 255.6), ("VBRCB", "UINT32"): (3.02, 255.6),
    ("VCADD", "FP16"): (7.1, 36.5), ("VCADD", "FP32"): (3.05, 85.3), ("VCGADD", "FP16"): (7.04, 36.6),
    ("VCGADD", "FP32"): (3.03, 255.4), ("VCGMAX", "FP16"): (7.09, 36.5), ("VCGMAX", "FP32"): (3.03, 255.6),
    ("VCGMIN", "FP16"): (7.05, 36.6), ("VCMAX", "FP16"): (6.89, 37.6), ("VCMAX", "FP32"): (7.04, 36.6),
    ("VCMIN", "FP16"): (7.03, 36.6), ("VCMIN", "FP32"): (7.03, 36.6), ("VCMPV", "FP16"): (7.03, 128.0),
    ("VCMPV", "FP32"): (7.04, 127.9), ("VCMPVS", "FP16"): (7.04, 255.7), ("VCMPVS", "FP32"): (7.03, 255.8),
    ("VCONV", "BF16>FP32"): (3.05, 255.6), ("VCONV", "FP16>FP32"): (2.98, 262.6), ("VCONV", "FP16>INT32"): (3.02, 255.5),
    ("VCONV", "FP16>INT8"): (3.05, 255.6), ("VCONV", "FP32>BF16"): (3.02, 255.5), ("VCONV", "FP32>FP16"): (6.06, 262.1),
    ("VCONV", "FP32>INT32"): (3.03, 255.4), ("VCONV", "INT32>FP32"): (3.03, 255.4), ("VCONV", "INT8>FP16"): (3.03, 255.5),
    ("VCOPY", "INT16"): (3.02, 255.5), ("VCOPY", "INT32"): (3.02, 255.6), ("VCPADD", "FP16"): (4.03, 255.4),
    ("VCPADD", "FP32"): (3.03, 255.5), ("VDIV", "FP16"): (8.07, 62.0), ("VDIV", "FP32"): (4.04, 64.0),
    ("VECTORDUP", "FP16"): (3.03, 262.3), ("VECTORDUP", "FP32"): (4.05, 255.5), ("VECTORDUP", "INT16"): (3.06, 255.6),
    ("VECTORDUP", "INT32"): (3.02, 255.6), ("VEXP", "FP16"): (3.96, 65.7), ("VEXP", "FP32"): (3.1, 127.9),
    ("VGATHER", "UINT16"): (27.03, 10.6), ("VGATHER", "UINT32"): (14.03, 21.0), ("VLN", "FP16"): (3.97, 65.7),
    ("VLN", "FP32"): (3.05, 127.9), ("VLRELU", "FP16"): (3.03, 255.5), ("VLRELU", "FP32"): (3.04, 255.5),
    ("VMADD", "FP16"): (6.08, 42.6), ("VMADD", "FP32"): (6.04, 42.6), ("VMADDRELU", "FP16"): (6.04, 42.7),
    ("VMADDRELU", "FP32"): (6.03, 42.7), ("VMAX", "FP16"): (3.05, 127.9), ("VMAX", "FP32"): (3.04, 127.9),
    ("VMAX", "INT32"): (3.03, 127.9), ("VMAXS", "FP16"): (3.11, 255.4), ("VMAXS", "FP32"): (3.04, 255.6),
    ("VMIN", "FP16"): (3.07, 127.9), ("VMIN", "FP32"): (3.03, 127.9), ("VMIN", "INT32"): (3.03, 127.9),
    ("VMINS", "FP16"): (3.07, 255.6), ("VMINS", "FP32"): (3.03, 255.5), ("VMLA", "FP16"): (5.03, 51.2),
    ("VMLA", "FP32"): (6.04, 42.7), ("VMRGSORT", "FP16"): (22.01, 15.6), ("VMRGSORT", "FP32"): (22.01, 15.6),
    ("VMUL", "FP16"): (6.06, 127.9), ("VMUL", "FP32"): (3.04, 127.8), ("VMUL", "INT16"): (3.07, 127.9),
    ("VMUL", "INT32"): (3.07, 127.9), ("VMULS", "FP16"): (3.03, 255.9), ("VMULS", "FP32"): (4.07, 255.3),
    ("VMULS", "INT32"): (3.03, 255.5), ("VNOT", "INT16"): (4.05, 255.6), ("VNOT", "UINT16"): (3.02, 255.6),
    ("VOR", "INT16"): (3.03, 127.9), ("VOR", "UINT16"): (3.03, 127.9), ("VREC", "FP16"): (4.05, 255.4),
    ("VREC", "FP32"): (3.03, 255.5), ("VREDUCEV2", "UINT16"): (14.02, 18.3), ("VREDUCEV2", "UINT32"): (14.03, 18.3),
    ("VRELU", "FP16"): (3.03, 255.6), ("VRELU", "FP32"): (3.03, 255.5), ("VRELU", "INT32"): (3.02, 255.5),
    ("VRSQRT", "FP16"): (3.06, 255.5), ("VRSQRT", "FP32"): (3.07, 255.6), ("VSEL", "FP16"): (3.03, 127.9),
    ("VSEL", "FP32"): (3.03, 127.9), ("VSHL", "INT16"): (4.05, 255.5), ("VSHL", "INT32"): (4.02, 255.5),
    ("VSHR", "INT16"): (4.03, 255.5), ("VSHR", "INT32"): (4.03, 255.6), ("VSQRT", "FP16"): (4.04, 64.0),
    ("VSQRT", "FP32"): (3.04, 127.8), ("VSUB", "FP16"): (3.04, 127.9), ("VSUB", "FP32"): (3.04, 127.9),
    ("VSUB", "INT16"): (3.03, 127.9), ("VSUB", "INT32"): (3.04, 127.9), ("VSUBRELU", "FP16"): (3.03, 127.9),
    ("VSUBRELU", "FP32"): (3.04, 127.9),
}
VECTOR_DEFAULT = (3.09, 127.9)     # an instruction with no measurement of its own: costed as VADD fp32
VBITSORT_CYCLES = 16.0             # [mskpp] vector_binary_instr_prof.py: VBITSORT measured at a fixed 15.97 cycles

# cycles from the end of a vector instruction until its results can be read by another pipe [pypto]
# (def.h VEC_VALU_TAB third column, plus pipe.h vecDelay_ = 15)
VEC_RESULT_DELAY = 15
VEC_LATENCY = {"VADD": 6, "VSUB": 6, "VSEL": 6, "VMUL": 7, "VDIV": 13, "VEXP": 12, "VLN": 14, "VSQRT": 13, "VRSQRT": 5,
               "VABS": 4, "VMAX": 4, "VMIN": 4, "VADDS": 6, "VMULS": 7, "VMAXS": 4, "VMINS": 4, "VREC": 5, "VCADD": 23,
               "VCMAX": 9, "VCMIN": 9, "VCGADD": 15, "VCGMAX": 6, "VCGMIN": 6, "VCONV": 4, "VCOPY": 4, "VBRCB": 4,
               "VREDUCEV2": 4, "VBITSORT": 18, "VMRGSORT": 18}
VEC_LATENCY_DEFAULT = 6

# ---- cube [pypto]: one 16x16 output fractal per cycle per k-step; k-step elements by input dtype ----
CUBE_KSTEP = {"half": 16, "bfloat16_t": 16, "float": 4, "int8_t": 32, "uint8_t": 32}
CUBE_STATE_LATENCY = 20            # pipe.h cubeStateLatency_
CUBE_MIN_CYCLES = 4.9              # [mskpp] MMAD 32x16x16 fp16 (two fractals) measured at 4.9 cycles

# ---- scalar unit [pypto] pipe.cpp CalcLd / CalcSt / CalcAlu; GM loads at the L2 hit latency (CacheConfig.toml) ----
SCALAR_CYCLES = {"local_read": 6, "local_write": 4, "gm_read": 50, "gm_write": 4}
SCALAR_DEFAULT = 2
ISSUE_CYCLES = 1                   # pipe.cpp GetOpCycle: one instruction dispatched per cycle

# ---- GM latency [pypto] pipe.h ddrRdLatency_ / ddrWrLatency_: a SyncAll is a GM write seen by every core ----
GM_READ_LATENCY = 347
GM_WRITE_LATENCY = 203
SYNCALL_CYCLES = GM_WRITE_LATENCY + GM_READ_LATENCY

# which measured instruction an AscendC API issues (high-level APIs count their passes as repeats of VADD)
API_INSTRUCTION = {
    "Add": "VADD", "Sub": "VSUB", "Mul": "VMUL", "Div": "VDIV", "Max": "VMAX", "Min": "VMIN", "And": "VAND", "Or": "VOR",
    "AddRelu": "VADDRELU", "SubRelu": "VSUBRELU", "FusedMulAdd": "VMADD", "FusedMulAddRelu": "VMADDRELU",
    "MulAddDst": "VMLA", "Axpy": "VAXPY", "Adds": "VADDS", "Muls": "VMULS", "Maxs": "VMAXS", "Mins": "VMINS",
    "LeakyRelu": "VLRELU", "ShiftLeft": "VSHL", "ShiftRight": "VSHR", "Abs": "VABS", "Exp": "VEXP", "Ln": "VLN",
    "Not": "VNOT", "Reciprocal": "VREC", "Relu": "VRELU", "Rsqrt": "VRSQRT", "Sqrt": "VSQRT", "Cast": "VCONV",
    "Copy": "VCOPY", "Duplicate": "VECTORDUP", "CreateVecIndex": "VECTORDUP", "Brcb": "VBRCB", "Compare": "VCMPV",
    "CompareScalar": "VCMPVS", "Select": "VSEL", "WholeReduceSum": "VCADD", "vcadd": "VCADD", "ReduceSum": "VCADD",
    "WholeReduceMax": "VCMAX", "ReduceMax": "VCMAX", "WholeReduceMin": "VCMIN", "ReduceMin": "VCMIN",
    "BlockReduceSum": "VCGADD", "BlockReduceMax": "VCGMAX", "BlockReduceMin": "VCGMIN", "PairReduceSum": "VCPADD",
    "GatherMask": "VREDUCEV2", "Gather": "VGATHER", "Sort32": "VBITSORT", "Sort": "VBITSORT", "MrgSort": "VMRGSORT",
    "MrgSort4": "VMRGSORT",
}
DTYPE_CLASS = {"half": "FP16", "float": "FP32", "bfloat16_t": "FP16", "int16_t": "INT16", "uint16_t": "UINT16",
               "int32_t": "INT32", "uint32_t": "UINT32", "int8_t": "INT8", "uint8_t": "UINT8", "int64_t": "INT32",
               "uint64_t": "UINT32", "double": "FP32"}
# dtypes a bit-pattern instruction is measured in (And on half is the same instruction as on uint16)
BITWISE_CLASS = {"FP16": "UINT16", "FP32": "UINT32", "INT16": "UINT16", "INT32": "UINT32"}


def conversion_into(dtype_class: str) -> str:
    """The measured VCONV pair ("SRC>DST") that converts into a dtype class: the trace records only a
    Cast's destination dtype, so the first measured conversion into it stands for all of them."""
    return next((c for (i, c) in VECTOR if i == "VCONV" and c.endswith(">" + dtype_class)), "")


def vector_cost(api: str, dtype: str) -> tuple[float, float, float]:
    """(cycles of one repeat, bytes per cycle, result latency) of an AscendC vector API on a dtype (a
    conversion's destination dtype)."""
    instr = API_INSTRUCTION.get(api, "")
    if instr == "VBITSORT":
        return VBITSORT_CYCLES, 256.0 / VBITSORT_CYCLES, VEC_LATENCY["VBITSORT"] + VEC_RESULT_DELAY
    cls = DTYPE_CLASS.get(dtype, "FP32")
    first, rate = (VECTOR.get((instr, cls)) or VECTOR.get((instr, BITWISE_CLASS.get(cls, cls)))
                   or (VECTOR.get((instr, conversion_into(cls))) if instr == "VCONV" else None)
                   or VECTOR_DEFAULT)
    return first, rate, VEC_LATENCY.get(instr, VEC_LATENCY_DEFAULT) + VEC_RESULT_DELAY
