// Kernel-side tiling structs of the high-level APIs (CANN 8.x kernel_tiling.h): plain structs in
// the global namespace, 8-byte packed, with the field order of CANN so that tiling data written by
// the host side (optiling::<Name>::SaveToBuffer or a raw copy) reads back field for field.
// Kernels reach this through kernel_operator.h or #include "kernel_tiling/kernel_tiling.h".
#pragma once
#include <cstdint>
#include <cstring>

#pragma pack(push, 8)
// LogSoftMax reads srcM and srcK like SoftMax.
struct LogSoftMaxTiling {
    uint32_t srcM = 0, srcK = 0, srcSize = 0, outMaxM = 0, outMaxK = 0, outMaxSize = 0, splitM = 0, splitK = 0, splitSize = 0,
             reduceM = 0, reduceK = 0, reduceSize = 0, rangeM = 0, tailM = 0, tailSplitSize = 0, tailReduceSize = 0;
};
// SoftMax / SimpleSoftMax / SoftmaxFlashV2 read srcM and srcK (rows and 32-byte aligned row length)
// when the SoftMaxShapeInfo argument is left empty; the split/reduce fields only steer the device's
// chunking and are not needed by the emulation.
struct SoftMaxTiling {
    uint32_t srcM = 0, srcK = 0, srcSize = 0, outMaxM = 0, outMaxK = 0, outMaxSize = 0, splitM = 0, splitK = 0, splitSize = 0,
             reduceM = 0, reduceK = 0, reduceSize = 0, rangeM = 0, tailM = 0, tailSplitSize = 0, tailReduceSize = 0;
};
struct Mc2ServerCfg {
    uint32_t version = 0;
    uint8_t debugMode = 0, sendArgIndex = 0, recvArgIndex = 0, commOutArgIndex = 0;
    uint8_t reserved[8] = {};
};
struct Mc2HcommCfg {
    uint8_t skipLocalRankCopy = 0, skipBufferWindowCopy = 0, stepSize = 0;
    char reserved[13] = {};
    char groupName[128] = {};
    char algConfig[128] = {};
    uint32_t opType = 0, reduceType = 0;
};
struct Mc2InitTiling {
    uint8_t reserved[64] = {};
};
struct Mc2CcTiling {
    uint8_t reserved[280] = {};
};
struct TCubeTiling {
    int32_t usedCoreNum = 0, M = 0, N = 0, Ka = 0, Kb = 0, singleCoreM = 0, singleCoreN = 0, singleCoreK = 0, baseM = 0, baseN =
            0, baseK = 0, depthA1 = 0, depthB1 = 0, stepM = 0, stepN = 0, isBias = 0, transLength = 0, iterateOrder = 0,
            shareMode = 0, shareL1Size = 0, shareL0CSize = 0, shareUbSize = 0, batchM = 0, batchN = 0, singleBatchM = 0,
            singleBatchN = 0, stepKa = 0, stepKb = 0, depthAL1CacheUB = 0, depthBL1CacheUB = 0, dbL0A = 0, dbL0B = 0, dbL0C = 0,
            ALayoutInfoB = 0, ALayoutInfoS = 0, ALayoutInfoN = 0, ALayoutInfoG = 0, ALayoutInfoD = 0, BLayoutInfoB = 0,
            BLayoutInfoS = 0, BLayoutInfoN = 0, BLayoutInfoG = 0, BLayoutInfoD = 0, CLayoutInfoB = 0, CLayoutInfoS1 = 0,
            CLayoutInfoN = 0, CLayoutInfoG = 0, CLayoutInfoS2 = 0, BatchNum = 0, reserved = 0;
};
// BatchNorm reads originalBLength (B) and meanVarSize (S*H, 32-byte aligned).
struct BatchNormTiling {
    uint32_t originalBLength = 0, meanVarSize = 0, meanTmpTensorPos = 0, varianceTmpTensorPos = 0, tmpBufSize = 0, oneTmpSize =
             0, firstTmpStartPos = 0, secondTmpStartPos = 0, thirdTmpStartPos = 0, loopRound = 0, inputTailSize = 0,
             inputTailPos = 0, meanVarTailSize = 0, meanVarTailPos = 0, bshCurLength = 0, shCurLength = 0;
    float firstDimValueBack = 0;
    uint32_t castHalfRepStride = 0, shCurLengthBlockNum = 0, castHalfOutRepStride = 0;
};
struct DeepNormTiling {
    uint32_t bLength = 0, sLength = 0, hLength = 0, originalHLength = 0, inputXSize = 0, meanVarSize = 0, numberOfTmpBuf = 0,
             meanTmpTensorPos = 0, meanTmpTensorSize = 0, varianceTmpTensorPos = 0, varianceTmpTensorSize = 0, tmpBufSize = 0,
             oneTmpSize = 0, firstTmpStartPos = 0, secondTmpStartPos = 0, thirdTmpStartPos = 0, loopRound = 0, inputRoundSize =
             0, inputTailSize = 0, inputTailPos = 0, meanVarRoundSize = 0, meanVarTailSize = 0, meanVarTailPos = 0, bshCurLength
             = 0, bsCurLength = 0;
    float lastDimValueBack = 0;
};
// GroupNorm reads n, c, hw (H*W) and g (number of groups).
struct GroupNormTiling {
    uint32_t n = 0, c = 0, hw = 0, g = 0, d = 0, hwAlignSize = 0, dhwAlignSize = 0, inputXSize = 0, meanVarSize = 0,
             numberOfTmpBuf = 0, meanTmpTensorPos = 0, meanTmpTensorSize = 0, varianceTmpTensorPos = 0, varianceTmpTensorSize =
             0, tmpBufSize = 0, oneTmpSize = 0, firstTmpStartPos = 0, secondTmpStartPos = 0, thirdTmpStartPos = 0, loopRound =
             0, inputRoundSize = 0, inputTailSize = 0, inputTailPos = 0, meanVarRoundSize = 0, meanVarTailSize = 0,
             meanVarTailPos = 0, bshCurLength = 0, bsCurLength = 0;
    float factor = 0;
    bool smallShape = 0;
};
struct LayerNormGradBetaTiling {
    uint32_t stackBufferSize = 0, bLength = 0, sLength = 0, hLength = 0, originalHLength = 0, bshLength = 0, bsLength = 0,
             oneCalSize = 0, numberOfTmpBuf = 0, loopRound = 0, inputTailSize = 0, inputTailPos = 0, bsTailSize = 0,
             bshCurLength = 0, bsCurLength = 0, gammaTempTensorPos = 0, betaTempTensorPos = 0, inputDyTmpTensorPos = 0,
             resForGammaTmpTensorPos = 0, reserved = 0;
};
struct LayerNormGradTiling {
    uint32_t stackBufferSize = 0, bLength = 0, sLength = 0, hLength = 0, originalHLength = 0, oneCalSize = 0, nohCalSize = 0,
             loopNum = 0, tailSize = 0, nohTailSize = 0, tmpTensorBSHPos = 0, tmpTensorBSHSize = 0, pdVarTensorPos = 0,
             pdVarTensorSize = 0, pdMeanTensorPos = 0, pdMeanTensorSize = 0, x1TensorPos = 0, x1TensorSize = 0, x2TensorPos = 0,
             x2TensorSize = 0, x3TensorPos = 0, x3TensorSize = 0, tmpTensorPos = 0, tmpTensorSize = 0, tmpTensor1Pos = 0,
             tmpTensor1Size = 0, tmpTensor2Pos = 0, tmpTensor2Size = 0, lastDimValueBack = 0, lastDimValueBackMulTwo = 0;
};
// LayerNorm reads bLength, sLength, hLength (32-byte aligned H) and originalHLength (real H).
struct LayerNormTiling {
    uint32_t bLength = 0, sLength = 0, hLength = 0, originalHLength = 0, inputXSize = 0, meanVarSize = 0, numberOfTmpBuf = 0,
             meanTmpTensorPos = 0, meanTmpTensorSize = 0, varianceTmpTensorPos = 0, varianceTmpTensorSize = 0, tmpBufSize = 0,
             oneTmpSize = 0, firstTmpStartPos = 0, secondTmpStartPos = 0, thirdTmpStartPos = 0, loopRound = 0, inputRoundSize =
             0, inputTailSize = 0, inputTailPos = 0, meanVarRoundSize = 0, meanVarTailSize = 0, meanVarTailPos = 0, bshCurLength
             = 0, bsCurLength = 0;
    float lastDimValueBack = 0;
};
// LayerNorm (the rstd form) takes its shape from LayerNormPara; it reads nothing here.
struct LayerNormSeparateTiling {
    uint32_t aLength = 0, rLength = 0, halfAddRepeatTimes = 0, rHeadLength = 0;
    float k2Rec = 0, k2RRec = 0;
    uint32_t inputXSize = 0, meanVarSize = 0, numberOfTmpBuf = 0, varianceTmpTensorPos = 0, varianceTmpTensorSize = 0,
             tmpBufSize = 0, oneTmpSize = 0, firstTmpStartPos = 0, secondTmpStartPos = 0, thirdTmpStartPos = 0, loopRound = 0,
             inputRoundSize = 0, inputTailSize = 0, inputTailPos = 0, meanVarRoundSize = 0, meanVarTailSize = 0, meanVarTailPos
             = 0, arCurLength = 0, aCurLength = 0;
    float rValueBack = 0;
};
// RmsNorm reads bLength, sLength, hLength (32-byte aligned H) and originalHLength (real H).
struct RmsNormTiling {
    uint32_t bLength = 0, sLength = 0, hLength = 0, originalHLength = 0;
    float reciprocalOfHLength = 0;
    uint32_t mainBshLength = 0, mainBsLength = 0, mainBsLengthAlign = 0, loopRound = 0, inputTailPos = 0, tailBshLength = 0,
             tailBsLength = 0;
};
struct UnPadTiling {
    uint32_t srcHeight = 0, srcWidth = 0, tmpBuffer1BlockNum = 0, tmpBuffer1RowNum = 0, tmpBuffer2Offset = 0, widthTiling = 0,
             widthFractal = 0, widthFractalTail = 0;
};
struct PadTiling {
    uint32_t srcHeight = 0, srcWidth = 0, srcOriWidth = 0, widthWithoutLastBlock = 0, blocksPerRow = 0, heightTiling = 0,
             heightFractal = 0, heightFractalTail = 0, mainLoopOffset = 0, tailBlockOffset = 0, tmpBuffer1BlockNum = 0,
             tmpBuffer1RowNum = 0, tmpBuffer2Offset = 0, widthTiling = 0, widthFractal = 0, widthFractalTail = 0,
             widthFractalTailAlingned = 0, brcbTiling = 0, brcbFractal = 0, brcbFractalTail = 0, maxRepeatTimes = 0,
             brcbTilingRepeatTimes = 0, brcbTilingRepeatTimesTail = 0, brcbFractalTailRepeatTimes = 0,
             brcbFractalTailRepeatTimesTail = 0, reserved = 0;
};
struct TopkTiling {
    int32_t tmpLocalSize = 0, allDataSize = 0, innerDataSize = 0;
    uint32_t sortRepeat = 0;
    int32_t mrgSortRepeat = 0, kAlignFourBytes = 0, kAlignTwoBytes = 0, maskOffset = 0, maskVreducev2FourBytes = 0,
            maskVreducev2TwoBytes = 0, mrgSortSrc1offset = 0, mrgSortSrc2offset = 0, mrgSortSrc3offset = 0,
            mrgSortTwoQueueSrc1Offset = 0, mrgFourQueueTailPara1 = 0, mrgFourQueueTailPara2 = 0, srcIndexOffset = 0;
    uint32_t copyUbToUbBlockCount = 0;
    int32_t topkMrgSrc1MaskSizeOffset = 0, topkNSmallSrcIndexOffset = 0;
    uint32_t vreduceValMask0 = 0, vreduceValMask1 = 0, vreduceIdxMask0 = 0, vreduceIdxMask1 = 0;
    uint16_t vreducehalfValMask0 = 0, vreducehalfValMask1 = 0, vreducehalfValMask2 = 0, vreducehalfValMask3 = 0,
             vreducehalfValMask4 = 0, vreducehalfValMask5 = 0, vreducehalfValMask6 = 0, vreducehalfValMask7 = 0;
};
struct ConfusionTransposeTiling {
    uint32_t param0 = 0, param1 = 0, param2 = 0, param3 = 0, param4 = 0, param5 = 0, param6 = 0, param7 = 0, param8 = 0, param9
             = 0, param10 = 0, param11 = 0, param12 = 0, param13 = 0, param14 = 0, param15 = 0, param16 = 0, param17 = 0;
};
#pragma pack(pop)
