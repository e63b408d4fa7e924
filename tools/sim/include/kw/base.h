// kernelwright CPU emulation of the AscendC kernel API (CANN 8.x interface).
// Base layer: qualifiers, scalar types, enums and traits shared by every other header.
// Written from the documented interface; no CANN code is used.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

// ---- qualifiers: the emulation runs in one address space, so they are all empty ----
#define __aicore__
#define __global__
#define __gm__
#define __ubuf__
#define __cbuf__
#define __ca__
#define __cb__
#define __cc__
#define __fbuf__
#define __sram__
#define __WORKGROUP_LOCAL__
#define __BLOCK_LOCAL__
#define __inout_pipe__(...)
#define __in_pipe__(...)
#define __out_pipe__(...)
#define GM_ADDR __gm__ uint8_t*
// bisheng's builtin; preprocessed kernels spell `__aicore__` as `__forceinline__ [aicore]`
#ifndef __forceinline__
#define __forceinline__ inline
#endif

#ifndef __CCE_AICORE__
#define __CCE_AICORE__ 220
#endif
#ifndef TILING_KEY_VAR
#define TILING_KEY_VAR (::kw_tiling_key())
#endif
#define TILING_KEY_IS(k) (TILING_KEY_VAR == (k))
#define KERNEL_TASK_TYPE_DEFAULT(...)
#define KERNEL_TASK_TYPE(...)
// NPU builds compile ASSERT away; kernels written for the NPU rely on that.
#ifndef ASSERT
#define ASSERT(...)
#endif

uint64_t kw_tiling_key();

// ---- scalar types: `half` is a builtin like bisheng's; bfloat16_t has no builtin arithmetic on x86 ----
using half = _Float16;
using float16_t = half;
using float32_t = float;

