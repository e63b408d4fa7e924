// Host-side tiling of the Matmul high-level API (CANN 8.x interface of lib/matmul/{matmul_tiling,
// bmm_tiling,matmul_tilingdata}.h): optiling::TCubeTiling as a tiling-data class with the field
// order of the kernel's TCubeTiling, the matmul_tiling enums, and MatmulApiTiling /
// MultiCoreMatmulTiling / BatchMatmulTiling whose GetTiling fills it (returns -1 when the shapes
// or types are unusable). The split is our own: see host/matmul_tiling.cpp.
#pragma once
#include <cstdint>
#include <map>
#include "kernel_tiling/kernel_tiling.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
#define KW_I32(name) TILING_DATA_FIELD_DEF(int32_t, name);
BEGIN_TILING_DATA_DEF(TCubeTiling)
KW_I32(usedCoreNum) KW_I32(M) KW_I32(N) KW_I32(Ka) KW_I32(Kb) KW_I32(singleCoreM) KW_I32(singleCoreN) KW_I32(singleCoreK)
KW_I32(baseM) KW_I32(baseN) KW_I32(baseK) KW_I32(depthA1) KW_I32(depthB1) KW_I32(stepM) KW_I32(stepN) KW_I32(isBias)
KW_I32(transLength) KW_I32(iterateOrder) KW_I32(shareMode) KW_I32(shareL1Size) KW_I32(shareL0CSize) KW_I32(shareUbSize)
KW_I32(batchM) KW_I32(batchN) KW_I32(singleBatchM) KW_I32(singleBatchN) KW_I32(stepKa) KW_I32(stepKb) KW_I32(depthAL1CacheUB)
KW_I32(depthBL1CacheUB) KW_I32(dbL0A) KW_I32(dbL0B) KW_I32(dbL0C) KW_I32(ALayoutInfoB) KW_I32(ALayoutInfoS) KW_I32(ALayoutInfoN)
KW_I32(ALayoutInfoG) KW_I32(ALayoutInfoD) KW_I32(BLayoutInfoB) KW_I32(BLayoutInfoS) KW_I32(BLayoutInfoN) KW_I32(BLayoutInfoG)
KW_I32(BLayoutInfoD) KW_I32(CLayoutInfoB) KW_I32(CLayoutInfoS1) KW_I32(CLayoutInfoN) KW_I32(CLayoutInfoG) KW_I32(CLayoutInfoS2)
KW_I32(BatchNum) KW_I32(reserved)
END_TILING_DATA_DEF;
#undef KW_I32
}  // namespace optiling

