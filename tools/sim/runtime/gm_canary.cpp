// Raw-pointer writes past a GM buffer's end: the AscendC copy APIs are checked as they run
// (gm.cpp), but a plain store through a __gm__ pointer is not. Every buffer's bytes from its end
// to the guard page start as canaries; after the launches, a changed canary that no API wrote is a
// raw overrun (farther ones hit the guard page and crash).
#include <string>
#include "internal.h"

namespace kw::rt {

bool gm_check_canaries() {
    bool clean = true;
    for (GmBuffer* b : gm_buffers()) {
        uint64_t first = 0, last = 0, count = 0;
        for (uint64_t i = b->bytes; i < b->span; ++i) {
            if (b->base[i] == kGmCanary) continue;
            if (i < b->segment && b->tail_written && b->tail_written[i - b->bytes]) continue;
            if (count++ == 0) first = i;
            last = i;
        }
        if (!count) continue;
        clean = false;
        Diag("gm.raw_overrun", "GM store")
            .msg("bytes [" + std::to_string(first) + ", " + std::to_string(last + 1) + ") of '" + b->name + "', which holds " +
                 std::to_string(b->bytes) + " bytes, were written past its end without an AscendC copy (a store through a "
                 "raw __gm__ pointer, " + std::to_string(first - b->bytes) + " bytes past the end at the first)")
            .val("buffer", b->name).val("bytes", (long long)b->bytes).val("first", (long long)first)
            .val("last", (long long)last)
            .hint("on the NPU this silently corrupts whatever the allocator placed after the tensor (or faults); check the "
                  "index bound of scalar stores to GM (the last block's tail, an off-by-one in the loop)")
            .error();
    }
    return clean;
}

}  // namespace kw::rt
