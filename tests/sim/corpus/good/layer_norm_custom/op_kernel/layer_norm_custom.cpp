// LayerNorm over the last axis: y = (x - mean) * rsqrt(var + eps) * gamma + beta, one row at a
// time in fp32 (fp16 rows are widened with Cast). gamma and beta are loaded once per core.
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
class KernelLayerNorm {
public:
    __aicore__ inline KernelLayerNorm() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, uint32_t hidden, uint32_t rowsPerCore,
                                uint32_t extraRows, float eps, float invHidden)
    {
        uint32_t idx = GetBlockIdx();
        uint32_t first = idx * rowsPerCore + (idx < extraRows ? idx : extraRows);
        myRows = rowsPerCore + (idx < extraRows ? 1 : 0);
        this->hidden = hidden;
        this->eps = eps;
        this->invHidden = invHidden;
        padH = (hidden + 15) / 16 * 16;
        xGm.SetGlobalBuffer((__gm__ T*)x + first * hidden, myRows * hidden);
        yGm.SetGlobalBuffer((__gm__ T*)y + first * hidden, myRows * hidden);
        gammaGm.SetGlobalBuffer((__gm__ T*)gamma, hidden);
        betaGm.SetGlobalBuffer((__gm__ T*)beta, hidden);
        pipe.InitBuffer(inQ, 2, padH * sizeof(T));
        pipe.InitBuffer(outQ, 2, padH * sizeof(T));
        pipe.InitBuffer(paramQ, 2, padH * sizeof(T));
        pipe.InitBuffer(rowBuf, padH * sizeof(float));
        pipe.InitBuffer(sqBuf, padH * sizeof(float));
        pipe.InitBuffer(workBuf, padH * sizeof(float));
        pipe.InitBuffer(gammaBuf, padH * sizeof(float));
        pipe.InitBuffer(betaBuf, padH * sizeof(float));
        pipe.InitBuffer(scalarBuf, 32);
    }
    __aicore__ inline void Process()
    {
        LoadParam(gammaGm, gammaBuf.Get<float>());
        LoadParam(betaGm, betaBuf.Get<float>());
        DataCopyExtParams params{1, static_cast<uint32_t>(hidden * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        for (uint32_t r = 0; r < myRows; r++) {
            LocalTensor<T> xl = inQ.AllocTensor<T>();
            DataCopyPad(xl, xGm[r * hidden], params, pad);
            inQ.EnQue(xl);
            Compute();
            LocalTensor<T> yl = outQ.DeQue<T>();
            DataCopyPad(yGm[r * hidden], yl, params);
            outQ.FreeTensor(yl);
        }
    }

private:
    __aicore__ inline void ToFloat(const LocalTensor<float>& dst, const LocalTensor<T>& src)
    {
        if constexpr (IsSameType<T, float>::value) {
            DataCopy(dst, src, padH);
        } else {
            Cast(dst, src, RoundMode::CAST_NONE, hidden);
        }
    }
    __aicore__ inline void LoadParam(const GlobalTensor<T>& src, const LocalTensor<float>& dst)
    {
        LocalTensor<T> p = paramQ.AllocTensor<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(hidden * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        DataCopyPad(p, src, params, pad);
        paramQ.EnQue(p);
        p = paramQ.DeQue<T>();
        ToFloat(dst, p);
        paramQ.FreeTensor(p);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<T> xl = inQ.DeQue<T>();
        LocalTensor<T> yl = outQ.AllocTensor<T>();
        LocalTensor<float> row = rowBuf.Get<float>();
        LocalTensor<float> sq = sqBuf.Get<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> s = scalarBuf.Get<float>();
        int32_t h = static_cast<int32_t>(hidden);
        ToFloat(row, xl);
        inQ.FreeTensor(xl);
        ReduceSum(s, row, work, h);
        float mean = s.GetValue(0) * invHidden;
        Adds(row, row, -mean, h);
        Mul(sq, row, row, h);
        ReduceSum(s, sq, work, h);
        float var = s.GetValue(0) * invHidden;
        Duplicate(s, var, 8);
        Adds(s, s, eps, 8);
        Rsqrt(s, s, 8);
        float rstd = s.GetValue(0);
        Muls(row, row, rstd, h);
        Mul(row, row, gammaBuf.Get<float>(), h);
        Add(row, row, betaBuf.Get<float>(), h);
        if constexpr (IsSameType<T, float>::value) {
            DataCopy(yl, row, padH);
        } else {
            Cast(yl, row, RoundMode::CAST_RINT, h);
        }
        outQ.EnQue(yl);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ, paramQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    TBuf<QuePosition::VECCALC> rowBuf, sqBuf, workBuf, gammaBuf, betaBuf, scalarBuf;
    GlobalTensor<T> xGm, yGm, gammaGm, betaGm;
    uint32_t myRows = 0, hidden = 0, padH = 0;
    float eps = 0.0f, invHidden = 0.0f;
};

extern "C" __global__ __aicore__ void layer_norm_custom(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, GM_ADDR workspace,
                                                        GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelLayerNorm<DTYPE_X> op;
    op.Init(x, gamma, beta, y, t.hidden, t.rowsPerCore, t.extraRows, t.epsilon, t.invHidden);
    op.Process();
}