namespace matmul_tiling {
constexpr int32_t UINT8_BYTES = 1;
constexpr int32_t INT8_BYTES = 1;
constexpr int32_t FP32_BYTES = 4;
constexpr int32_t FP16_BYTES = 2;
constexpr int32_t C0_SIZE = 16;
constexpr int32_t C0_BYTE_SIZE = 32;
constexpr int32_t BITS_PER_BYTE = 8;

enum class DataType : int32_t {
    DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT16 = 6, DT_UINT16 = 7, DT_UINT8 = 4, DT_INT32 = 3, DT_INT64 = 9, DT_UINT32 = 8,
    DT_UINT64 = 10, DT_BOOL = 12, DT_DOUBLE = 11, DT_STRING = 13, DT_DUAL_SUB_INT8 = 14, DT_DUAL_SUB_UINT8 = 15, DT_COMPLEX64 = 16,
    DT_COMPLEX128 = 17, DT_QINT8 = 18, DT_QINT16 = 19, DT_QINT32 = 20, DT_QUINT8 = 21, DT_QUINT16 = 22, DT_RESOURCE = 23,
    DT_STRING_REF = 24, DT_DUAL = 25, DT_VARIANT = 26, DT_BF16 = 27, DT_UNDEFINED = 28, DT_INT4 = 29, DT_UINT1 = 30, DT_INT2 = 31,
    DT_UINT2 = 32, DT_BFLOAT16 = 33, DT_MAX = 34
};
const std::map<DataType, uint32_t> DTYPE_BYTE_TAB = {
    {DataType::DT_FLOAT, 4}, {DataType::DT_FLOAT16, 2}, {DataType::DT_INT8, 1},  {DataType::DT_INT16, 2}, {DataType::DT_UINT16, 2},
    {DataType::DT_UINT8, 1}, {DataType::DT_INT32, 4},   {DataType::DT_INT64, 8}, {DataType::DT_UINT32, 4}, {DataType::DT_UINT64, 8},
    {DataType::DT_BF16, 2},  {DataType::DT_BFLOAT16, 2}, {DataType::DT_INT4, 1}};
const std::map<DataType, uint32_t> DTYPE_BIT_TAB = {
    {DataType::DT_FLOAT, 32}, {DataType::DT_FLOAT16, 16}, {DataType::DT_INT8, 8},  {DataType::DT_INT16, 16}, {DataType::DT_UINT16, 16},
    {DataType::DT_UINT8, 8},  {DataType::DT_INT32, 32},   {DataType::DT_INT64, 64}, {DataType::DT_UINT32, 32}, {DataType::DT_UINT64, 64},
    {DataType::DT_BF16, 16},  {DataType::DT_BFLOAT16, 16}, {DataType::DT_INT4, 4}};

enum class TPosition : int32_t { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM, MAX };
enum class TilingPolicy : int32_t { FIXED_A_TSCM, FIXED_B_TSCM, FIXED_A_B_TSCM, NO_POLICY };
enum class CubeFormat : int32_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
enum class MatrixTraverse : int32_t { NOSET = 0, FIRSTM = 1, FIRSTN = 2 };
enum class MatrixMadType : int32_t { NORMAL = 0, HF32 = 1 };
enum class DequantType : int32_t { SCALAR = 0, TENSOR = 1 };
enum class ScheduleType : int32_t { INNER_PRODUCT = 0, OUTER_PRODUCT = 1 };

struct SysTilingTempBufSize {
    int32_t ubSize = 0;
    int32_t l1Size = 0;
    int32_t l0cSize = 0;
};
struct MatTilingType {
    TPosition pos = TPosition::GM;
    CubeFormat type = CubeFormat::ND;
    DataType dataType = DataType::DT_FLOAT;
    bool isTrans = false;
    bool isDB = false;
};
struct BufferPool {
    int32_t l1Size;
    int32_t l0CSize;
    int32_t ubSize;
    int32_t l0ASize;
    int32_t l0BSize;
    int32_t btSize;
    int32_t l1AlignSize;
    int32_t l0CAlignSize;
    int32_t l0AAlignSize;
    int32_t l0BAlignSize;
    int32_t ubAlignSize;
};
struct PlatformInfo {
    platform_ascendc::SocVersion socVersion;
    uint64_t l1Size = 0;
    uint64_t l0CSize = 0;
    uint64_t ubSize = 0;
    uint64_t l0ASize = 0;
    uint64_t l0BSize = 0;
};
struct MatmulConfigParams {
    int32_t mmConfigType;
    bool enableL1CacheUB;
    ScheduleType scheduleType;
    MatrixTraverse traverse;
    bool enVecND2NZ;
    MatmulConfigParams(int32_t mmConfigTypeIn = 1, bool enableL1CacheUBIn = false, ScheduleType scheduleTypeIn = ScheduleType::INNER_PRODUCT,
                       MatrixTraverse traverseIn = MatrixTraverse::NOSET, bool enVecND2NZIn = false)
        : mmConfigType(mmConfigTypeIn), enableL1CacheUB(enableL1CacheUBIn), scheduleType(scheduleTypeIn), traverse(traverseIn),
          enVecND2NZ(enVecND2NZIn) {}
};

class MatmulApiTilingBase {
public:
    MatmulApiTilingBase();
    explicit MatmulApiTilingBase(const platform_ascendc::PlatformAscendC& ascendcPlatform);
    explicit MatmulApiTilingBase(const PlatformInfo& platform);
    virtual ~MatmulApiTilingBase();
    int32_t SetAType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false);
    int32_t SetBType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false);
    int32_t SetCType(TPosition pos, CubeFormat type, DataType dataType);
    int32_t SetBiasType(TPosition pos, CubeFormat type, DataType dataType);
    int32_t SetDequantType(DequantType dequantType) {
        this->deqType = dequantType;
        return 0;
    }
    virtual int32_t SetShape(int32_t m, int32_t n, int32_t k);
    int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKIn);
    int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKaIn, int32_t orgKbIn);
    int32_t SetALayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d);
    int32_t SetBLayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d);
    int32_t SetCLayout(int32_t b, int32_t s, int32_t n, int32_t g, int32_t d);
    int32_t SetBatchInfoForNormal(int32_t batchA, int32_t batchB, int32_t m, int32_t n, int32_t k);
    int32_t SetBatchNum(int32_t batch);
    int32_t EnableBias(bool isBiasIn = false);
    int32_t SetBias(bool isBiasIn = false);
    int32_t SetFixSplit(int32_t baseMIn = -1, int32_t baseNIn = -1, int32_t baseKIn = -1);
    int32_t SetBufferSpace(int32_t l1Size = -1, int32_t l0CSize = -1, int32_t ubSize = -1, int32_t btSize = -1);
    int32_t SetTraverse(MatrixTraverse traverse);
    int32_t SetMadType(MatrixMadType madType);
    int32_t SetSplitRange(int32_t maxBaseM = -1, int32_t maxBaseN = -1, int32_t maxBaseK = -1, int32_t minBaseM = -1, int32_t minBaseN = -1,
                          int32_t minBaseK = -1);
    int32_t SetDoubleBuffer(bool a, bool b, bool c, bool bias, bool transND2NZ = true, bool transNZ2ND = true);
    void SetMatmulConfigParams(int32_t mmConfigTypeIn = 1, bool enableL1CacheUBIn = false,
                               ScheduleType scheduleTypeIn = ScheduleType::INNER_PRODUCT, MatrixTraverse traverseIn = MatrixTraverse::NOSET,
                               bool enVecND2NZIn = false);
    void SetMatmulConfigParams(const MatmulConfigParams& configParams);
    int32_t SetSparse(bool isSparseIn = false);
    int32_t GetBaseM() const { return baseM; }
    int32_t GetBaseN() const { return baseN; }
    int32_t GetBaseK() const { return baseK; }
    virtual int64_t GetTiling(optiling::TCubeTiling& tiling) = 0;
    virtual int64_t GetTiling(TCubeTiling& tiling) = 0;

