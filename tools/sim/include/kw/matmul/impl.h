// The Matmul high-level API (CANN 8.x MatmulImpl interface). On 910B the API runs on the cube
// core of a MIX launch and talks to the vector core that calls it; here the whole product is
// computed inside the calling block, block by block (baseM x baseN, k in baseK steps, fp32 or
// int32 accumulation as in L0C), with the GM reads and writes, atomics and counters the real
// one would do. Iteration order, tails, transposes, bias and output conversion follow the tiling.
#pragma once
#include "kw/matmul/config.h"
#include "kw/matmul/operand.h"

namespace AscendC {

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<nullptr, nullptr, nullptr>, MATMUL_POLICY_DEFAULT_OF(MatmulPolicy), typename = void>
class MatmulImpl {
public:
    using AType = A_TYPE;
    using BType = B_TYPE;
    using CType = C_TYPE;
    using BiasType = BIAS_TYPE;
    using CallBack = MM_CB;

private:
    using SrcT = typename A_TYPE::T;
    using SrcAT = typename A_TYPE::T;
    using SrcBT = typename B_TYPE::T;
    using DstT = typename C_TYPE::T;
    using BiasT = typename BIAS_TYPE::T;
    using L0cT = typename GetDstType<SrcAT>::Type;
    static_assert(sizeof(SrcAT) == sizeof(SrcBT) || IsSameType<SrcBT, int8_t>::value,
                  "Matmul: A and B must have the same data type (half/half, bfloat16_t/bfloat16_t, float/float, int8_t/int8_t)");
    static_assert(IsSameType<L0cT, float>::value ? !IsSameType<DstT, int32_t>::value : true,
                  "Matmul: a float accumulator (half/bf16/float inputs) cannot be written as int32_t");

public:
    MatmulImpl() {}
    ~MatmulImpl() {
        if (used_ && !ended_)
            kw::rt::Diag("mm.end_missing", "Matmul")
                .msg("a Matmul object that computed was destroyed without End(); on a MIX launch the cube core keeps waiting for "
                     "its next message")
                .hint("call mm.End() after the last IterateAll/GetTensorC")
                .warn();
    }

    void Init(const TCubeTiling* __restrict cubeTiling, TPipe* tpipe = nullptr) {
        (void)tpipe;
        if (cubeTiling == nullptr)
            kw::mm::fail("mm.tiling", "Matmul::Init", "Init received a null TCubeTiling pointer",
                         "pass the tiling struct read with GET_TILING_DATA (e.g. &tilingData.cubeTilingData)");
        t_ = kw::mm::view(*cubeTiling);
        kw::mm::check_tiling(t_, sizeof(SrcAT), sizeof(SrcBT), sizeof(L0cT), 32 / sizeof(SrcAT), t_.isBias != 0);
        orgM_ = t_.M, orgN_ = t_.N, orgKa_ = t_.Ka, orgKb_ = t_.Kb > 0 ? t_.Kb : t_.Ka, orgKc_ = 0;
        m_ = t_.singleM, n_ = t_.singleN, k_ = t_.singleK;
        biasOn_ = t_.isBias != 0;
        init_ = true;
        reset_iteration();
    }
    void SetOrgShape(int orgM, int orgN, int orgK) { SetOrgShape(orgM, orgN, orgK, orgK, 0); }
    void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0) {
        orgM_ = orgM, orgN_ = orgN, orgKa_ = orgKa, orgKb_ = orgKb, orgKc_ = orgKc;
        t_.M = orgM, t_.N = orgN, t_.Ka = orgKa, t_.Kb = orgKb;
    }
    void SetSingleShape(int singleM, int singleN, int singleK) {
        kw::mm::check_init("Matmul::SetSingleShape", init_);
        kw::mm::check_shape("Matmul::SetSingleShape", singleM, singleN, singleK, t_);
        m_ = singleM, n_ = singleN, k_ = singleK;
        reset_iteration();
    }
    void SetTail(int tailM = -1, int tailN = -1, int tailK = -1) {
        kw::mm::check_init("Matmul::SetTail", init_);
        int m = tailM > 0 ? tailM : m_, n = tailN > 0 ? tailN : n_, k = tailK > 0 ? tailK : k_;
        kw::mm::check_shape("Matmul::SetTail", m, n, k, t_);
        m_ = m, n_ = n, k_ = k;
        reset_iteration();
    }

