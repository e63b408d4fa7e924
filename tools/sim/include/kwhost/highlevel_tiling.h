// Host-side tiling of the high-level APIs: the optiling tiling-data classes (same field order as
// kernel_tiling/kernel_tiling.h, so a nested TILING_DATA_FIELD_DEF_STRUCT reads back field for
// field) and the AscendC host helpers that size temporary buffers and fill those classes.
// The emulated kernels read the shape fields (srcM/srcK, bLength/sLength/hLength/originalHLength,
// ...); the split fields are filled with consistent values but only steer the NPU's chunking.
#pragma once
#include <cstdint>
#include "graph/types.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
#define KW_U32(name) TILING_DATA_FIELD_DEF(uint32_t, name);
#define KW_SOFTMAX_FIELDS                                                                                         \
    KW_U32(srcM) KW_U32(srcK) KW_U32(srcSize) KW_U32(outMaxM) KW_U32(outMaxK) KW_U32(outMaxSize) KW_U32(splitM)    \
    KW_U32(splitK) KW_U32(splitSize) KW_U32(reduceM) KW_U32(reduceK) KW_U32(reduceSize) KW_U32(rangeM) KW_U32(tailM) \
    KW_U32(tailSplitSize) KW_U32(tailReduceSize)
BEGIN_TILING_DATA_DEF(SoftMaxTiling)
KW_SOFTMAX_FIELDS
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(LogSoftMaxTiling)
KW_SOFTMAX_FIELDS
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(LayerNormTiling)
KW_U32(bLength) KW_U32(sLength) KW_U32(hLength) KW_U32(originalHLength) KW_U32(inputXSize) KW_U32(meanVarSize)
KW_U32(numberOfTmpBuf) KW_U32(meanTmpTensorPos) KW_U32(meanTmpTensorSize) KW_U32(varianceTmpTensorPos)
KW_U32(varianceTmpTensorSize) KW_U32(tmpBufSize) KW_U32(oneTmpSize) KW_U32(firstTmpStartPos) KW_U32(secondTmpStartPos)
KW_U32(thirdTmpStartPos) KW_U32(loopRound) KW_U32(inputRoundSize) KW_U32(inputTailSize) KW_U32(inputTailPos)
KW_U32(meanVarRoundSize) KW_U32(meanVarTailSize) KW_U32(meanVarTailPos) KW_U32(bshCurLength) KW_U32(bsCurLength)
TILING_DATA_FIELD_DEF(float, lastDimValueBack);
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(LayerNormSeparateTiling)
KW_U32(aLength) KW_U32(rLength) KW_U32(halfAddRepeatTimes) KW_U32(rHeadLength)
TILING_DATA_FIELD_DEF(float, k2Rec);
TILING_DATA_FIELD_DEF(float, k2RRec);
KW_U32(inputXSize) KW_U32(meanVarSize) KW_U32(numberOfTmpBuf) KW_U32(varianceTmpTensorPos) KW_U32(varianceTmpTensorSize)
KW_U32(tmpBufSize) KW_U32(oneTmpSize) KW_U32(firstTmpStartPos) KW_U32(secondTmpStartPos) KW_U32(thirdTmpStartPos)
KW_U32(loopRound) KW_U32(inputRoundSize) KW_U32(inputTailSize) KW_U32(inputTailPos) KW_U32(meanVarRoundSize)
KW_U32(meanVarTailSize) KW_U32(meanVarTailPos) KW_U32(arCurLength) KW_U32(aCurLength)
TILING_DATA_FIELD_DEF(float, rValueBack);
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(RmsNormTiling)
KW_U32(bLength) KW_U32(sLength) KW_U32(hLength) KW_U32(originalHLength)
TILING_DATA_FIELD_DEF(float, reciprocalOfHLength);
KW_U32(mainBshLength) KW_U32(mainBsLength) KW_U32(mainBsLengthAlign) KW_U32(loopRound) KW_U32(inputTailPos)
KW_U32(tailBshLength) KW_U32(tailBsLength)
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(BatchNormTiling)
KW_U32(originalBLength) KW_U32(meanVarSize) KW_U32(meanTmpTensorPos) KW_U32(varianceTmpTensorPos) KW_U32(tmpBufSize)
KW_U32(oneTmpSize) KW_U32(firstTmpStartPos) KW_U32(secondTmpStartPos) KW_U32(thirdTmpStartPos) KW_U32(loopRound)
KW_U32(inputTailSize) KW_U32(inputTailPos) KW_U32(meanVarTailSize) KW_U32(meanVarTailPos) KW_U32(bshCurLength)
KW_U32(shCurLength)
TILING_DATA_FIELD_DEF(float, firstDimValueBack);
KW_U32(castHalfRepStride) KW_U32(shCurLengthBlockNum) KW_U32(castHalfOutRepStride)
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(GroupNormTiling)
KW_U32(n) KW_U32(c) KW_U32(hw) KW_U32(g) KW_U32(d) KW_U32(hwAlignSize) KW_U32(dhwAlignSize) KW_U32(inputXSize)
KW_U32(meanVarSize) KW_U32(numberOfTmpBuf) KW_U32(meanTmpTensorPos) KW_U32(meanTmpTensorSize) KW_U32(varianceTmpTensorPos)
KW_U32(varianceTmpTensorSize) KW_U32(tmpBufSize) KW_U32(oneTmpSize) KW_U32(firstTmpStartPos) KW_U32(secondTmpStartPos)
KW_U32(thirdTmpStartPos) KW_U32(loopRound) KW_U32(inputRoundSize) KW_U32(inputTailSize) KW_U32(inputTailPos)
KW_U32(meanVarRoundSize) KW_U32(meanVarTailSize) KW_U32(meanVarTailPos) KW_U32(bshCurLength) KW_U32(bsCurLength)
TILING_DATA_FIELD_DEF(float, factor);
TILING_DATA_FIELD_DEF(bool, smallShape);
END_TILING_DATA_DEF;
#undef KW_SOFTMAX_FIELDS
#undef KW_U32
}  // namespace optiling

