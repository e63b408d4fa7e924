// The Matmul high-level API (`#include "lib/matmul_intf.h"`): configuration, the MatmulImpl
// class, the Matmul alias and REGIST_MATMUL_OBJ. Like CANN, kernel_operator.h alone does not
// declare it.
#pragma once
#include "kw/matmul/impl.h"

namespace AscendC {
template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<nullptr, nullptr, nullptr>, MATMUL_POLICY_DEFAULT_OF(MatmulPolicy)>
using Matmul = MatmulImpl<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, MM_CFG, MM_CB, MATMUL_POLICY>;
}  // namespace AscendC
namespace matmul = AscendC;

namespace kw::mm {
// REGIST_MATMUL_OBJ(pipe, workspace, mm1, &tiling1, mm2, &tiling2, ...): Init every object that
// comes with a tiling; an object without one is initialised later by mm.Init(&tiling).
template <class MM> inline void regist(AscendC::TPipe*, MM&) {}
template <class MM, class... Rest> inline void regist(AscendC::TPipe* pipe, MM& mm, const TCubeTiling* tiling, Rest&&... rest) {
    if (tiling) mm.Init(tiling, pipe);
    if constexpr (sizeof...(Rest) > 0) regist(pipe, rest...);
}
inline void regist(AscendC::TPipe*) {}

// Kernels that use the Matmul API are MIX kernels: 1 cube + 2 vector cores per block on 910B
// (1:1 when the kernel is cube-only).
#ifdef ASCENDC_CUBE_ONLY
static const int kw_matmul_mix = ::kw::rt::declare_mix_ratio(1);
#else
static const int kw_matmul_mix = ::kw::rt::declare_mix_ratio(2);
#endif
}  // namespace kw::mm

#define REGIST_MATMUL_OBJ(tpipe, workspace, ...) \
    do {                                         \
        (void)(workspace);                       \
        ::kw::mm::check_workspace();             \
        ::kw::mm::regist(tpipe, __VA_ARGS__);    \
    } while (0)
#define REGIST_MATMUL_OBJ_STATIC REGIST_MATMUL_OBJ
#define REGIST_CUBE_OBJ REGIST_MATMUL_OBJ
