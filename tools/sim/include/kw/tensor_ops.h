// Whole-tensor operator sugar of LocalTensor: `dst = a + b;` runs the vector instruction over
// dst's length (CANN's SymbolOverride types); comparisons write a bit mask tensor.
#pragma once
#include "kw/vec_elementwise.h"
#if __has_include("kw/vec_cmpsel.h")
#include "kw/vec_cmpsel.h"
#include "kw/vec_select.h"
#define KW_HAVE_CMPSEL 1
#endif

namespace AscendC {
enum class KwSymbolOp : uint8_t { ADD, SUB, MUL, DIV, OR, AND, LT, GT, EQ, LE, GE, NE };

template <typename T> struct SymbolOverride {
    const LocalTensor<T>& a;
    const LocalTensor<T>& b;
    KwSymbolOp op;
};

#define KW_SYMBOL(op_token, kind)                                                                     \
    template <typename T> inline SymbolOverride<T> operator op_token(const LocalTensor<T>& a, const LocalTensor<T>& b) { \
        return {a, b, KwSymbolOp::kind};                                                              \
    }
KW_SYMBOL(+, ADD)
KW_SYMBOL(-, SUB)
KW_SYMBOL(*, MUL)
KW_SYMBOL(/, DIV)
KW_SYMBOL(|, OR)
KW_SYMBOL(&, AND)
KW_SYMBOL(<, LT)
KW_SYMBOL(>, GT)
KW_SYMBOL(==, EQ)
KW_SYMBOL(<=, LE)
KW_SYMBOL(>=, GE)
KW_SYMBOL(!=, NE)
#undef KW_SYMBOL
}  // namespace AscendC

namespace kw {
template <typename D, typename T> inline void assign_symbol(const AscendC::LocalTensor<D>& dst, const AscendC::SymbolOverride<T>& e) {
    using AscendC::KwSymbolOp;
    int32_t n = int32_t(dst.GetSize());
    if constexpr (std::is_same<D, T>::value) {
        switch (e.op) {
            case KwSymbolOp::ADD: AscendC::Add(dst, e.a, e.b, n); return;
            case KwSymbolOp::SUB: AscendC::Sub(dst, e.a, e.b, n); return;
            case KwSymbolOp::MUL: AscendC::Mul(dst, e.a, e.b, n); return;
            case KwSymbolOp::DIV: if constexpr (AscendC::SupportType<T, half, float>()) { AscendC::Div(dst, e.a, e.b, n); return; } break;
            case KwSymbolOp::OR: if constexpr (AscendC::SupportType<T, int16_t, uint16_t>()) { AscendC::Or(dst, e.a, e.b, n); return; } break;
            case KwSymbolOp::AND: if constexpr (AscendC::SupportType<T, int16_t, uint16_t>()) { AscendC::And(dst, e.a, e.b, n); return; } break;
            default: break;
        }
    }
#ifdef KW_HAVE_CMPSEL
    if constexpr (std::is_integral<D>::value && std::is_unsigned<D>::value) {
        int32_t m = int32_t(e.a.GetSize());
        static const AscendC::CMPMODE modes[] = {AscendC::CMPMODE::LT, AscendC::CMPMODE::GT, AscendC::CMPMODE::EQ,
                                                 AscendC::CMPMODE::LE, AscendC::CMPMODE::GE, AscendC::CMPMODE::NE};
        int k = int(e.op) - int(KwSymbolOp::LT);
        if (k >= 0 && k < 6) { AscendC::Compare(dst, e.a, e.b, modes[k], uint32_t(m)); return; }
    }
#endif
    rt::Diag("tensor.operator", "LocalTensor::operator=").msg("this tensor expression is not supported for these types")
        .hint("call the vector instruction (Add/Sub/Mul/Div/Compare) with an explicit count").fatal();
}
}  // namespace kw

namespace AscendC {
template <typename T> template <typename U> LocalTensor<T>& LocalTensor<T>::operator=(const SymbolOverride<U>& e) {
    kw::assign_symbol(*this, e);
    return *this;
}
}  // namespace AscendC