namespace AscendC {
// ---- SoftMax family: the input is viewed as [all leading dims, last dim] ----
uint32_t GetSoftMaxMaxTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize, const bool isReuseSource);
uint32_t GetSoftMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize, const bool isReuseSource);
void SoftMaxTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize, const uint32_t localWorkSpaceSize,
                       optiling::SoftMaxTiling& softmaxTiling);
uint32_t GetSoftMaxFlashV2MinTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize1, const uint32_t dataTypeSize2,
                                     const bool isUpdate, const bool isBasicBlock = false, const bool isFlashOutputBrc = false);
uint32_t GetSoftMaxFlashV2MaxTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize1, const uint32_t dataTypeSize2,
                                     const bool isUpdate, const bool isBasicBlock = false, const bool isFlashOutputBrc = false);
void SoftMaxFlashV2TilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize1, const uint32_t dataTypeSize2,
                              const uint32_t localWorkSpaceSize, optiling::SoftMaxTiling& softmaxFlashTiling, const bool isUpdate,
                              const bool isBasicBlock = false, const bool isFlashOutputBrc = false);
bool IsBasicBlockInSoftMax(optiling::SoftMaxTiling& tiling, const uint32_t dataTypeSize = 2);
uint32_t GetSoftMaxGradMaxTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize, const bool isFront, const bool isReuseSource);
uint32_t GetSoftMaxGradMinTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize, const bool isFront, const bool isReuseSource);
void SoftMaxGradTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize, const uint32_t localWorkSpaceSize,
                           optiling::SoftMaxTiling& softmaxGradTiling, const bool isFront = false);
uint32_t GetLogSoftMaxMaxTmpSize(const ge::Shape srcShape, const uint32_t dataTypeSize, const bool isReuseSource);
uint32_t GetLogSoftMaxMinTmpSize(const ge::Shape srcShape, const uint32_t dataTypeSize, const bool isReuseSource);
void LogSoftMaxTilingFunc(const ge::Shape srcShape, const uint32_t dataTypeSize, const uint32_t localWorkSpaceSize,
                          optiling::LogSoftMaxTiling& softmaxTiling);

// ---- normalizations ----
void GetLayerNormMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource, uint32_t& maxValue,
                               uint32_t& minValue);
void GetLayerNormNDTilingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                              const bool isReuseSource, optiling::LayerNormTiling& tiling);
void GetLayerNormNDTillingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                               const bool isReuseSource, optiling::LayerNormTiling& tilling);
void GetLayerNormMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource, const bool isComputeRstd,
                               const bool isOnlyOutput, uint32_t& maxValue, uint32_t& minValue);
void GetLayerNormNDTilingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                              const bool isReuseSource, const bool isComputeRstd, optiling::LayerNormSeparateTiling& tiling);
bool GetRmsNormMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue, uint32_t& minValue,
                             const bool isBasicBlock = false);
bool GetRmsNormTilingInfo(const ge::Shape& srcShape, const ge::Shape& originSrcShape, const uint32_t stackBufferByteSize,
                          const uint32_t typeSize, optiling::RmsNormTiling& tiling, const bool isBasicBlock = false);
bool GetBatchNormMaxMinTmpSize(const ge::Shape& srcShape, const ge::Shape& originSrcShape, const uint32_t typeSize,
                               const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue, const bool isBasicBlock = false);
