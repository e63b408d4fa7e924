// RmsNorm over the last axis: y = x * rsqrt(mean(x^2) + eps) * gamma, in fp32 for every I/O
// type. Several rows per DataCopyPad burst; UB rows are padded to padH elements.
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
class KernelRmsNorm {
public:
    __aicore__ inline KernelRmsNorm() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, uint32_t hidden, uint32_t rowsPerCore, uint32_t extraRows,
                                uint32_t tileRows, float eps)
    {
        uint32_t idx = GetBlockIdx();
        uint32_t first = idx * rowsPerCore + (idx < extraRows ? idx : extraRows);
        myRows = rowsPerCore + (idx < extraRows ? 1 : 0);
        this->hidden = hidden;
        this->tileRows = tileRows;
        this->eps = eps;
        padH = (hidden + 15) / 16 * 16;
        xGm.SetGlobalBuffer((__gm__ T*)x + first * hidden, myRows * hidden);
        yGm.SetGlobalBuffer((__gm__ T*)y + first * hidden, myRows * hidden);
        gammaGm.SetGlobalBuffer((__gm__ T*)gamma, hidden);
        pipe.InitBuffer(inQ, 2, tileRows * padH * sizeof(T));
        pipe.InitBuffer(outQ, 2, tileRows * padH * sizeof(T));
        pipe.InitBuffer(gammaQ, 1, padH * sizeof(T));
        pipe.InitBuffer(floatBuf, tileRows * padH * sizeof(float));
        pipe.InitBuffer(gammaBuf, padH * sizeof(float));
        pipe.InitBuffer(sqBuf, padH * sizeof(float));
        pipe.InitBuffer(workBuf, padH * sizeof(float));
        pipe.InitBuffer(scalarBuf, 32);
    }
    __aicore__ inline void Process()
    {
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        LocalTensor<T> g = gammaQ.AllocTensor<T>();
        DataCopyPad(g, gammaGm, {1, static_cast<uint32_t>(hidden * sizeof(T)), 0, 0, 0}, pad);
        gammaQ.EnQue(g);
        g = gammaQ.DeQue<T>();
        ToFloat(gammaBuf.Get<float>(), g, padH);
        gammaQ.FreeTensor(g);
        for (uint32_t r = 0; r < myRows; r += tileRows) {
            uint32_t n = myRows - r < tileRows ? myRows - r : tileRows;
            DataCopyExtParams params{static_cast<uint16_t>(n), static_cast<uint32_t>(hidden * sizeof(T)), 0, 0, 0};
            LocalTensor<T> xl = inQ.AllocTensor<T>();
            DataCopyPad(xl, xGm[r * hidden], params, pad);
            inQ.EnQue(xl);
            Compute(n);
            LocalTensor<T> yl = outQ.DeQue<T>();
            DataCopyPad(yGm[r * hidden], yl, params);
            outQ.FreeTensor(yl);
        }
    }

private:
    __aicore__ inline void ToFloat(const LocalTensor<float>& dst, const LocalTensor<T>& src, uint32_t count)
    {
        if constexpr (IsSameType<T, float>::value) {
            DataCopy(dst, src, count);
        } else {
            Cast(dst, src, RoundMode::CAST_NONE, count);
        }
    }
    __aicore__ inline void Compute(uint32_t n)
    {
        LocalTensor<T> xl = inQ.DeQue<T>();
        LocalTensor<T> yl = outQ.AllocTensor<T>();
        LocalTensor<float> f = floatBuf.Get<float>();
        LocalTensor<float> sq = sqBuf.Get<float>();
        LocalTensor<float> s = scalarBuf.Get<float>();
        int32_t h = static_cast<int32_t>(hidden);
        ToFloat(f, xl, n * padH);
        inQ.FreeTensor(xl);
        for (uint32_t i = 0; i < n; i++) {
            LocalTensor<float> row = f[i * padH];
            Mul(sq, row, row, h);
            ReduceSum(s, sq, workBuf.Get<float>(), h);
            float meanSq = s.GetValue(0) / static_cast<float>(hidden);
            Duplicate(s, meanSq + eps, 8);
            Rsqrt(s, s, 8);
            Muls(row, row, s.GetValue(0), h);
            Mul(row, row, gammaBuf.Get<float>(), h);
        }
        if constexpr (IsSameType<T, float>::value) {
            DataCopy(yl, f, n * padH);
        } else {
            Cast(yl, f, RoundMode::CAST_RINT, n * padH);
        }
        outQ.EnQue(yl);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECIN, 1> gammaQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    TBuf<QuePosition::VECCALC> floatBuf, gammaBuf, sqBuf, workBuf, scalarBuf;
    GlobalTensor<T> xGm, yGm, gammaGm;
    uint32_t myRows = 0, hidden = 0, padH = 0, tileRows = 0;
    float eps = 0.0f;
};

extern "C" __global__ __aicore__ void rms_norm_custom(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelRmsNorm<DTYPE_X> op;
    op.Init(x, gamma, y, t.hidden, t.rowsPerCore, t.extraRows, t.tileRows, t.epsilon);
    op.Process();
}
