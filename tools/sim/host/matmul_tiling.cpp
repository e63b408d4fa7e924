// Host-side Matmul tiling (matmul_tiling::MatmulApiTiling / MultiCoreMatmulTiling): our own
// split, chosen so that the kernel-side checks of kw/matmul/checks.h hold:
//  * cores: M and N are cut into mDim x nDim pieces (at most the SetDim cores), preferring the
//    smallest per-core block, then the least traffic; singleCoreM/N are multiples of 16 unless
//    they cover the whole dimension; usedCoreNum = mDim * nDim;
//  * base block: baseM <= 128, baseN <= 256, baseK of 128 bytes of A, shrunk to the single-core
//    shape and to L0A/L0B (double-buffered) and L0C;
//  * L1: stepKa/stepKb k-blocks per load (at most 4), double-buffered, shrunk until A + B + bias fit.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include "kwhost/matmul_tiling.h"

namespace matmul_tiling {
namespace {
int32_t align(int32_t v, int32_t a) { return (v + a - 1) / a * a; }
int32_t ceil_div(int32_t v, int32_t a) { return (v + a - 1) / a; }
int32_t bytes_of(DataType t) {
    auto it = DTYPE_BYTE_TAB.find(t);
    return it == DTYPE_BYTE_TAB.end() ? 0 : int32_t(it->second);
}
int64_t refuse(const char* why) {
    std::fprintf(stderr, "[ERROR] matmul_tiling: %s\n", why);
    return -1;
}
BufferPool pool_from(uint64_t l1, uint64_t l0a, uint64_t l0b, uint64_t l0c, uint64_t ub) {
    BufferPool p{};
    p.l1Size = int32_t(l1), p.l0ASize = int32_t(l0a), p.l0BSize = int32_t(l0b), p.l0CSize = int32_t(l0c), p.ubSize = int32_t(ub);
    p.btSize = 1024;
    return p;
}
}  // namespace

MatmulApiTilingBase::MatmulApiTilingBase() : MatmulApiTilingBase(*platform_ascendc::PlatformAscendCManager::GetInstance()) {}
MatmulApiTilingBase::MatmulApiTilingBase(const platform_ascendc::PlatformAscendC& p) {
    uint64_t l1, l0a, l0b, l0c, ub;
    p.GetCoreMemSize(platform_ascendc::CoreMemType::L1, l1);
    p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, l0a);
    p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, l0b);
    p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, l0c);
    p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    oriBufferPool_ = bufferPool_ = pool_from(l1, l0a, l0b, l0c, ub);
    socVersion = p.GetSocVersion();
    kwCores = int32_t(p.GetCoreNumAiv());
    adjust_ = {-1, -1, -1, -1, -1, -1};
}
MatmulApiTilingBase::MatmulApiTilingBase(const PlatformInfo& p) {
    oriBufferPool_ = bufferPool_ = pool_from(p.l1Size, p.l0ASize, p.l0BSize, p.l0CSize, p.ubSize);
    socVersion = p.socVersion;
    adjust_ = {-1, -1, -1, -1, -1, -1};
}
MatmulApiTilingBase::~MatmulApiTilingBase() = default;