bool GetBatchNormNDTilingInfo(const ge::Shape& srcShape, const ge::Shape& originSrcShape, const uint32_t stackBufferByteSize,
                              const uint32_t typeSize, const bool isReuseSource, optiling::BatchNormTiling& tilling,
                              const bool isBasicBlock = false);
void GetGroupNormMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource, const uint32_t groupNum,
                               uint32_t& maxValue, uint32_t& minValue);
void GetGroupNormNDTilingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                              const bool isReuseSource, const uint32_t groupNum, optiling::GroupNormTiling& tiling);

// ---- element-wise math and activations: min = one repeat of fp32 work, max = two fp32 copies ----
#define KW_TMP_API(Name)                                                                                                    \
    void Get##Name##MaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource, uint32_t& maxValue, \
                                  uint32_t& minValue);                                                                      \
    void Get##Name##TmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount, uint32_t& extraBuffer);
KW_TMP_API(Tanh) KW_TMP_API(Sigmoid) KW_TMP_API(Log) KW_TMP_API(Log2) KW_TMP_API(Log10) KW_TMP_API(Erf) KW_TMP_API(Erfc)
KW_TMP_API(Sin) KW_TMP_API(Cos) KW_TMP_API(Tan) KW_TMP_API(Sinh) KW_TMP_API(Cosh) KW_TMP_API(Asin) KW_TMP_API(Acos) KW_TMP_API(Atan)
KW_TMP_API(Asinh) KW_TMP_API(Acosh) KW_TMP_API(Atanh) KW_TMP_API(Sign) KW_TMP_API(Floor) KW_TMP_API(Ceil) KW_TMP_API(Trunc)
KW_TMP_API(Frac) KW_TMP_API(Clamp) KW_TMP_API(Axpy) KW_TMP_API(Silu) KW_TMP_API(Swish) KW_TMP_API(Digamma) KW_TMP_API(Lgamma)
KW_TMP_API(Fmod) KW_TMP_API(GeGLU) KW_TMP_API(SwiGLU) KW_TMP_API(ReGlu) KW_TMP_API(Xor)
#undef KW_TMP_API
bool GetExpMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource, uint32_t& maxValue,
                         uint32_t& minValue);
void GetExpTmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount, uint32_t& extraBuffer);
void GetRoundMaxMinTmpSize(const platform_ascendc::PlatformAscendC& ascendcPlatform, const ge::Shape& srcShape, const uint32_t typeSize,
                           const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue);
uint32_t GetGeluMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize);
uint32_t GetGeluMaxTmpSize(const ge::Shape& srcShape, const uint32_t typeSize);
void GetGeluMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue, uint32_t& minValue);
void GetPowerMaxMinTmpSize(const ge::Shape& srcShape1, const ge::Shape& srcShape2, const bool typeIsInt, const uint32_t typeSize,
                           const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue);
void GetSumMaxMinTmpSize(const uint32_t n, const uint32_t typeSize, const bool isReuseSource, uint32_t& maxSize, uint32_t& minSize);
void GetMeanMaxMinTmpSize(const uint32_t n, const uint32_t srcTypeSize, const uint32_t accTypeSize, const bool isReuseSource,
                          uint32_t& maxSize, uint32_t& minSize);
void GetCumSumMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isLastAxis, const bool isReuseSource,
                            uint32_t& maxValue, uint32_t& minValue);

// ---- pattern Reduce APIs (ReduceSum<T, Pattern::Reduce::AR> ...): srcShape is [first, last]; on a call
// CANN rejects (a 3-D shape, a pattern other than AR/RA, srcInnerPad false, a dtype the API lacks) the
// values are left as they were and the reason is logged, as ASCENDC_HOST_ASSERT does ----
enum class ReducePattern : uint32_t {
    AR = 0, RA = 1, R, ARA, ARAR, ARARA, ARARAR, ARARARA, ARARARAR, ARARARARA, RAR, RARA, RARAR, RARARA, RARARAR, RARARARA,
};
#define KW_REDUCE_TMP_API(Name)                                                                                            \
    void Get##Name##MaxMinTmpSize(const ge::Shape& srcShape, const ge::DataType dataType, ReducePattern pattern,           \
                                  bool isSrcInnerPad, bool isReuseSource, uint32_t& maxValue, uint32_t& minValue);
KW_REDUCE_TMP_API(ReduceSum) KW_REDUCE_TMP_API(ReduceMean) KW_REDUCE_TMP_API(ReduceMax) KW_REDUCE_TMP_API(ReduceMin)
KW_REDUCE_TMP_API(ReduceProd) KW_REDUCE_TMP_API(ReduceAny) KW_REDUCE_TMP_API(ReduceAll)
#undef KW_REDUCE_TMP_API
}  // namespace AscendC