namespace kw {
inline uint16_t f32_to_bf16_bits(float f) {
    uint32_t u = __builtin_bit_cast(uint32_t, f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
    uint32_t lsb = (u >> 16) & 1u;
    return static_cast<uint16_t>((u + 0x7fffu + lsb) >> 16);  // round to nearest even
}
inline float bf16_bits_to_f32(uint16_t b) { return __builtin_bit_cast(float, static_cast<uint32_t>(b) << 16); }
template <class U> struct is_num : std::integral_constant<bool, std::is_arithmetic<U>::value || std::is_same<U, half>::value> {};
}  // namespace kw

struct bfloat16_t {
    uint16_t bits_;
    bfloat16_t() = default;
    template <class U, std::enable_if_t<kw::is_num<U>::value, int> = 0>
    bfloat16_t(U v) : bits_(kw::f32_to_bf16_bits(static_cast<float>(v))) {}
    operator float() const { return kw::bf16_bits_to_f32(bits_); }
    static bfloat16_t from_bits(uint16_t b) { bfloat16_t r; r.bits_ = b; return r; }
    bfloat16_t operator-() const { return from_bits(bits_ ^ 0x8000u); }
    bfloat16_t& operator+=(bfloat16_t o) { return *this = bfloat16_t(float(*this) + float(o)); }
    bfloat16_t& operator-=(bfloat16_t o) { return *this = bfloat16_t(float(*this) - float(o)); }
    bfloat16_t& operator*=(bfloat16_t o) { return *this = bfloat16_t(float(*this) * float(o)); }
    bfloat16_t& operator/=(bfloat16_t o) { return *this = bfloat16_t(float(*this) / float(o)); }
};
// Exact-type overloads beat the builtin operators reached through a conversion, so mixed
// expressions are never ambiguous: bf16 (op) bf16 -> bf16; bf16 (op) number -> float/double.
#define KW_BF16_ARITH(op)                                                                                   \
    inline bfloat16_t operator op(bfloat16_t a, bfloat16_t b) { return bfloat16_t(float(a) op float(b)); } \
    template <class U, std::enable_if_t<kw::is_num<U>::value, int> = 0>                                     \
    inline auto operator op(bfloat16_t a, U b) { return float(a) op b; }                                    \
    template <class U, std::enable_if_t<kw::is_num<U>::value, int> = 0>                                     \
    inline auto operator op(U a, bfloat16_t b) { return a op float(b); }
KW_BF16_ARITH(+)
KW_BF16_ARITH(-)
KW_BF16_ARITH(*)
KW_BF16_ARITH(/)
#undef KW_BF16_ARITH
#define KW_BF16_CMP(op)                                                                             \
    inline bool operator op(bfloat16_t a, bfloat16_t b) { return float(a) op float(b); }           \
    template <class U, std::enable_if_t<kw::is_num<U>::value, int> = 0>                             \
    inline bool operator op(bfloat16_t a, U b) { return float(a) op b; }                            \
    template <class U, std::enable_if_t<kw::is_num<U>::value, int> = 0>                             \
    inline bool operator op(U a, bfloat16_t b) { return a op float(b); }
KW_BF16_CMP(<)
KW_BF16_CMP(>)
KW_BF16_CMP(<=)
KW_BF16_CMP(>=)
KW_BF16_CMP(==)
KW_BF16_CMP(!=)
#undef KW_BF16_CMP

// ---- pipes and events: compiler builtins in the global namespace on the NPU ----
typedef enum { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4, PIPE_MTE5, PIPE_V2, PIPE_FIX } pipe_t;
typedef enum { EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 } event_t;

enum class CubeFormat { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
enum class LayoutMode { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };

namespace AscendC {
enum class TPosition : uint8_t { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM, C2PIPE2GM, C2PIPE2LOCAL, MAX };
using QuePosition = TPosition;
enum class Hardware : uint8_t { GM, UB, L1, L0A, L0B, L0C, BIAS, FIXBUF, MAX };
enum class HardEvent : uint8_t {
    MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V, MTE3_MTE1, MTE1_MTE3, MTE1_V,
    MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3, S_V, V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S, MTE2_FIX,
    FIX_MTE2, FIX_S, M_S, FIX_MTE3, MTE1_FIX, FIX_MTE1, FIX_FIX, MAX
};
enum class RoundMode : uint8_t { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };
enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };
enum class MemDsbT : uint8_t { ALL = 0, DDR, UB, SEQ };
enum class CacheMode : uint8_t { CACHE_MODE_DISABLE = 0, CACHE_MODE_NORMAL, CACHE_MODE_LAST, CACHE_MODE_PERSISTENT };
enum class CacheRwMode : uint8_t { READ = 1, WRITE = 2, RW = 3 };
enum class CacheLine : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
enum class DataFormat : uint8_t { ND = 0, NZ, NCHW, NC1HWC0, NHWC, NCDHW, NDC1HWC0, FRACTAL_Z_3D };
enum class TBufState : uint8_t { FREE = 0, OCCUPIED, ENQUE, DEQUE };
enum class BlockMode : uint8_t { BLOCK_MODE_NORMAL = 0, BLOCK_MODE_MATRIX, BLOCK_MODE_VECTOR, BLOCK_MODE_SMALL_CHANNEL, BLOCK_MODE_DEPTHWISE };
enum class DeqScale : uint8_t { DEQ_NONE = 0, DEQ, VDEQ, DEQ8, VDEQ8, DEQ16, VDEQ16 };
enum class KernelMode { MIX_MODE = 0, AIC_MODE, AIV_MODE, MIX_AIC_1_1 };
enum CoreType : uint8_t { AIC = 1, AIV = 2, MIX = 3 };
enum class pad_t : uint8_t { PAD_NONE = 0, PAD_MODE1, PAD_MODE2, PAD_MODE3, PAD_MODE4, PAD_MODE5 };
using TEventID = int8_t;
using TTagType = int32_t;

constexpr int32_t ONE_BLK_SIZE = 32;
constexpr int32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr int32_t DEFAULT_BLK_NUM = 8;
constexpr int32_t DEFAULT_BLK_STRIDE = 1;
constexpr int32_t DEFAULT_REPEAT_STRIDE = 8;
constexpr int32_t MAX_REPEAT_TIMES = 255;
constexpr int32_t BLOCK_CUBE = 16;
constexpr int32_t VECTOR_REG_WIDTH = 256;
constexpr uint64_t MASK_PLACEHOLDER = 0;
// memory sizes per architecture as CANN 8.x declares them (kernel_utils_constants.h): the vector part of
// UB excludes the 8 KiB the framework keeps at its top, L1 the 128 bytes KFC reserves on dav-c220
#if __CCE_AICORE__ == 220
constexpr int32_t TOTAL_VEC_LOCAL_SIZE = 184 * 1024;
constexpr uint32_t TOTAL_UB_SIZE = 192 * 1024;
constexpr uint32_t TMP_UB_OFFSET = 184 * 1024;
constexpr uint32_t TOTAL_L1_SIZE = 512 * 1024 - 128;
constexpr uint32_t TOTAL_L0C_SIZE = 128 * 1024;
#elif __CCE_AICORE__ == 300
constexpr int32_t TOTAL_VEC_LOCAL_SIZE = 184 * 1024;
constexpr uint32_t TOTAL_UB_SIZE = 248 * 1024;
constexpr uint32_t TMP_UB_OFFSET = 248 * 1024;
constexpr uint32_t TOTAL_L1_SIZE = 1024 * 1024;
constexpr uint32_t TOTAL_L0C_SIZE = 128 * 1024;
#else  // dav-m200 (Ascend 310P) and dav-c100 (Ascend 910)
constexpr int32_t TOTAL_VEC_LOCAL_SIZE = 248 * 1024;
constexpr uint32_t TOTAL_UB_SIZE = 256 * 1024;
constexpr uint32_t TMP_UB_OFFSET = 248 * 1024;
constexpr uint32_t TOTAL_L1_SIZE = 1024 * 1024;
constexpr uint32_t TOTAL_L0C_SIZE = 256 * 1024;
#endif
constexpr uint32_t TOTAL_L0A_SIZE = 64 * 1024;
constexpr uint32_t TOTAL_L0B_SIZE = 64 * 1024;
constexpr uint32_t TMP_UB_SIZE = 8 * 1024;
constexpr uint32_t F32_INF = 0x7f800000;
constexpr uint32_t F32_NEG_INF = 0xff800000;
constexpr uint32_t F32_NAN = 0x7fc00000;
constexpr int32_t ONE_BYTE_BIT_SIZE = 8;
constexpr int32_t B16_BYTE_SIZE = 2;
constexpr int32_t B32_BYTE_SIZE = 4;
constexpr int32_t B64_BYTE_SIZE = 8;
// the other constants of CANN 8.x's kernel_utils_constants.h that kernels name (ONE_BLK_FLOAT_NUM, HALF_FACTOR, ...)
constexpr int32_t POWER_MASK_NUM = 8;
constexpr int32_t HALF_FACTOR = 2;
constexpr int32_t DOUBLE_FACTOR = 2;
constexpr uint8_t HALF_DEFAULT_REPEAT_STRIDE = 4;
constexpr uint8_t ONE_FOURTH_DEFAULT_REPEAT_STRIDE = 2;
constexpr uint64_t FULL_MASK = 0xffffffffffffffff;
constexpr uint64_t CONST_MASK_VALUE = 0x8000000000000000;
constexpr uint16_t MAX_HALF_MASK_LEN = 64;
constexpr int32_t DEFAULT_C0_SIZE = 32;
constexpr int32_t DEFAULT_BLOCK_SIZE = 256;
constexpr int32_t MIN_REPEAT_TIMES = 0;
constexpr bool DEFAULT_REPEAT_STRIDE_MODE = 0;
constexpr bool STRIDE_SIZE_MODE = 0;
constexpr uint16_t MASK_ARRAY_SIZE = 4;
constexpr uint32_t MAX_SLICE_SIZE = 6 * 256;
constexpr uint16_t VALUE_512 = 512;
constexpr uint16_t UINT12_MAX = 4095;
constexpr uint16_t UINT15_MAX = 32767;
constexpr int32_t CTRL_46_BIT = 46;
constexpr int32_t CTRL_47_BIT = 47;
constexpr int32_t CTRL_48_BIT = 48;
constexpr int32_t CTRL_53_BIT = 53;
constexpr uint32_t TENSOR_TENSOR_FLOAT_POWER_FACTOR = 4;
constexpr uint32_t TENSOR_TENSOR_INT_POWER_FACTOR = 6;
constexpr uint32_t TENSOR_TENSOR_HALF_POWER_FACTOR = 7;
constexpr uint32_t TENSOR_SCALAR_FLOAT_POWER_FACTOR = 5;
constexpr uint32_t TENSOR_SCALAR_INT_POWER_FACTOR = 7;
constexpr uint32_t TENSOR_SCALAR_HALF_POWER_FACTOR = 7;
constexpr uint32_t POWER_TWO = 2;
constexpr uint32_t POWER_THREE = 3;
constexpr uint32_t POWER_INT32_BITS = 32;
constexpr uint32_t INT4_TWO = 2;
constexpr uint32_t INT4_BIT_NUM = 4;
constexpr uint32_t ASCENDC_B4_TWO = 2;
constexpr uint32_t ASCENDC_B4_BIT_NUM = 4;
constexpr int32_t DEQ_SHIFT_LEFT_17_BIT = 131072;
constexpr float DEQ_SHIFT_RIGHT_17_BIT = 1.0 / DEQ_SHIFT_LEFT_17_BIT;
constexpr int8_t ADDDEQRELU_MASK_MODE_ONE = 1;
constexpr int8_t ADDDEQRELU_MASK_MODE_TWO = 2;
constexpr uint8_t PAD_SIZE = 4;
constexpr uint8_t DEFAULT_DATA_COPY_NBURST = 1;
constexpr int32_t BYTE_PER_FRACTAL = 512;
constexpr int32_t SRC_BURST_LEN_SIZE_ELE = 16;
constexpr int32_t SRC_GAP_SIZE_BYTE = 32;
constexpr int32_t DST_BURST_LEN_SIZE_ELE = 256;
constexpr int32_t VREDUCE_PER_REP_OUTPUT = 2;
constexpr uint16_t ONE_PARAM_SIZE = 8;
constexpr uint16_t DUMP_MSG_HEAD_SIZE = 24;
constexpr int32_t FULL_MASK_LEN = 128;
constexpr int32_t HALF_MASK_LEN = 64;
constexpr int32_t DEFAULT_REDUCE_DST_REP_STRIDE = 1;
constexpr uint8_t B8_BYTE_SIZE = 1;
constexpr uint8_t B32_DATA_NUM_PER_BLOCK = 8;
constexpr uint8_t B16_DATA_NUM_PER_BLOCK = 16;
constexpr int32_t B16_DATA_NUM_PER_REPEAT = 128;
constexpr int32_t B32_DATA_NUM_PER_REPEAT = 64;
constexpr int32_t BLOCK_STRIDE_POS_IN_SM = 16;
constexpr int32_t PLD_BUFFER_SIZE = 2;
constexpr uint8_t FIXPIPE_DEQ_TENSOR_SIZE = 16;
constexpr uint8_t SET_DATA_EXP_ZERO = 0;
constexpr uint8_t SET_DATA_EXP_ONE = 1;
constexpr uint8_t SET_DATA_EXP_TWO = 2;
constexpr uint8_t SET_DATA_EXP_THREE = 3;
constexpr uint8_t VDEQ_TENSOR_SIZE = 16;
constexpr int32_t VA_REG_ARRAY_LEN = 8;
constexpr uint8_t CONV2D_IMG_SIZE = 2;
constexpr uint8_t CONV2D_KERNEL_SIZE = 2;
constexpr uint8_t CONV2D_STRIDE = 2;
constexpr uint8_t CONV2D_PAD = 4;
constexpr uint8_t CONV2D_DILATION = 2;
constexpr int32_t K_MAX_DIM = 8;
constexpr uint32_t TWO_OF_STACK_BUFFER = 2;
constexpr uint32_t THREE_OF_STACK_BUFFER = 3;
constexpr uint32_t HALF_REPEAT_SIZE = ONE_REPEAT_BYTE_SIZE / B16_BYTE_SIZE;
constexpr uint32_t FLOAT_REPEAT_SIZE = ONE_REPEAT_BYTE_SIZE / B32_BYTE_SIZE;
constexpr uint32_t ONE_REPEAT_FLOAT_SIZE = ONE_REPEAT_BYTE_SIZE / B32_BYTE_SIZE;
constexpr uint32_t ONE_REPEAT_HALF_SIZE = ONE_REPEAT_BYTE_SIZE / B16_BYTE_SIZE;
constexpr uint32_t MAX_REPEAT_FLOAT_SIZE = ONE_REPEAT_FLOAT_SIZE * MAX_REPEAT_TIMES;
constexpr uint32_t MAX_REPEAT_HALF_SIZE = ONE_REPEAT_HALF_SIZE * MAX_REPEAT_TIMES;
constexpr uint32_t ONE_BLK_HALF_NUM = ONE_BLK_SIZE / B16_BYTE_SIZE;
constexpr uint32_t ONE_BLK_FLOAT_NUM = ONE_BLK_SIZE / B32_BYTE_SIZE;
constexpr uint32_t ONE_BLK_FP4_NUM = 64;
constexpr uint32_t ONE_BLK_B2_NUM = 128;
constexpr uint32_t ONE_BLK_B1_NUM = 256;
constexpr uint32_t BRCB_BROADCAST_NUMBER = 8;
constexpr uint32_t BRCB_MAX_REPEAT_SIZE = BRCB_BROADCAST_NUMBER * MAX_REPEAT_TIMES;
constexpr int32_t MIN_BLOCK_LEN = 1;
constexpr uint32_t PAIR_REDUCE_REPEAT_STRIDE_LEN = 128;
constexpr uint32_t PAIR_REDUCE_SUM_MERGES = 2;
constexpr uint32_t TWO_HUNDRED_FIFTY_TWO_REPEAT = 252;
constexpr uint32_t TWO_HUNDRED_FIFTY_TWO_REPEAT_BYTE_SIZE = TWO_HUNDRED_FIFTY_TWO_REPEAT * ONE_REPEAT_BYTE_SIZE;
constexpr uint32_t REDUCEV2_MODE_SEVEN = 7;
constexpr uint32_t DROPOUT_MODE_BYTE_MISALIGN = 1;
constexpr uint32_t DROPOUT_MODE_BYTE_ALIGN = 2;
constexpr uint32_t DROPOUT_MODE_BIT_ALIGN = 3;
constexpr uint32_t DROPOUT_MODE_BIT_MISALIGN = 4;
constexpr uint32_t REDUCEV2_MODE_ONE = 1;
constexpr uint32_t REDUCEV2_MODE_TWO = 2;
constexpr uint32_t REDUCEV2_MODE_THREE = 3;
constexpr int32_t B8_TMP_ELE_LEN = 1024;
constexpr int32_t B16_TMP_ELE_LEN = 256;
constexpr int32_t B32_TMP_ELE_LEN = 128;
constexpr int32_t B8_TRANS_LEN = 1024;
constexpr int32_t B8_TRANS_FRACTAL = 512;
constexpr int32_t B8_TRANS_ROW = 32;
constexpr int32_t B8_COPY_COL = 32;
constexpr uint64_t LOAD_M_START_POSITION = 48;
constexpr uint64_t LOAD_K_START_POSITION = 32;
constexpr uint64_t LOAD_M_EXTENSION = 16;
constexpr uint64_t LOAD_DILATION_FILTER_H = 40;
constexpr uint64_t LOAD_DILATION_FILTER_W = 32;
constexpr uint64_t LOAD_FILTER_H = 24;
constexpr uint64_t LOAD_FILTER_W = 16;
constexpr uint64_t LOAD_STRIDE_H = 8;
constexpr int32_t TSCM_CROSS_SYNC_ID_MAX = 11;

template <typename T, typename U> struct IsSameType { static constexpr bool value = false; };
template <typename T> struct IsSameType<T, T> { static constexpr bool value = true; };
template <bool b, class T, class U> struct Conditional { using type = T; };
template <class T, class U> struct Conditional<false, T, U> { using type = U; };
template <typename T> using PrimT = T;
template <typename T, typename... Ts> constexpr bool SupportType() { return (IsSameType<T, Ts>::value || ...); }
template <typename T> constexpr bool SupportBytes(int n) { return sizeof(T) == static_cast<size_t>(n); }
}  // namespace AscendC

// ---- emulator-internal helpers ----
namespace kw {
template <class T> const char* dtype_name() {
    if (std::is_same<T, half>::value) return "half";
    if (std::is_same<T, bfloat16_t>::value) return "bfloat16_t";
    if (std::is_same<T, float>::value) return "float";
    if (std::is_same<T, double>::value) return "double";
    if (std::is_same<T, int8_t>::value) return "int8_t";
    if (std::is_same<T, uint8_t>::value) return "uint8_t";
    if (std::is_same<T, int16_t>::value) return "int16_t";
    if (std::is_same<T, uint16_t>::value) return "uint16_t";
    if (std::is_same<T, int32_t>::value) return "int32_t";
    if (std::is_same<T, uint32_t>::value) return "uint32_t";
    if (std::is_same<T, int64_t>::value) return "int64_t";
    if (std::is_same<T, uint64_t>::value) return "uint64_t";
    if (std::is_same<T, bool>::value) return "bool";
    return "unknown";
}
// Arithmetic on a value of T in the wider type the hardware uses for the op, then round back.
template <class T> struct Acc { using type = T; };
template <> struct Acc<half> { using type = float; };
template <> struct Acc<bfloat16_t> { using type = float; };
template <class T> using acc_t = typename Acc<T>::type;
}  // namespace kw