int32_t MatmulApiTilingBase::SetAType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans) {
    aType_ = {pos, type, dataType, isTrans, false};
    return 0;
}
int32_t MatmulApiTilingBase::SetBType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans) {
    bType_ = {pos, type, dataType, isTrans, false};
    return 0;
}
int32_t MatmulApiTilingBase::SetCType(TPosition pos, CubeFormat type, DataType dataType) {
    cType_ = {pos, type, dataType, false, false};
    return 0;
}
int32_t MatmulApiTilingBase::SetBiasType(TPosition pos, CubeFormat type, DataType dataType) {
    biasType_ = {pos, type, dataType, false, false};
    return 0;
}
int32_t MatmulApiTilingBase::SetShape(int32_t m, int32_t n, int32_t k) {
    singleM = m, singleN = n, singleK = k;
    return 0;
}
int32_t MatmulApiTilingBase::SetOrgShape(int32_t m, int32_t n, int32_t k) { return SetOrgShape(m, n, k, k); }
int32_t MatmulApiTilingBase::SetOrgShape(int32_t m, int32_t n, int32_t ka, int32_t kb) {
    orgM = m, orgN = n, orgKa = ka, orgKb = kb;
    return 0;
}
int32_t MatmulApiTilingBase::SetALayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) {
    aLayoutInfoB = b, aLayoutInfoS = s, aLayoutInfoN = n, aLayoutInfoG = g, aLayoutInfoD = d;
    return 0;
}
int32_t MatmulApiTilingBase::SetBLayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) {
    bLayoutInfoB = b, bLayoutInfoS = s, bLayoutInfoN = n, bLayoutInfoG = g, bLayoutInfoD = d;
    return 0;
}
int32_t MatmulApiTilingBase::SetCLayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d) {
    cLayoutInfoB = b, cLayoutInfoS1 = s, cLayoutInfoN = n, cLayoutInfoG = g, cLayoutInfoS2 = d;
    return 0;
}
int32_t MatmulApiTilingBase::SetBatchInfoForNormal(int32_t batchA, int32_t batchB, int32_t m, int32_t n, int32_t k) {
    batchM = batchA, batchN = batchB;
    return SetShape(m, n, k);
}
int32_t MatmulApiTilingBase::SetBatchNum(int32_t batch) {
    batchNum = batch;
    return 0;
}
int32_t MatmulApiTilingBase::EnableBias(bool isBiasIn) {
    isBias = isBiasIn;
    return 0;
}
int32_t MatmulApiTilingBase::SetBias(bool isBiasIn) { return EnableBias(isBiasIn); }
int32_t MatmulApiTilingBase::SetFixSplit(int32_t m, int32_t n, int32_t k) {
    kwFixM = m, kwFixN = n, kwFixK = k;
    return 0;
}
int32_t MatmulApiTilingBase::SetBufferSpace(int32_t l1Size, int32_t l0CSize, int32_t ubSize, int32_t btSize) {
    bufferPool_ = oriBufferPool_;
    if (l1Size > 0) bufferPool_.l1Size = std::min(l1Size, oriBufferPool_.l1Size);
    if (l0CSize > 0) bufferPool_.l0CSize = std::min(l0CSize, oriBufferPool_.l0CSize);
    if (ubSize > 0) bufferPool_.ubSize = std::min(ubSize, oriBufferPool_.ubSize);
    if (btSize > 0) bufferPool_.btSize = btSize;
    return 0;
}
int32_t MatmulApiTilingBase::SetTraverse(MatrixTraverse traverse) {
    traverse_ = traverse;
    return 0;
}
int32_t MatmulApiTilingBase::SetMadType(MatrixMadType madType) {
    madType_ = madType;
    return 0;
}
int32_t MatmulApiTilingBase::SetSplitRange(int32_t maxM, int32_t maxN, int32_t maxK, int32_t minM, int32_t minN, int32_t minK) {
    adjust_ = {maxM, maxN, maxK, minM, minN, minK};
    return 0;
}
int32_t MatmulApiTilingBase::SetDoubleBuffer(bool a, bool b, bool c, bool, bool transND2NZ, bool transNZ2ND) {
    kwDbA = a, kwDbB = b, kwDbC = c, transND2NZ_ = transND2NZ, transNZ2ND_ = transNZ2ND;
    return 0;
}
void MatmulApiTilingBase::SetMatmulConfigParams(int32_t type, bool l1CacheUB, ScheduleType schedule, MatrixTraverse traverse, bool nd2nz) {
    SetMatmulConfigParams(MatmulConfigParams(type, l1CacheUB, schedule, traverse, nd2nz));
}
void MatmulApiTilingBase::SetMatmulConfigParams(const MatmulConfigParams& c) {
    mmConfigType = c.mmConfigType, enableL1CacheUB = c.enableL1CacheUB, scheduleType = c.scheduleType, enVecND2NZ = c.enVecND2NZ;
    if (c.traverse != MatrixTraverse::NOSET) traverse_ = c.traverse;
}
int32_t MatmulApiTilingBase::SetSparse(bool isSparseIn) {
    isSparse_ = isSparseIn;
    return 0;
}
bool MatmulApiTilingBase::CheckSetParam() { return bytes_of(aType_.dataType) > 0 && bytes_of(bType_.dataType) > 0; }
void MatmulApiTilingBase::PrintTilingData() {}
void MatmulApiTilingBase::PrintTilingDataInfo(optiling::TCubeTiling&) const {}

