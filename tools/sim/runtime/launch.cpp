// Kernel registry and launches requested by host code (<<<>>>, ICPU_RUN_KF, aclrtlaunch_*).
#include "internal.h"
#include "kw/launch.h"

namespace kw {
std::vector<KernelEntry>& kernel_registry() {
    static std::vector<KernelEntry> r;
    return r;
}
}  // namespace kw

namespace kw::rt {
namespace {
struct FnBody : LaunchBody {
    const std::function<void()>& fn;
    explicit FnBody(const std::function<void()>& f) : fn(f) {}
    void run() override { fn(); }
};
}  // namespace

int launch(uint32_t block_dim, const std::function<void()>& fn) {
    FnBody body(fn);
    return run_blocks(block_dim, body);
}
}  // namespace kw::rt
