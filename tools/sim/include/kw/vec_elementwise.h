// Binary, tensor-scalar and unary vector instructions with their A2/A3 dtype tables.
#pragma once
#include "kw/vec_engine.h"

namespace kw {
template <class A> inline A relu(A v) { return v > A(0) ? v : A(0); }
template <class A> inline A vmax(A a, A b) { return a > b ? a : b; }
template <class A> inline A vmin(A a, A b) { return a < b ? a : b; }
// Shifts by the element width or more: the hardware saturates (arithmetic right shift of a negative
// value gives -1, every other case 0), where C++ leaves it undefined (x86 takes the count mod 32).
template <class T, class A, class S> inline A shift_right(A a, S s) {
    if (uint64_t(s) >= 8 * sizeof(T)) return std::is_signed<T>::value && a < A(0) ? A(-1) : A(0);
    return A(T(a) >> s);
}
template <class T, class A, class S> inline A shift_left(A a, S s) {
    if (uint64_t(s) >= 8 * sizeof(T)) return A(0);
    return A(T(std::make_unsigned_t<T>(T(a)) << s));
}
}  // namespace kw

namespace AscendC {
KW_BINARY_OP(Add, false, a + b, "half / float / int16_t / int32_t", half, float, int16_t, int32_t)
KW_BINARY_OP(Sub, false, a - b, "half / float / int16_t / int32_t", half, float, int16_t, int32_t)
KW_BINARY_OP(Mul, false, a * b, "half / float / int16_t / int32_t", half, float, int16_t, int32_t)
KW_BINARY_OP(Div, false, a / b, "half / float", half, float)
KW_BINARY_OP(Max, false, kw::vmax(a, b), "half / float / int16_t / int32_t", half, float, int16_t, int32_t)
KW_BINARY_OP(Min, false, kw::vmin(a, b), "half / float / int16_t / int32_t", half, float, int16_t, int32_t)
KW_BINARY_OP(And, false, a & b, "int16_t / uint16_t", int16_t, uint16_t)
KW_BINARY_OP(Or, false, a | b, "int16_t / uint16_t", int16_t, uint16_t)
KW_BINARY_OP(AddRelu, false, kw::relu(a + b), "half / float / int16_t", half, float, int16_t)
KW_BINARY_OP(SubRelu, false, kw::relu(a - b), "half / float / int16_t", half, float, int16_t)
KW_BINARY_OP(FusedMulAdd, true, a * d + b, "half / float", half, float)
KW_BINARY_OP(FusedMulAddRelu, true, kw::relu(a * d + b), "half / float", half, float)

KW_SCALAR_OP(Adds, a + s, "half / float / int16_t / int32_t", half, float, int16_t, int32_t)
KW_SCALAR_OP(Muls, a * s, "half / float / int16_t / int32_t", half, float, int16_t, int32_t)
KW_SCALAR_OP(Maxs, kw::vmax(a, s), "half / float / int16_t / int32_t", half, float, int16_t, int32_t)
KW_SCALAR_OP(Mins, kw::vmin(a, s), "half / float / int16_t / int32_t", half, float, int16_t, int32_t)
KW_SCALAR_OP(LeakyRelu, a >= 0 ? a : a * s, "half / float", half, float)
KW_SCALAR_OP(ShiftLeft, kw::shift_left<T>(a, s), "int16_t / uint16_t / int32_t / uint32_t", int16_t, uint16_t, int32_t, uint32_t)
KW_SCALAR_OP(ShiftRight, kw::shift_right<T>(a, s), "int16_t / uint16_t / int32_t / uint32_t", int16_t, uint16_t, int32_t, uint32_t)

KW_UNARY_OP(Relu, kw::relu(a), "half / float / int32_t", half, float, int32_t)
KW_UNARY_OP(Exp, std::exp(a), "half / float", half, float)
KW_UNARY_OP(Ln, std::log(a), "half / float", half, float)
KW_UNARY_OP(Abs, std::fabs(a), "half / float", half, float)
KW_UNARY_OP(Reciprocal, 1.0f / a, "half / float", half, float)
KW_UNARY_OP(Rsqrt, 1.0f / std::sqrt(a), "half / float", half, float)
KW_UNARY_OP(Sqrt, std::sqrt(a), "half / float", half, float)
KW_UNARY_OP(Not, ~a, "int16_t / uint16_t", int16_t, uint16_t)

// dst += src0 * src1 with src in U and dst in T (e.g. half sources into a float accumulator).
template <typename T, typename U>
inline void MulAddDst(const LocalTensor<T>& dstLocal, const LocalTensor<U>& src0Local, const LocalTensor<U>& src1Local,
                      const int32_t& calCount) {
    static_assert(SupportType<T, half, float>() && SupportType<U, half, float>(),
                  "Failed to check dtype in MulAddDst, current api support dtype combination is src: half / float, dst: half / float.");
    kw::require_count("MulAddDst", calCount, dstLocal, "dst");
    kw::require_count("MulAddDst", calCount, src0Local, "src0");
    kw::require_count("MulAddDst", calCount, src1Local, "src1");
    kw::touch("MulAddDst", src0Local, calCount, false, "src0");
    kw::touch("MulAddDst", src1Local, calCount, false, "src1");
    kw::touch("MulAddDst", dstLocal, calCount, true, "dst");
    for (int32_t i = 0; i < calCount; ++i)
        dstLocal.ptr()[i] = T(float(dstLocal.ptr()[i]) + float(src0Local.ptr()[i]) * float(src1Local.ptr()[i]));
    kw::rt::count_vec("MulAddDst", kw::dtype_name<T>(), kw::repeats_for(calCount, sizeof(T)), calCount);
}

// dst += src * scalar.
template <typename T, typename U>
inline void Axpy(const LocalTensor<T>& dstLocal, const LocalTensor<U>& srcLocal, const U& scalarValue, const int32_t& calCount) {
    static_assert(SupportType<T, half, float>() && SupportType<U, half, float>(),
                  "Failed to check dtype in Axpy, current api support dtype combination is src: half / float, dst: half / float.");
    kw::require_count("Axpy", calCount, dstLocal, "dst");
    kw::require_count("Axpy", calCount, srcLocal, "src");
    kw::touch("Axpy", srcLocal, calCount, false, "src");
    kw::touch("Axpy", dstLocal, calCount, true, "dst");
    // two roundings, as two instructions would give: the product in the source's type, then the sum in the
    // destination's (fused, NPUKernelBench's Foreach Add/Addcdiv goldens miss torch's half results by an ulp)
    for (int32_t i = 0; i < calCount; ++i)
        dstLocal.ptr()[i] = T(float(dstLocal.ptr()[i]) + float(U(float(srcLocal.ptr()[i]) * float(scalarValue))));
    kw::rt::count_vec("Axpy", kw::dtype_name<T>(), kw::repeats_for(calCount, sizeof(T)), calCount);
}
}  // namespace AscendC