// The split shared by all tiling classes: `cores` pieces at most (1 for MatmulApiTiling).
int64_t MatmulApiTilingBase::kw_split(int32_t cores, bool multiCore) {
    if (!CheckSetParam()) return refuse("SetAType/SetBType need a data type with a known size");
    const int32_t sa = bytes_of(aType_.dataType), sb = bytes_of(bType_.dataType);
    const int32_t c0 = 32 / sa, acc = 4;
    if (singleM <= 0 || singleN <= 0 || singleK <= 0) return refuse("SetShape(m, n, k) needs positive m, n and k");
    if (orgM <= 0) orgM = singleM;
    if (orgN <= 0) orgN = singleN;
    if (orgKa <= 0) orgKa = singleK;
    if (orgKb <= 0) orgKb = orgKa;
    if (orgKa != orgKb) return refuse("SetOrgShape: Ka and Kb differ");
    if (singleM > orgM || singleN > orgN || singleK > orgKa) return refuse("the shape exceeds the original shape (SetOrgShape)");
    // cores: per-core share of M and N
    int32_t mDim = 1, nDim = 1;
    if (multiCore && (singleCoreM <= 0 || singleCoreN <= 0)) {
        int64_t best = -1, bestTraffic = 0;
        for (int32_t md = 1; md <= std::max(1, cores); ++md) {
            int32_t nd = std::max(1, cores / md);
            int32_t sm = md == 1 ? singleM : std::min(singleM, align(ceil_div(singleM, md), 16));
            int32_t sn = nd == 1 ? singleN : std::min(singleN, align(ceil_div(singleN, nd), 16));
            int64_t work = int64_t(sm) * sn, traffic = int64_t(sm) + sn;
            if (best < 0 || work < best || (work == best && traffic < bestTraffic)) {
                best = work, bestTraffic = traffic;
                singleCoreM = sm, singleCoreN = sn;
            }
        }
    } else if (!multiCore || singleCoreM <= 0) {
        singleCoreM = singleM, singleCoreN = singleN;
    }
    if (singleCoreK <= 0) singleCoreK = singleK;
    mDim = ceil_div(singleM, singleCoreM), nDim = ceil_div(singleN, singleCoreN);
    if (multiCore && mDim * nDim > std::max(1, cores)) return refuse("the single-core shape needs more cores than SetDim allows");
    // base block inside L0 (A and B double-buffered unless switched off)
    const int32_t dbA = kwDbA ? 2 : 1, dbB = kwDbB ? 2 : 1, dbC = kwDbC ? 2 : 1;
    baseM = kwFixM > 0 ? kwFixM : std::min(128, align(singleCoreM, 16));
    baseN = kwFixN > 0 ? kwFixN : std::min(256, align(singleCoreN, 16));
    while (kwFixN <= 0 && int64_t(baseM) * baseN * acc * dbC > bufferPool_.l0CSize && baseN > 16) baseN -= 16;
    if (kwFixK > 0) {
        baseK = kwFixK;
    } else {
        int32_t kmax = std::min(bufferPool_.l0ASize / (dbA * baseM * sa), bufferPool_.l0BSize / (dbB * baseN * sb));
        baseK = std::min({128 / sa, align(singleCoreK, c0), kmax / c0 * c0});
    }
    if (baseM % 16 || baseN % 16 || baseK <= 0 || baseK % c0) return refuse("baseM/baseN must be multiples of 16 and baseK of 32 bytes");
    if (int64_t(baseM) * baseK * sa * dbA > bufferPool_.l0ASize || int64_t(baseN) * baseK * sb * dbB > bufferPool_.l0BSize ||
        int64_t(baseM) * baseN * acc * dbC > bufferPool_.l0CSize)
        return refuse("the base block does not fit L0A/L0B/L0C");
    // L1: stepKa/stepKb k-blocks per load, double-buffered
    int32_t kIter = ceil_div(singleCoreK, baseK), step = std::min(kIter, 4);
    auto l1_need = [&](int32_t s) { return int64_t(2) * s * baseK * (int64_t(baseM) * sa + int64_t(baseN) * sb) + (isBias ? baseN * 4 : 0); };
    while (step > 1 && l1_need(step) > bufferPool_.l1Size) --step;
    if (l1_need(step) > bufferPool_.l1Size) return refuse("one base block of A and B does not fit L1");
    // into the tiling data
    optiling::TCubeTiling& t = tiling_;
    t.set_usedCoreNum(multiCore ? mDim * nDim : 1);
    t.set_M(orgM), t.set_N(orgN), t.set_Ka(orgKa), t.set_Kb(orgKb);
    t.set_singleCoreM(singleCoreM), t.set_singleCoreN(singleCoreN), t.set_singleCoreK(singleCoreK);
    t.set_baseM(baseM), t.set_baseN(baseN), t.set_baseK(baseK);
    t.set_stepM(1), t.set_stepN(1), t.set_stepKa(step), t.set_stepKb(step);
    t.set_depthA1(2 * step), t.set_depthB1(2 * step);
    t.set_isBias(isBias ? 1 : 0);
    t.set_transLength(0);
    t.set_iterateOrder(traverse_ == MatrixTraverse::FIRSTN ? 1 : 0);
    t.set_shareMode(0), t.set_shareL1Size(int32_t(l1_need(step))), t.set_shareL0CSize(baseM * baseN * acc), t.set_shareUbSize(0);
    t.set_batchM(batchM > 0 ? batchM : 1), t.set_batchN(batchN > 0 ? batchN : 1), t.set_singleBatchM(1), t.set_singleBatchN(1);
    t.set_depthAL1CacheUB(0), t.set_depthBL1CacheUB(0);
    t.set_dbL0A(dbA), t.set_dbL0B(dbB), t.set_dbL0C(dbC);
    t.set_ALayoutInfoB(aLayoutInfoB), t.set_ALayoutInfoS(aLayoutInfoS), t.set_ALayoutInfoN(aLayoutInfoN), t.set_ALayoutInfoG(aLayoutInfoG),
        t.set_ALayoutInfoD(aLayoutInfoD);
    t.set_BLayoutInfoB(bLayoutInfoB), t.set_BLayoutInfoS(bLayoutInfoS), t.set_BLayoutInfoN(bLayoutInfoN), t.set_BLayoutInfoG(bLayoutInfoG),
        t.set_BLayoutInfoD(bLayoutInfoD);
    t.set_CLayoutInfoB(cLayoutInfoB), t.set_CLayoutInfoS1(cLayoutInfoS1), t.set_CLayoutInfoN(cLayoutInfoN), t.set_CLayoutInfoG(cLayoutInfoG),
        t.set_CLayoutInfoS2(cLayoutInfoS2);
    t.set_BatchNum(batchNum), t.set_reserved(0);
    return 0;
}

