// Two unary chains on fp32: softplus(x) = ln(1 + exp(x)) (Exp, Adds, Ln) and
// r = rsqrt(x*x + 1) (Mul, Adds, Rsqrt); also s = 1 / (1 + |x|) (Abs, Adds, Reciprocal).
#include "kernel_operator.h"
using namespace AscendC;

class UnaryChain {
public:
    __aicore__ inline UnaryChain() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR sp, GM_ADDR rs, GM_ADDR rc, uint32_t total, uint32_t tile)
    {
        blockLen = total / GetBlockNum();
        tileLen = tile;
        uint32_t start = blockLen * GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ float*)x + start, blockLen);
        spGm.SetGlobalBuffer((__gm__ float*)sp + start, blockLen);
        rsGm.SetGlobalBuffer((__gm__ float*)rs + start, blockLen);
        rcGm.SetGlobalBuffer((__gm__ float*)rc + start, blockLen);
        pipe.InitBuffer(inQ, 2, tileLen * sizeof(float));
        pipe.InitBuffer(outQ, 3, tileLen * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < blockLen; off += tileLen) {
            LocalTensor<float> xl = inQ.AllocTensor<float>();
            DataCopy(xl, xGm[off], tileLen);
            inQ.EnQue(xl);
            xl = inQ.DeQue<float>();
            int32_t n = static_cast<int32_t>(tileLen);

            LocalTensor<float> sp = outQ.AllocTensor<float>();
            Exp(sp, xl, n);
            Adds(sp, sp, 1.0f, n);
            Ln(sp, sp, n);
            outQ.EnQue(sp);

            LocalTensor<float> rs = outQ.AllocTensor<float>();
            Mul(rs, xl, xl, n);
            Adds(rs, rs, 1.0f, n);
            Rsqrt(rs, rs, n);
            outQ.EnQue(rs);

            LocalTensor<float> rc = outQ.AllocTensor<float>();
            Abs(rc, xl, n);
            Adds(rc, rc, 1.0f, n);
            Reciprocal(rc, rc, n);
            outQ.EnQue(rc);
            inQ.FreeTensor(xl);

            Store(spGm[off]);
            Store(rsGm[off]);
            Store(rcGm[off]);
        }
    }

private:
    __aicore__ inline void Store(const GlobalTensor<float>& dst)
    {
        LocalTensor<float> t = outQ.DeQue<float>();
        DataCopy(dst, t, tileLen);
        outQ.FreeTensor(t);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 3> outQ;
    GlobalTensor<float> xGm, spGm, rsGm, rcGm;
    uint32_t blockLen = 0, tileLen = 0;
};

extern "C" __global__ __aicore__ void unary_chain_f32(GM_ADDR x, GM_ADDR sp, GM_ADDR rs, GM_ADDR rc, uint32_t total, uint32_t tile)
{
    UnaryChain op;
    op.Init(x, sp, rs, rc, total, tile);
    op.Process();
}
