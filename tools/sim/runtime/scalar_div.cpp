// Integer division by zero in kernel code. The AI Core's scalar unit does not trap on it (Catlass kernels, e.g.
// NPUKernelBench's OptimizedMatmul, compute `idx % CeilDiv(nextK)` with no next block and never use the result,
// and pass on the NPU); x86 raises SIGFPE. The handler finishes the faulting div/idiv as quotient 0, remainder
// the dividend (x - (x / 0) * 0, as AArch64's udiv/sdiv give), steps past it and warns once per instruction.
#include <ucontext.h>
#include <cstdint>
#include "internal.h"

namespace kw::rt {

#if defined(__x86_64__)
namespace {

struct DivInsn {
    int length = 0;    // bytes; 0: not a div/idiv this decoder knows
    int bits = 32;     // operand size
};

// DIV/IDIV r/m (F6 /6 /7, F7 /6 /7) with legacy prefixes and REX: the instruction's length and width.
DivInsn decode(const uint8_t* p) {
    DivInsn d;
    int i = 0;
    bool size16 = false;
    while (p[i] == 0x66 || p[i] == 0x67 || p[i] == 0xF2 || p[i] == 0xF3 || p[i] == 0x2E || p[i] == 0x3E ||
           p[i] == 0x26 || p[i] == 0x36 || p[i] == 0x64 || p[i] == 0x65) {
        size16 = size16 || p[i] == 0x66;
        if (++i > 4) return d;
    }
    bool wide = false;
    if ((p[i] & 0xF0) == 0x40) wide = (p[i++] & 0x08) != 0;
    uint8_t op = p[i++];
    if (op != 0xF6 && op != 0xF7) return d;
    uint8_t modrm = p[i++];
    int reg = (modrm >> 3) & 7, mod = modrm >> 6, rm = modrm & 7;
    if (reg != 6 && reg != 7) return d;
    if (mod != 3) {
        if (rm == 4 && (p[i++] & 7) == 5 && mod == 0) i += 4;   // SIB with no base: disp32
        else if (rm == 5 && mod == 0) i += 4;                  // RIP-relative disp32
        i += mod == 1 ? 1 : (mod == 2 ? 4 : 0);
    }
    d.length = i;
    d.bits = op == 0xF6 ? 8 : (wide ? 64 : (size16 ? 16 : 32));
    return d;
}

}  // namespace

bool finish_division_by_zero(void* uctx) {
    auto* uc = static_cast<ucontext_t*>(uctx);
    greg_t* g = uc->uc_mcontext.gregs;
    auto* pc = reinterpret_cast<const uint8_t*>(g[REG_RIP]);
    DivInsn d = decode(pc);
    if (!d.length) return false;
    uint64_t rax = static_cast<uint64_t>(g[REG_RAX]);
    switch (d.bits) {   // quotient 0, remainder the dividend's low part
    case 8: g[REG_RAX] = static_cast<greg_t>((rax & ~0xFFFFull) | ((rax & 0xFF) << 8)); break;
    case 16:
        g[REG_RDX] = static_cast<greg_t>((static_cast<uint64_t>(g[REG_RDX]) & ~0xFFFFull) | (rax & 0xFFFF));
        g[REG_RAX] = static_cast<greg_t>(rax & ~0xFFFFull);
        break;
    case 32: g[REG_RDX] = static_cast<greg_t>(rax & 0xFFFFFFFFull); g[REG_RAX] = 0; break;
    default: g[REG_RDX] = static_cast<greg_t>(rax); g[REG_RAX] = 0; break;
    }
    g[REG_RIP] += d.length;
    static const void* warned[16];
    static int n_warned = 0;
    for (int i = 0; i < n_warned; ++i)
        if (warned[i] == pc) return true;
    if (n_warned < 16) warned[n_warned++] = pc;
    Diag("scalar.div_by_zero", "integer division")
        .msg("an integer division or remainder by zero in kernel code: the NPU's scalar unit does not trap on it, "
             "the emulation gives quotient 0 and the dividend as remainder and runs on")
        .hint("harmless when the result is never used (a tile count of a block that does not exist); otherwise "
              "guard the divisor: the value the NPU gives is not documented")
        .at(pc)
        .warn();
    return true;
}
#else
bool finish_division_by_zero(void*) { return false; }
#endif

}  // namespace kw::rt