// Through the setters, so get_<field>() on the caller's object answers too.
void MatmulApiTilingBase::SetFinalTiling(optiling::TCubeTiling& out) {
#define KW_COPY(f) out.set_##f(tiling_.get_##f());
    KW_COPY(usedCoreNum) KW_COPY(M) KW_COPY(N) KW_COPY(Ka) KW_COPY(Kb) KW_COPY(singleCoreM) KW_COPY(singleCoreN) KW_COPY(singleCoreK)
    KW_COPY(baseM) KW_COPY(baseN) KW_COPY(baseK) KW_COPY(depthA1) KW_COPY(depthB1) KW_COPY(stepM) KW_COPY(stepN) KW_COPY(isBias)
    KW_COPY(transLength) KW_COPY(iterateOrder) KW_COPY(shareMode) KW_COPY(shareL1Size) KW_COPY(shareL0CSize) KW_COPY(shareUbSize)
    KW_COPY(batchM) KW_COPY(batchN) KW_COPY(singleBatchM) KW_COPY(singleBatchN) KW_COPY(stepKa) KW_COPY(stepKb)
    KW_COPY(depthAL1CacheUB) KW_COPY(depthBL1CacheUB) KW_COPY(dbL0A) KW_COPY(dbL0B) KW_COPY(dbL0C) KW_COPY(ALayoutInfoB)
    KW_COPY(ALayoutInfoS) KW_COPY(ALayoutInfoN) KW_COPY(ALayoutInfoG) KW_COPY(ALayoutInfoD) KW_COPY(BLayoutInfoB) KW_COPY(BLayoutInfoS)
    KW_COPY(BLayoutInfoN) KW_COPY(BLayoutInfoG) KW_COPY(BLayoutInfoD) KW_COPY(CLayoutInfoB) KW_COPY(CLayoutInfoS1) KW_COPY(CLayoutInfoN)
    KW_COPY(CLayoutInfoG) KW_COPY(CLayoutInfoS2) KW_COPY(BatchNum) KW_COPY(reserved)
#undef KW_COPY
}

int64_t MatmulApiTilingBase::kw_fill(optiling::TCubeTiling& t) {
    if (Compute() != 0) return -1;
    SetFinalTiling(t);
    return 0;
}
int64_t MatmulApiTilingBase::kw_fill(TCubeTiling& t) {
    static_assert(sizeof(TCubeTiling) == 50 * sizeof(int32_t), "the kernel's TCubeTiling is 50 int32 fields");
    if (Compute() != 0) return -1;
    std::memcpy(&t, tiling_.kw_bytes(), sizeof(TCubeTiling));
    return 0;
}