public:
    optiling::TCubeTiling tiling_;
    MatTilingType aType_;
    MatTilingType bType_;
    MatTilingType cType_;
    MatTilingType biasType_;
    bool isBias = false;
    bool isSupportL0c2Out = true;
    int32_t blockDim = 0;
    int32_t orgM = 0, orgN = 0, orgKa = 0, orgKb = 0;
    int32_t aLayoutInfoB = 0, aLayoutInfoS = 0, aLayoutInfoN = 0, aLayoutInfoG = 0, aLayoutInfoD = 0;
    int32_t bLayoutInfoB = 0, bLayoutInfoS = 0, bLayoutInfoN = 0, bLayoutInfoG = 0, bLayoutInfoD = 0;
    int32_t cLayoutInfoB = 0, cLayoutInfoS1 = 0, cLayoutInfoN = 0, cLayoutInfoG = 0, cLayoutInfoS2 = 0;
    int32_t batchNum = 0;
    int32_t singleM = 0, singleN = 0, singleK = 0;
    int32_t singleCoreM = 0, singleCoreN = 0, singleCoreK = 0;
    int32_t baseM = 0, baseN = 0, baseK = 0;
    int32_t batchM = 0, batchN = 0, singleBatchM = 0, singleBatchN = 0;
    int32_t alignSingleM = 1, alignSingleN = 1, alignSingleK = 1;
    struct MnmAdjust {
        int32_t maxBaseM;
        int32_t maxBaseN;
        int32_t maxBaseK;
        int32_t minBaseM;
        int32_t minBaseN;
        int32_t minBaseK;
    } adjust_;
    BufferPool oriBufferPool_;
    BufferPool bufferPool_;
    MatrixTraverse traverse_ = MatrixTraverse::FIRSTM;
    MatrixMadType madType_ = MatrixMadType::NORMAL;
    ScheduleType scheduleType = ScheduleType::INNER_PRODUCT;
    bool transND2NZ_ = false;
    bool transNZ2ND_ = false;
    bool isSparse_ = false;
    int32_t maxSingleM = 0, maxSingleN = 0, maxSingleK = 0, minSingleM = 0, minSingleN = 0, minSingleK = 0;
    DequantType deqType = DequantType::SCALAR;
    bool enableSplitK_ = false;
    platform_ascendc::SocVersion socVersion = platform_ascendc::SocVersion::ASCEND910B;
    int32_t mmConfigType = 1;
    bool enableL1CacheUB = false;
    bool enVecND2NZ = false;
    // kernelwright: the fixed split from SetFixSplit, double-buffer switches, the platform's core count
    int32_t kwFixM = -1, kwFixN = -1, kwFixK = -1;
    bool kwDbA = true, kwDbB = true, kwDbC = false;
    int32_t kwCores = 1;

