// WaitFlag<MTE2_V> with no SetFlag<MTE2_V> before it: the vector pipe would wait forever.
using namespace AscendC;

class TBufFlags {
public:
    __aicore__ inline TBufFlags() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t tile)
    {
        blockLen = total / GetBlockNum();
        tileLen = tile;
        xGm.SetGlobalBuffer((__gm__ float*)x + blockLen * GetBlockIdx(), blockLen);
        yGm.SetGlobalBuffer((__gm__ float*)y + blockLen * GetBlockIdx(), blockLen);
        pipe.InitBuffer(inBuf, tileLen * sizeof(float));
        pipe.InitBuffer(outBuf, tileLen * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> in = inBuf.Get<float>();
        LocalTensor<float> out = outBuf.Get<float>();
        event_t inReady = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE2_V));
        event_t outReady = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_MTE3));
        event_t inFree = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_MTE2));
        event_t outFree = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE3_V));
        for (uint32_t off = 0; off < blockLen; off += tileLen) {
            if (off > 0) {
                WaitFlag<HardEvent::V_MTE2>(inFree);
            }
            DataCopy(in, xGm[off], tileLen);
            WaitFlag<HardEvent::MTE2_V>(inReady);
            if (off > 0) {
                WaitFlag<HardEvent::MTE3_V>(outFree);
            }
            Abs(out, in, tileLen);
            SetFlag<HardEvent::V_MTE2>(inFree);
            Sqrt(out, out, tileLen);
            Adds(out, out, 1.0f, tileLen);
            SetFlag<HardEvent::V_MTE3>(outReady);
            WaitFlag<HardEvent::V_MTE3>(outReady);
            DataCopy(yGm[off], out, tileLen);
            SetFlag<HardEvent::MTE3_V>(outFree);
        }
        WaitFlag<HardEvent::V_MTE2>(inFree);
        WaitFlag<HardEvent::MTE3_V>(outFree);
    }

private:
    TPipe pipe;
    TBuf<QuePosition::VECCALC> inBuf, outBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t blockLen = 0, tileLen = 0;
};

extern "C" __global__ __aicore__ void tbuf_flags_f32(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t tile)
{
    TBufFlags op;
    op.Init(x, y, total, tile);
    op.Process();
}