    void SetTensorA(const GlobalTensor<SrcAT>& gm, bool isTransposeA = false) { set_gm(a_, gm.addr_, isTransposeA || A_TYPE::isTrans, A_TYPE::format, "A"); }
    void SetTensorB(const GlobalTensor<SrcBT>& gm, bool isTransposeB = false) { set_gm(b_, gm.addr_, isTransposeB || B_TYPE::isTrans, B_TYPE::format, "B"); }
    void SetTensorA(const LocalTensor<SrcAT>& leftMatrix, bool isTransposeA = false) {
        set_local(a_, leftMatrix, isTransposeA || A_TYPE::isTrans, A_TYPE::format, "A");
    }
    void SetTensorB(const LocalTensor<SrcBT>& rightMatrix, bool isTransposeB = false) {
        set_local(b_, rightMatrix, isTransposeB || B_TYPE::isTrans, B_TYPE::format, "B");
    }
    void SetTensorA(SrcAT aScalar) { set_scalar(a_, aScalar, "A"); }
    void SetTensorB(SrcBT bScalar) { set_scalar(b_, bScalar, "B"); }
    void SetTensorAWithCopy(const GlobalTensor<SrcAT>& gm, const LocalTensor<SrcAT>&, bool isTransposeA = false) { SetTensorA(gm, isTransposeA); }
    void SetTensorBWithCopy(const GlobalTensor<SrcBT>& gm, const LocalTensor<SrcBT>&, bool isTransposeB = false) { SetTensorB(gm, isTransposeB); }
    void SetBias(const GlobalTensor<BiasT>& biasGlobal) {
        bias_.base = biasGlobal.addr_, bias_.gm = true, bias_.set = true, bias_.name = "bias";
        biasOn_ = true;
    }
    void SetBias(const LocalTensor<BiasT>& inputBias) {
        bias_.base = inputBias.ptr(), bias_.gm = false, bias_.set = true, bias_.local_elems = inputBias.GetSize(), bias_.name = "bias";
        biasOn_ = true;
    }
    void DisableBias() { biasOn_ = false; }
    void ClearBias() { biasOn_ = false; }
    void SetBatchNum(int32_t batchA, int32_t batchB) { batchA_ = batchA, batchB_ = batchB; }
    void SetSelfDefineData(const uint64_t) {}
    void SetUserDefInfo(const uint64_t) {}
    void SetQuantScalar(const uint64_t quantScalar) { quantScalar_ = quantScalar, quantVector_ = nullptr; }
    void SetQuantVector(const GlobalTensor<uint64_t>& quantTensor) { quantVector_ = quantTensor.addr_; }
    void SetAntiQuantScalar(const SrcT, const SrcT) { unsupported("SetAntiQuantScalar"); }
    void SetAntiQuantVector(const LocalTensor<SrcT>&, const LocalTensor<SrcT>&) { unsupported("SetAntiQuantVector"); }
    void SetHF32(bool enableHF32 = false, int32_t transMode = 0) { hf32_ = enableHF32, (void)transMode; }
    void SetSubBlockIdx(uint8_t subBlockIdx) { subBlockIdx_ = subBlockIdx; }
    uint8_t GetSubBlockIdx() { return subBlockIdx_; }
    template <class T> void SetWorkspace(__gm__ const T*, int) {}
    template <class T> void SetWorkspace(GlobalTensor<T>&) {}
    void SetLocalWorkspace(const LocalTensor<uint8_t>&) {}

    // Computes the next baseM x baseN block of C over the whole K; false once every block is done.
    template <bool sync = true> bool Iterate(bool enPartialSum = false) {
        kw::mm::check_ready("Matmul::Iterate", init_, a_.set, b_.set);
        if (!next_block()) return false;
        compute_block(enPartialSum);
        return true;
    }

