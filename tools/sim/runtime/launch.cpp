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

namespace {
struct MixBody : LaunchBody {
    const std::function<void()>& vec;
    const std::function<void()>& cube;
    MixBody(const std::function<void()>& v, const std::function<void()>& c) : vec(v), cube(c) {}
    void run() override { vec(); }
    void run_cube() override { cube(); }
};
}  // namespace

int launch_mix(uint32_t block_dim, uint32_t ratio, const std::function<void()>& vec, const std::function<void()>& cube) {
    MixBody body(vec, cube);
    config().cube_ratio = ratio;
    int status = run_blocks(block_dim, body);
    config().cube_ratio = 0;
    return status;
}
}  // namespace kw::rt
