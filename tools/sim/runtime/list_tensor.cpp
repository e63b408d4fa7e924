// Tensor lists (DYNAMIC inputs/outputs of msopgen ops): the runner builds, for each list, the GM
// descriptor CANN hands the kernel in place of a data pointer. Layout: see include/kw/list_tensor.h.
#include <cstring>
#include "internal.h"
#include "kw/list_tensor.h"

namespace kw::rt {

GmBuffer* gm_register_list(const std::string& name, const std::vector<GmBuffer*>& members,
                           const std::vector<std::vector<int64_t>>& dims) {
    std::vector<uint64_t> words{0};
    for (size_t i = 0; i < members.size(); ++i) {
        const std::vector<int64_t>& d = dims[i];
        words.push_back(uint64_t(d.size()) | (uint64_t(i) << 32));
        if (d.empty()) words.push_back(0xffffffffull);  // a 0-d tensor keeps one (filler) shape word
        for (int64_t v : d) words.push_back(uint64_t(v));
    }
    words[0] = words.size() * sizeof(uint64_t);
    for (GmBuffer* m : members) words.push_back(uint64_t(reinterpret_cast<uintptr_t>(m->base)));
    GmBuffer* b = gm_register(name, words.size() * sizeof(uint64_t), "list");
    std::memcpy(b->base, words.data(), b->bytes);
    return b;
}

bool gm_is_list_descriptor(const void* p) {
    for (GmBuffer* b : gm_buffers())
        if (b->role == "list" && b->base == p) return true;
    return false;
}

}  // namespace kw::rt