    template <bool sync = true>
    void IterateAll(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false, bool waitIterateAll = false,
                    bool fakeMsg = false) {
        (void)waitIterateAll, (void)fakeMsg;
        kw::mm::check_ready("Matmul::IterateAll", init_, a_.set, b_.set);
        reset_iteration();
        while (next_block()) {
            compute_block(false);
            write_gm(gm.addr_, enAtomic, enSequentialWrite);
        }
        reset_iteration();
    }
    template <bool sync = true> void IterateAll(const LocalTensor<DstT>& ubCmatrix, uint8_t enAtomic = 0) {
        kw::mm::check_ready("Matmul::IterateAll", init_, a_.set, b_.set);
        reset_iteration();
        while (next_block()) {
            compute_block(false);
            write_local(ubCmatrix, enAtomic, cur_.r0, cur_.c0, align_n(n_));
        }
        reset_iteration();
    }
    void WaitIterateAll() {}
    void WaitIterateBatch() {}

    // Batched products: batchA x (M x K) times batchB x (K x N); strides in elements (0 = dense).
    void IterateBatch(const GlobalTensor<DstT>& gm, bool enPartialSum, uint8_t enAtomic, bool enSequentialWrite,
                      const uint32_t matrixStrideA = 0, const uint32_t matrixStrideB = 0, const uint32_t matrixStrideC = 0) {
        (void)enPartialSum;
        kw::mm::check_ready("Matmul::IterateBatch", init_, a_.set, b_.set);
        int batches = batchA_ > batchB_ ? batchA_ : batchB_;
        kw::mm::Operand<SrcAT> a0 = a_;
        kw::mm::Operand<SrcBT> b0 = b_;
        for (int i = 0; i < batches; ++i) {
            a_.base = a0.base + uint64_t(batchA_ > 1 ? i : 0) * (matrixStrideA ? matrixStrideA : uint64_t(m_) * k_);
            b_.base = b0.base + uint64_t(batchB_ > 1 ? i : 0) * (matrixStrideB ? matrixStrideB : uint64_t(k_) * n_);
            DstT* c = gm.addr_ + uint64_t(i) * (matrixStrideC ? matrixStrideC : uint64_t(m_) * n_);
            reset_iteration();
            while (next_block()) {
                compute_block(false);
                write_gm(c, enAtomic, enSequentialWrite);
            }
        }
        a_ = a0, b_ = b0;
        reset_iteration();
    }

    template <bool sync = true> void GetTensorC(const LocalTensor<DstT>& co2Local, uint8_t enAtomic = 0, bool enSequentialWrite = false) {
        (void)enSequentialWrite;
        require_block("Matmul::GetTensorC");
        write_local(co2Local, enAtomic, 0, 0, align_n(cur_.cols));
    }
    template <bool sync = true> void GetTensorC(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false) {
        require_block("Matmul::GetTensorC");
        write_gm(gm.addr_, enAtomic, enSequentialWrite);
    }
    template <bool sync = true>
    void GetTensorC(const GlobalTensor<DstT>& gm, const LocalTensor<DstT>& co2Local, uint8_t enAtomic = 0, bool enSequentialWrite = false) {
        GetTensorC<sync>(gm, enAtomic, enSequentialWrite);
        write_local(co2Local, 0, 0, 0, align_n(cur_.cols));
    }
    template <bool isTurnOnDebug = true> MatrixOffset GetOffsetC() {
        return MatrixOffset{int32_t(cur_.r0 * ldc() + cur_.c0), int32_t(cur_.r0), int32_t(cur_.c0), int32_t(cur_.rows), int32_t(cur_.cols)};
    }
    void End() {
        ended_ = true;
        reset_iteration();
    }

    // ---- emulation internals ----
    bool kw_initialised() const { return init_; }

private:
    struct Block {
        uint32_t r0 = 0, c0 = 0, rows = 0, cols = 0;
        bool valid = false;
    };

    static uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
    static uint32_t align_n(uint32_t n) { return ceil_div(n, 32 / sizeof(DstT)) * (32 / sizeof(DstT)); }
    uint64_t ldc() const { return orgKc_ > 0 ? uint64_t(orgKc_) : uint64_t(orgN_); }

