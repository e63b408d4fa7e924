// A lane walk over operands of different element types, for the mask/repeat forms of the
// compare/select, reduce and data-rearranging instructions: bounds-checked element indices
// per lane, then the touched span of every operand reported to the hazard tracker (reads
// before writes), like one vector instruction.
#pragma once
#include "kw/vec_engine.h"

namespace kw {

struct Operand {
    AscendC::Hardware hw;
    uint32_t addr;
    uint64_t size;  // elements
    OperandLayout layout;
    const char* name;
    bool write;
};

template <class T>
inline Operand operand(const LocalTensor<T>& t, uint32_t blk, uint32_t rep, const char* name, bool write) {
    return {t.hw(), t.addr_, t.GetSize(), {uint32_t(sizeof(T)), blk, rep}, name, write};
}

// fn(idx) or fn(idx, r, j) per active lane; returns after reporting the touched spans.
template <int N, class Fn>
void lanes_pass(const char* api, const LaneMask& m, uint32_t repeats, uint32_t lanes, const Operand (&ops)[N], Fn fn) {
    OperandLayout lay[N];
    uint64_t sizes[N], lo[N], hi[N];
    const char* names[N];
    AscendC::Hardware hw[N];
    uint32_t addr[N];
    bool wr[N];
    for (int o = 0; o < N; ++o) {
        lay[o] = ops[o].layout;
        sizes[o] = ops[o].size;
        names[o] = ops[o].name;
        hw[o] = ops[o].hw;
        addr[o] = ops[o].addr;
        wr[o] = ops[o].write;
    }
    for_each_lane<N>(api, m, repeats, lanes, lay, sizes, names, lo, hi, fn);
    touch_spans<N>(api, hw, addr, lay, lo, hi, wr, names);
}

// Bit strings (compare results, select and gather masks): bit i is bit i%8 of byte i/8.
inline bool bit_of(const uint8_t* bytes, uint64_t i) { return (bytes[i / 8] >> (i % 8)) & 1u; }
inline void put_bit(uint8_t* bytes, uint64_t i, bool v) {
    if (v) bytes[i / 8] = uint8_t(bytes[i / 8] | (1u << (i % 8)));
    else bytes[i / 8] = uint8_t(bytes[i / 8] & ~(1u << (i % 8)));
}

inline LaneMask all_lanes(uint32_t lanes) {
    LaneMask m;
    for (uint32_t j = 0; j < lanes; ++j) m.bits[j / 64] |= 1ull << (j % 64);
    return m;
}
inline LaneMask counter_lanes(uint64_t total) {
    LaneMask m;
    m.counter = true;
    m.total = total;
    return m;
}
inline uint64_t repeats_run(const LaneMask& m, uint32_t repeats, uint32_t lanes) {
    return m.counter ? (m.total + lanes - 1) / lanes : repeats;
}

}  // namespace kw