protected:
    virtual int64_t Compute() = 0;
    void SetFinalTiling(optiling::TCubeTiling& tiling);
    bool CheckSetParam();
    void PrintTilingData();
    void PrintTilingDataInfo(optiling::TCubeTiling& tiling) const;
    int64_t kw_split(int32_t cores, bool multiCore);  // our split: see host/matmul_tiling.cpp
    int64_t kw_fill(optiling::TCubeTiling& t);  // Compute, then the result into t
    int64_t kw_fill(TCubeTiling& t);
};

class MatmulApiTiling : public MatmulApiTilingBase {
public:
    MatmulApiTiling() {}
    explicit MatmulApiTiling(const platform_ascendc::PlatformAscendC& ascendcPlatform) : MatmulApiTilingBase(ascendcPlatform) {}
    explicit MatmulApiTiling(const PlatformInfo& platform) : MatmulApiTilingBase(platform) {}
    ~MatmulApiTiling() override = default;
    int64_t GetTiling(optiling::TCubeTiling& tiling) override;
    int64_t GetTiling(TCubeTiling& tiling) override;

protected:
    int64_t Compute() override;
};

class MultiCoreMatmulTiling : public MatmulApiTilingBase {
public:
    MultiCoreMatmulTiling() {}
    explicit MultiCoreMatmulTiling(const platform_ascendc::PlatformAscendC& ascendcPlatform) : MatmulApiTilingBase(ascendcPlatform) {}
    explicit MultiCoreMatmulTiling(const PlatformInfo& platform) : MatmulApiTilingBase(platform) {}
    int32_t SetDim(int32_t dim);
    int32_t SetShape(int32_t m, int32_t n, int32_t k) override;
    virtual int32_t SetSingleShape(int32_t singleMIn = -1, int32_t singleNIn = -1, int32_t singleKIn = -1);
    int64_t GetTiling(optiling::TCubeTiling& tiling) override;
    int64_t GetTiling(TCubeTiling& tiling) override;
    virtual int32_t SetSingleRange(int32_t maxM = -1, int32_t maxN = -1, int32_t maxK = -1, int32_t minM = -1, int32_t minN = -1,
                                   int32_t minK = -1) {
        this->maxSingleM = maxM;
        this->maxSingleN = maxN;
        this->maxSingleK = maxK;
        this->minSingleM = minM;
        this->minSingleN = minN;
        this->minSingleK = minK;
        return 0;
    }
    int32_t SetAlignSplit(int32_t alignM, int32_t alignN, int32_t alignK);
    int32_t GetSingleShape(int32_t& shapeM, int32_t& shapeN, int32_t& shapeK);
    int32_t GetCoreNum(int32_t& dim, int32_t& mDim, int32_t& nDim);
    void EnableMultiCoreSplitK(bool flag) { enableSplitK_ = flag; }
    void SetSplitK(bool flag) { EnableMultiCoreSplitK(flag); }

protected:
    int64_t Compute() override;
    int32_t kwMDim = 1, kwNDim = 1;
};

class BatchMatmulTiling : public MatmulApiTilingBase {
public:
    BatchMatmulTiling() {}
    explicit BatchMatmulTiling(const platform_ascendc::PlatformAscendC& ascendcPlatform) : MatmulApiTilingBase(ascendcPlatform) {}
    int32_t GetCoreNum(int32_t& dim, int32_t& mDim, int32_t& nDim, int32_t& batchCoreM, int32_t& batchCoreN);
    int64_t GetTiling(optiling::TCubeTiling& tiling) override;
    int64_t GetTiling(TCubeTiling& tiling) override;

protected:
    int64_t Compute() override;
};
}  // namespace matmul_tiling

extern "C" {
int32_t MatmulGetTmpBufSize(optiling::TCubeTiling& tiling, matmul_tiling::SysTilingTempBufSize& bufSize);
int32_t MatmulGetTmpBufSizeV2(TCubeTiling& tiling, matmul_tiling::SysTilingTempBufSize& bufSize);
int32_t MultiCoreMatmulGetTmpBufSize(optiling::TCubeTiling& tiling, matmul_tiling::SysTilingTempBufSize& bufSize);
int32_t BatchMatmulGetTmpBufSize(optiling::TCubeTiling& tiling, matmul_tiling::SysTilingTempBufSize& bufSize);
int32_t MultiCoreMatmulGetTmpBufSizeV2(TCubeTiling& tiling, matmul_tiling::SysTilingTempBufSize& bufSize);
int32_t BatchMatmulGetTmpBufSizeV2(TCubeTiling& tiling, matmul_tiling::SysTilingTempBufSize& bufSize);
}