    [[noreturn]] void unsupported(const char* api) {
        kw::mm::fail("mm.unsupported", api, std::string(api) + " (anti-quantisation) is not emulated",
                     "compute with matching A/B types, or dequantise on the vector side");
    }

    template <class T> void set_gm(kw::mm::Operand<T>& op, const T* p, bool trans, CubeFormat fmt, const char* name) {
        op = kw::mm::Operand<T>();
        op.base = p, op.gm = true, op.set = true, op.trans = trans, op.nz = fmt == CubeFormat::NZ, op.name = name;
        layout(op);
    }
    template <class T> void set_local(kw::mm::Operand<T>& op, const LocalTensor<T>& t, bool trans, CubeFormat fmt, const char* name) {
        op = kw::mm::Operand<T>();
        op.base = t.ptr(), op.gm = false, op.set = true, op.trans = trans, op.nz = fmt == CubeFormat::NZ, op.name = name;
        op.local_elems = t.GetSize();
        layout(op);
    }
    template <class T> void set_scalar(kw::mm::Operand<T>& op, T v, const char* name) {
        op = kw::mm::Operand<T>();
        op.scalar = true, op.set = true, op.value = v, op.name = name;
    }
    // Row stride (ND) or padded row count (NZ) of the stored matrix, from the original shape.
    template <class T> void layout(kw::mm::Operand<T>& op) {
        if (op.scalar || !op.set) return;
        bool isA = op.name[0] == 'A';
        uint64_t rows = isA ? (op.trans ? orgKa_ : orgM_) : (op.trans ? orgN_ : orgKb_);
        uint64_t cols = isA ? (op.trans ? orgM_ : orgKa_) : (op.trans ? orgKb_ : orgN_);
        op.ld = op.nz ? (rows + 15) / 16 * 16 : cols;
    }

    void reset_iteration() {
        iter_ = 0;
        cur_ = Block();
    }
    // The tiling's iteration order: ORDER_M walks down M first (block index m fastest).
    bool next_block() {
        uint32_t mIter = ceil_div(m_, t_.baseM), nIter = ceil_div(n_, t_.baseN);
        if (iter_ >= mIter * nIter) {
            cur_.valid = false;
            return false;
        }
        bool orderN = MM_CFG_ORDER() == IterateOrder::ORDER_N ||
                      (MM_CFG_ORDER() == IterateOrder::UNDEF && t_.iterateOrder == int(IterateOrder::ORDER_N));
        uint32_t mi = orderN ? iter_ / nIter : iter_ % mIter, ni = orderN ? iter_ % nIter : iter_ / mIter;
        ++iter_;
        cur_.r0 = mi * t_.baseM, cur_.c0 = ni * t_.baseN;
        cur_.rows = uint32_t(m_) - cur_.r0 < uint32_t(t_.baseM) ? uint32_t(m_) - cur_.r0 : uint32_t(t_.baseM);
        cur_.cols = uint32_t(n_) - cur_.c0 < uint32_t(t_.baseN) ? uint32_t(n_) - cur_.c0 : uint32_t(t_.baseN);
        cur_.valid = true;
        return true;
    }
    static constexpr IterateOrder MM_CFG_ORDER() { return kw_config_order(MM_CFG); }
    static constexpr IterateOrder kw_config_order(const MatmulConfig& c) { return c.iterateOrder; }
    static constexpr IterateOrder kw_config_order(const MatmulApiStaticTiling& c) { return c.cfg.iterateOrder; }

    void require_block(const char* api) {
        if (!cur_.valid)
            kw::mm::fail("mm.no_block", api, std::string(api) + " without a block: Iterate() was not called or already returned false",
                         "use `while (mm.Iterate()) { mm.GetTensorC(...); }`");
    }