// ---- single core ----
int64_t MatmulApiTiling::Compute() { return kw_split(1, false); }
int64_t MatmulApiTiling::GetTiling(optiling::TCubeTiling& tiling) { return kw_fill(tiling); }
int64_t MatmulApiTiling::GetTiling(TCubeTiling& tiling) { return kw_fill(tiling); }

// ---- multi core ----
int32_t MultiCoreMatmulTiling::SetDim(int32_t dim) {
    blockDim = dim;
    return 0;
}
int32_t MultiCoreMatmulTiling::SetShape(int32_t m, int32_t n, int32_t k) { return MatmulApiTilingBase::SetShape(m, n, k); }
int32_t MultiCoreMatmulTiling::SetSingleShape(int32_t m, int32_t n, int32_t k) {
    singleCoreM = m, singleCoreN = n, singleCoreK = k;
    return 0;
}
int32_t MultiCoreMatmulTiling::SetAlignSplit(int32_t alignM, int32_t alignN, int32_t alignK) {
    alignSingleM = alignM, alignSingleN = alignN, alignSingleK = alignK;
    return 0;
}
int32_t MultiCoreMatmulTiling::GetSingleShape(int32_t& m, int32_t& n, int32_t& k) {
    m = singleCoreM, n = singleCoreN, k = singleCoreK;
    return 0;
}
int32_t MultiCoreMatmulTiling::GetCoreNum(int32_t& dim, int32_t& mDim, int32_t& nDim) {
    mDim = singleCoreM > 0 ? ceil_div(singleM, singleCoreM) : 1;
    nDim = singleCoreN > 0 ? ceil_div(singleN, singleCoreN) : 1;
    dim = mDim * nDim;
    return 0;
}
int64_t MultiCoreMatmulTiling::Compute() { return kw_split(blockDim > 0 ? blockDim : kwCores, true); }
int64_t MultiCoreMatmulTiling::GetTiling(optiling::TCubeTiling& tiling) { return kw_fill(tiling); }
int64_t MultiCoreMatmulTiling::GetTiling(TCubeTiling& tiling) { return kw_fill(tiling); }

// ---- batch: one core per batch group is the caller's business; the per-matrix split is single-core ----
int32_t BatchMatmulTiling::GetCoreNum(int32_t& dim, int32_t& mDim, int32_t& nDim, int32_t& batchCoreM, int32_t& batchCoreN) {
    dim = mDim = nDim = 1;
    batchCoreM = batchM > 0 ? batchM : 1, batchCoreN = batchN > 0 ? batchN : 1;
    return 0;
}
int64_t BatchMatmulTiling::Compute() { return kw_split(1, false); }
int64_t BatchMatmulTiling::GetTiling(optiling::TCubeTiling& tiling) { return kw_fill(tiling); }
int64_t BatchMatmulTiling::GetTiling(TCubeTiling& tiling) { return kw_fill(tiling); }
}  // namespace matmul_tiling

// The emulated Matmul takes no scratch space of its own.
namespace {
int32_t no_tmp(matmul_tiling::SysTilingTempBufSize& b) {
    b = matmul_tiling::SysTilingTempBufSize();
    return 0;
}
}  // namespace
extern "C" {
int32_t MatmulGetTmpBufSize(optiling::TCubeTiling&, matmul_tiling::SysTilingTempBufSize& b) { return no_tmp(b); }
int32_t MatmulGetTmpBufSizeV2(TCubeTiling&, matmul_tiling::SysTilingTempBufSize& b) { return no_tmp(b); }
int32_t MultiCoreMatmulGetTmpBufSize(optiling::TCubeTiling&, matmul_tiling::SysTilingTempBufSize& b) { return no_tmp(b); }
int32_t BatchMatmulGetTmpBufSize(optiling::TCubeTiling&, matmul_tiling::SysTilingTempBufSize& b) { return no_tmp(b); }
int32_t MultiCoreMatmulGetTmpBufSizeV2(TCubeTiling&, matmul_tiling::SysTilingTempBufSize& b) { return no_tmp(b); }
int32_t BatchMatmulGetTmpBufSizeV2(TCubeTiling&, matmul_tiling::SysTilingTempBufSize& b) { return no_tmp(b); }
}
