// Preconditions of the Matmul API, reported as `mm.*` rules with the values involved and a hint.
// These are the mistakes that make the NPU produce garbage, fault or hang: a tiling that the
// host never filled or that does not fit the cube's buffers, shapes beyond the tiling, calls out
// of order, no system workspace.
#pragma once
#include <string>
#include "kernel_operator.h"

namespace kw::mm {

inline std::string s(long long v) { return std::to_string(v); }

[[noreturn]] inline void fail(const char* rule, const char* api, const std::string& msg, const std::string& hint) {
    rt::Diag(rule, api).msg(msg).hint(hint).fatal();
}

// The host-side tiling fields a Matmul object runs on.
struct TilingView {
    int M, N, Ka, Kb, singleM, singleN, singleK, baseM, baseN, baseK, depthA1, depthB1, stepM, stepN, stepKa, stepKb, dbL0A, dbL0B,
        dbL0C, isBias, iterateOrder, usedCoreNum;
};

inline TilingView view(const TCubeTiling& t) {
    return {t.M,      t.N,      t.Ka,   t.Kb,   t.singleCoreM, t.singleCoreN, t.singleCoreK, t.baseM,
            t.baseN,  t.baseK,  t.depthA1, t.depthB1, t.stepM,  t.stepN,       t.stepKa,      t.stepKb,
            t.dbL0A,  t.dbL0B,  t.dbL0C, t.isBias, t.iterateOrder, t.usedCoreNum};
}

// Checks the tiling against itself and the SoC's L1/L0 sizes. sizes: bytes of A, B and the
// accumulator; c0a: elements of A per 32 bytes.
inline void check_tiling(const TilingView& t, uint32_t a_bytes, uint32_t b_bytes, uint32_t acc_bytes, uint32_t c0a, bool bias) {
    const char* api = "Matmul::Init";
    const char* hint_fill = "fill the tiling on the host with matmul_tiling::MultiCoreMatmulTiling::GetTiling (check that it did not "
                            "return -1) and pass it unchanged";
    if (t.M <= 0 || t.N <= 0 || t.Ka <= 0 || t.singleM <= 0 || t.singleN <= 0 || t.singleK <= 0 || t.baseM <= 0 || t.baseN <= 0 ||
        t.baseK <= 0)
        fail("mm.tiling", api,
             "the TCubeTiling is empty or incomplete (M=" + s(t.M) + " N=" + s(t.N) + " Ka=" + s(t.Ka) + " singleCoreM/N/K=" + s(t.singleM) +
                 "/" + s(t.singleN) + "/" + s(t.singleK) + " baseM/N/K=" + s(t.baseM) + "/" + s(t.baseN) + "/" + s(t.baseK) +
                 "); on the NPU the cube loops run on zeros or garbage",
             hint_fill);
    if (t.Kb > 0 && t.Kb != t.Ka)
        fail("mm.tiling", api, "Ka = " + s(t.Ka) + " and Kb = " + s(t.Kb) + " differ: A and B disagree on the reduction length",
             "SetOrgShape(M, N, K) or SetOrgShape(M, N, Ka, Kb) with Ka == Kb");
    if (t.singleM > t.M || t.singleN > t.N || t.singleK > t.Ka)
        fail("mm.tiling", api,
             "the single-core shape " + s(t.singleM) + "x" + s(t.singleN) + "x" + s(t.singleK) + " exceeds the whole matrix " + s(t.M) +
                 "x" + s(t.N) + "x" + s(t.Ka),
             "singleCoreM/N/K are one core's share of M/N/K; SetShape/SetSingleShape on the host must not exceed SetOrgShape");
    if (t.baseM % 16 || t.baseN % 16 || t.baseK % int(c0a))
        fail("mm.tiling", api,
             "baseM " + s(t.baseM) + " / baseN " + s(t.baseN) + " must be multiples of 16 and baseK " + s(t.baseK) + " a multiple of " +
                 s(c0a) + " (one fractal)",
             "let GetTiling choose the base block, or SetFixSplit with fractal multiples");
    uint64_t l0a = uint64_t(t.baseM) * t.baseK * a_bytes * (t.dbL0A > 1 ? 2 : 1);
    uint64_t l0b = uint64_t(t.baseN) * t.baseK * b_bytes * (t.dbL0B > 1 ? 2 : 1);
    uint64_t l0c = uint64_t(t.baseM) * t.baseN * acc_bytes * (t.dbL0C > 1 ? 2 : 1);
    const rt::SocInfo& soc = rt::soc();
    auto over = [&](const char* what, uint64_t need, uint64_t cap, const std::string& formula) {
        if (need > cap)
            fail("mm.l0_capacity", api,
                 std::string(what) + " needs " + s((long long)need) + " bytes (" + formula + ") but holds " + s((long long)cap) + " on " +
                     soc.name,
                 "shrink baseM/baseN/baseK (SetFixSplit) or disable double buffering; GetTiling keeps the base block inside L0");
    };
    over("L0A", l0a, soc.l0a_bytes, "baseM*baseK*sizeof(A)" + std::string(t.dbL0A > 1 ? "*2" : ""));
    over("L0B", l0b, soc.l0b_bytes, "baseN*baseK*sizeof(B)" + std::string(t.dbL0B > 1 ? "*2" : ""));
    over("L0C", l0c, soc.l0c_bytes, "baseM*baseN*sizeof(acc)" + std::string(t.dbL0C > 1 ? "*2" : ""));
    uint64_t l1 = uint64_t(t.depthA1 > 0 ? t.depthA1 : 1) * t.baseM * t.baseK * a_bytes +
                  uint64_t(t.depthB1 > 0 ? t.depthB1 : 1) * t.baseN * t.baseK * b_bytes + (bias ? uint64_t(t.baseN) * 4 : 0);
    if (l1 > soc.l1_bytes)
        fail("mm.l1_capacity", api,
             "the L1 caches need " + s((long long)l1) + " bytes (depthA1 " + s(t.depthA1) + " x baseM*baseK*sizeof(A) + depthB1 " +
                 s(t.depthB1) + " x baseN*baseK*sizeof(B)) but L1 holds " + s(soc.l1_bytes),
             "lower depthA1/depthB1 (stepM, stepN, stepKa, stepKb) or the base block");
    if ((t.stepM > 0 && t.stepKa > 0 && t.depthA1 > 0 && t.depthA1 < t.stepM * t.stepKa) ||
        (t.stepN > 0 && t.stepKb > 0 && t.depthB1 > 0 && t.depthB1 < t.stepN * t.stepKb))
        fail("mm.tiling", api,
             "depthA1 " + s(t.depthA1) + " < stepM*stepKa " + s(t.stepM * t.stepKa) + " or depthB1 " + s(t.depthB1) + " < stepN*stepKb " +
                 s(t.stepN * t.stepKb) + ": the L1 cache cannot hold one step of blocks",
             hint_fill);
}

inline void check_shape(const char* api, int m, int n, int k, const TilingView& t) {
    if (m <= 0 || n <= 0 || k <= 0)
        fail("mm.shape", api, "single shape " + s(m) + "x" + s(n) + "x" + s(k) + " has an empty dimension",
             "skip the matmul on cores without work instead of setting an empty shape");
    if (m > t.M || n > t.N || k > t.Ka)
        fail("mm.shape", api,
             "single shape " + s(m) + "x" + s(n) + "x" + s(k) + " exceeds the original matrix " + s(t.M) + "x" + s(t.N) + "x" + s(t.Ka),
             "SetOrgShape with the real M/N/K before SetSingleShape/SetTail, and clamp the tail of the last core");
}

inline void check_init(const char* api, bool init) {
    if (!init)
        fail("mm.not_initialised", api, std::string(api) + " on a Matmul object that was never initialised",
             "call REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling) (or mm.Init(&tiling)) first");
}

inline void check_ready(const char* api, bool init, bool a, bool b) {
    if (!init)
        fail("mm.not_initialised", api, std::string(api) + " on a Matmul object that was never initialised",
             "call REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling) (or mm.Init(&tiling)) first");
    if (!a || !b)
        fail("mm.no_input", api, std::string(api) + " before SetTensor" + (a ? "B" : "A"),
             "set both inputs (SetTensorA/SetTensorB) before Iterate/IterateAll");
}

// msopgen ops get a framework workspace whose first 16 MiB (on 220) are the system workspace the
// Matmul client and the cube core exchange messages in; kernel-launch runs have none to check.
inline void check_workspace() {
    uint64_t have = rt::workspace_bytes();
    if (have == 0 || rt::soc().cce_aicore < 220 || have >= 16ull * 1024 * 1024) return;
    fail("mm.workspace", "REGIST_MATMUL_OBJ",
         "the op's workspace is " + s((long long)have) + " bytes, less than the 16 MiB system workspace the Matmul API uses on " +
             rt::soc().name + "; its messages would overwrite the user workspace",
         "size the workspace as userBytes + platform.GetLibApiWorkSpaceSize() in the TilingFunc (GetWorkspaceSizes(1)[0])");
}

}  // namespace kw::mm