    // acc_[i * cols + j] = sum over k of A(r0+i, k) * B(k, c0+j) (+ bias), in the L0C type.
    void compute_block(bool partial) {
        used_ = true;
        layout(a_), layout(b_);  // SetOrgShape may come after SetTensorA/B
        const Block& b = cur_;
        if (!partial) acc_.assign(size_t(b.rows) * b.cols, L0cT(0));
        a_.check_block(b.r0, b.rows, 0, k_, "Matmul::Iterate");
        b_.check_block(0, k_, b.c0, b.cols, "Matmul::Iterate");
        std::vector<L0cT> av(size_t(b.rows) * t_.baseK), bv(size_t(t_.baseK) * b.cols);
        for (uint32_t k0 = 0; k0 < uint32_t(k_); k0 += t_.baseK) {
            uint32_t kn = uint32_t(k_) - k0 < uint32_t(t_.baseK) ? uint32_t(k_) - k0 : uint32_t(t_.baseK);
            for (uint32_t i = 0; i < b.rows; ++i)
                for (uint32_t kk = 0; kk < kn; ++kk) av[i * kn + kk] = load(a_.at(b.r0 + i, k0 + kk));
            for (uint32_t kk = 0; kk < kn; ++kk)
                for (uint32_t j = 0; j < b.cols; ++j) bv[kk * b.cols + j] = load(b_.at(k0 + kk, b.c0 + j));
            if constexpr (IsSameType<L0cT, float>::value) kw::rt::gemm_f32(acc_.data(), av.data(), bv.data(), b.rows, b.cols, kn);
            else kw::rt::gemm_i32(acc_.data(), av.data(), bv.data(), b.rows, b.cols, kn);
            kw::rt::count_cube("Mmad", kw::dtype_name<SrcAT>(), uint64_t(ceil_div(b.rows, 16)) * ceil_div(b.cols, 16) * ceil_div(kn, 32 / sizeof(SrcAT)),
                           uint64_t(b.rows) * b.cols * kn, b.rows, b.cols, kn);
        }
        kw::rt::count_copy(Hardware::GM, Hardware::L1, (uint64_t(b.rows) * sizeof(SrcAT) + uint64_t(b.cols) * sizeof(SrcBT)) * k_);
        if (biasOn_ && !partial) add_bias();
    }
    template <class T> L0cT load(T v) const {
        if constexpr (IsSameType<L0cT, float>::value) {
            float f = kw::cube::widen<float>(v, halfTable_);
            return hf32_ && IsSameType<T, float>::value ? kw::mm::to_hf32(f) : f;
        } else {
            return L0cT(v);
        }
    }
    void add_bias() {
        if (!bias_.set)
            kw::mm::fail("mm.bias", "Matmul::Iterate", "the tiling enables bias (isBias = 1) but SetBias was never called",
                         "call mm.SetBias(biasGm) before computing, or DisableBias() / leave SetBias(false) on the host");
        const Block& b = cur_;
        if (bias_.gm) kw::rt::access_gm(kw::Pipe::S, bias_.base + b.c0, uint64_t(b.cols) * sizeof(BiasT), false, "Matmul::Iterate", "bias");
        else if (b.c0 + b.cols > bias_.local_elems)
            kw::mm::fail("mm.local_size", "Matmul::Iterate", "the local bias tensor holds " + kw::mm::s(bias_.local_elems) +
                         " elements but column " + kw::mm::s(b.c0 + b.cols - 1) + " is needed", "give SetBias a tensor of singleCoreN elements");
        for (uint32_t i = 0; i < b.rows; ++i)
            for (uint32_t j = 0; j < b.cols; ++j) acc_[size_t(i) * b.cols + j] += L0cT(kw::acc_t<BiasT>(bias_.base[b.c0 + j]));
    }

    // The accumulator through the fixpipe: rounding to the output type or (int32) dequantisation.
    DstT convert(L0cT v, uint32_t col) const {
        if constexpr (IsSameType<L0cT, int32_t>::value && !IsSameType<DstT, int32_t>::value) {
            uint64_t q = quantVector_ ? quantVector_[cur_.c0 + col] : quantScalar_;
            float f = float(v) * __builtin_bit_cast(float, uint32_t(q & 0xffffffffu));
            if constexpr (IsSameType<DstT, int8_t>::value) {
                f = std::nearbyint(f);
                return DstT(f > 127.f ? 127.f : f < -128.f ? -128.f : f);
            } else {
                return DstT(f);
            }
        } else {
            return static_cast<DstT>(v);
        }
    }

