// The multiply-accumulate core of the cube emulation (Mmad and the Matmul API): C += A x B on
// row-major host buffers, vectorised with the compiler's vector extensions (the runtime builds
// at -O1, where loops are not auto-vectorised). Every element of C still receives its products
// one k after another, in increasing k, so the result is bit-identical to the scalar loop
// `for k: c[i][j] += a[i][k] * b[k][j]` (and to the DSL interpreter, which sums the same way).
#include <algorithm>
#include <cstring>
#include "kw/runtime.h"

// A product and its addition are two roundings, as in the scalar loop and in NumPy: no FMA.
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace kw::rt {
namespace {
typedef float v8 __attribute__((vector_size(32), aligned(4)));

inline v8 load8(const float* p) {
    v8 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void store8(float* p, v8 v) { std::memcpy(p, &v, sizeof v); }

constexpr uint32_t kKBlock = 128;  // k rows of B kept hot while the rows of A pass over them
constexpr uint32_t kJBlock = 512;  // columns of C per pass (4 rows of them stay in L1)

// Rows [i, i + R) of C over columns [j0, j1) and k in [k0, k1).
template <int R>
void rows_pass(float* c, const float* a, const float* b, uint32_t n, uint32_t k, uint32_t i, uint32_t j0, uint32_t j1, uint32_t k0,
               uint32_t k1) {
    float* cr[R];
    const float* ar[R];
    for (int r = 0; r < R; ++r) cr[r] = c + uint64_t(i + r) * n, ar[r] = a + uint64_t(i + r) * k;
    uint32_t j = j0;
    for (; j + 8 <= j1; j += 8) {
        v8 acc[R];
        for (int r = 0; r < R; ++r) acc[r] = load8(cr[r] + j);
        const float* bp = b + uint64_t(k0) * n + j;
        for (uint32_t kk = k0; kk < k1; ++kk, bp += n) {
            const v8 bv = load8(bp);
            for (int r = 0; r < R; ++r) {
                const v8 prod = ar[r][kk] * bv;
                acc[r] = acc[r] + prod;
            }
        }
        for (int r = 0; r < R; ++r) store8(cr[r] + j, acc[r]);
    }
    for (; j < j1; ++j)
        for (int r = 0; r < R; ++r) {
            float s = cr[r][j];
            for (uint32_t kk = k0; kk < k1; ++kk) {
                const float prod = ar[r][kk] * b[uint64_t(kk) * n + j];
                s = s + prod;
            }
            cr[r][j] = s;
        }
}
}  // namespace

void gemm_f32(float* c, const float* a, const float* b, uint32_t m, uint32_t n, uint32_t k) {
    for (uint32_t k0 = 0; k0 < k; k0 += kKBlock) {
        const uint32_t k1 = std::min(k, k0 + kKBlock);
        for (uint32_t j0 = 0; j0 < n; j0 += kJBlock) {
            const uint32_t j1 = std::min(n, j0 + kJBlock);
            uint32_t i = 0;
            for (; i + 4 <= m; i += 4) rows_pass<4>(c, a, b, n, k, i, j0, j1, k0, k1);
            for (; i < m; ++i) rows_pass<1>(c, a, b, n, k, i, j0, j1, k0, k1);
        }
    }
}

// int8 x int8 -> int32: exact in any order; wraps as the 32-bit accumulator does.
void gemm_i32(int32_t* c, const int32_t* a, const int32_t* b, uint32_t m, uint32_t n, uint32_t k) {
    for (uint32_t i = 0; i < m; ++i) {
        uint32_t* cr = reinterpret_cast<uint32_t*>(c + uint64_t(i) * n);
        for (uint32_t kk = 0; kk < k; ++kk) {
            const uint32_t x = uint32_t(a[uint64_t(i) * k + kk]);
            const int32_t* br = b + uint64_t(kk) * n;
            for (uint32_t j = 0; j < n; ++j) cr[j] += x * uint32_t(br[j]);
        }
    }
}

const float* half_to_float_table() {
    static float* table = [] {
        static float t[65536];
        for (uint32_t i = 0; i < 65536; ++i) {
            const uint16_t bits = uint16_t(i);
            _Float16 h;
            std::memcpy(&h, &bits, sizeof h);
            t[i] = float(h);
        }
        return t;
    }();
    return table;
}

}  // namespace kw::rt