    void write_gm(DstT* c, uint8_t enAtomic, bool sequential) {
        const Block& b = cur_;
        int prev = kw::rt::atomic_mode();
        if (enAtomic) kw::rt::set_atomic(enAtomic, kw::dtype_name<DstT>());
        const bool nz = C_TYPE::format == CubeFormat::NZ;
        const uint64_t rowsNz = (uint64_t(orgM_) + 15) / 16 * 16;
        for (uint32_t i = 0; i < b.rows; ++i) {
            for (uint32_t j = 0; j < b.cols; ++j) {
                uint64_t r = sequential ? i : b.r0 + i, col = sequential ? j : b.c0 + j;
                uint64_t off = sequential ? uint64_t(i) * b.cols + j : nz ? (col / 16) * rowsNz * 16 + r * 16 + col % 16 : r * ldc() + col;
                DstT v = convert(acc_[size_t(i) * b.cols + j], j);
                DstT* e = c + off;
                if (enAtomic == 0)   // a block storing the values another block stored is no race (as DataCopy)
                    kw::rt::access_gm_store(kw::Pipe::S, e, sizeof(DstT), &v, "Matmul::GetTensorC", "C");
                else
                    kw::rt::access_gm(kw::Pipe::S, e, sizeof(DstT), true, "Matmul::GetTensorC", "C");
                *e = enAtomic == 0 ? v : atomic(*e, v, enAtomic);
            }
        }
        if (enAtomic) kw::rt::set_atomic(prev, "");
        kw::rt::count_copy(Hardware::L0C, Hardware::GM, uint64_t(b.rows) * b.cols * sizeof(DstT));
    }
    // A block into a local (UB) tensor at (r0, c0) with rows `ld` elements apart.
    void write_local(const LocalTensor<DstT>& dst, uint8_t enAtomic, uint32_t r0, uint32_t c0, uint32_t ld) {
        const Block& b = cur_;
        uint64_t need = (uint64_t(r0 + b.rows - 1) * ld + c0 + b.cols) * sizeof(DstT);
        kw::require_room(dst, need, "Matmul::GetTensorC", "dst");
        kw::rt::access_local(kw::Pipe::S, dst.hw(), dst.addr_, need, true, "Matmul::GetTensorC", "dst");
        DstT* d = dst.ptr();
        for (uint32_t i = 0; i < b.rows; ++i)
            for (uint32_t j = 0; j < b.cols; ++j) {
                DstT v = convert(acc_[size_t(i) * b.cols + j], j);
                DstT& e = d[uint64_t(r0 + i) * ld + c0 + j];
                e = enAtomic == 0 ? v : atomic(e, v, enAtomic);
            }
        kw::rt::count_copy(Hardware::L0C, dst.hw(), uint64_t(b.rows) * b.cols * sizeof(DstT));
    }
    static DstT atomic(DstT old, DstT v, uint8_t mode) {
        kw::acc_t<DstT> a = kw::acc_t<DstT>(old), b = kw::acc_t<DstT>(v);
        return DstT(mode == 1 ? a + b : mode == 2 ? (a > b ? a : b) : (a < b ? a : b));
    }

    kw::mm::TilingView t_{};
    int orgM_ = 0, orgN_ = 0, orgKa_ = 0, orgKb_ = 0, orgKc_ = 0;
    int m_ = 0, n_ = 0, k_ = 0;
    int batchA_ = 1, batchB_ = 1;
    kw::mm::Operand<SrcAT> a_;
    kw::mm::Operand<SrcBT> b_;
    kw::mm::Operand<BiasT> bias_;
    bool biasOn_ = false, init_ = false, hf32_ = false, used_ = false, ended_ = false;
    uint64_t quantScalar_ = 0x3f800000u;  // 1.0f
    const uint64_t* quantVector_ = nullptr;
    uint8_t subBlockIdx_ = 0;
    uint32_t iter_ = 0;
    Block cur_;
    std::vector<L0cT> acc_;
    const float* halfTable_ = kw::rt::half_to_float_table();
};

}  // namespace AscendC
