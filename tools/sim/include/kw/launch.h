// Kernel launch from host code: `k<<<blockDim, l2ctrl, stream>>>(args)` is rewritten by the
// build to kw::launch_kernel(k, blockDim, l2ctrl, stream, args); ICPU_RUN_KF and
// ACLRT_LAUNCH_KERNEL land in the same place. Also the registry the runner uses to find
// kernels by name and call them with arguments from a case file.
#pragma once
#include <functional>
#include <vector>
#include "kw/runtime.h"

namespace kw {

// One kernel argument as the runner received it.
struct ArgValue {
    enum Kind { POINTER, INTEGER, FLOAT, BYTES } kind = POINTER;
    void* ptr = nullptr;
    long long i = 0;
    double d = 0;
    std::vector<uint8_t> bytes;
};

template <class A> A arg_as(const ArgValue& a) {
    if constexpr (std::is_pointer<A>::value) return reinterpret_cast<A>(a.ptr);
    else if constexpr (std::is_integral<A>::value || std::is_enum<A>::value) return static_cast<A>(a.i);
    else if constexpr (std::is_floating_point<A>::value || std::is_same<A, half>::value) return static_cast<A>(a.kind == ArgValue::FLOAT ? a.d : double(a.i));
    else {
        static_assert(std::is_trivially_copyable<A>::value, "kernel parameters must be trivially copyable");
        A r;
        std::memset(&r, 0, sizeof(A));
        std::memcpy(&r, a.bytes.data(), a.bytes.size() < sizeof(A) ? a.bytes.size() : sizeof(A));
        return r;
    }
}

template <class R, class... A, size_t... I> void call_with(R (*f)(A...), const std::vector<ArgValue>& v, std::index_sequence<I...>) {
    f(arg_as<std::decay_t<A>>(v[I])...);
}

struct KernelEntry {
    const char* name;
    int arity;
    std::function<void(const std::vector<ArgValue>&)> call;
    bool host = false;  // a host function that launches kernels with <<<>>>, called outside any block
    bool cube = false;  // compiled for the cube core (AIC) of a MIX kernel: the copy its AIC instances run
};
std::vector<KernelEntry>& kernel_registry();

struct KernelRegistrar {
    template <class R, class... A> KernelRegistrar(const char* name, R (*f)(A...), bool host = false, bool cube = false) {
        kernel_registry().push_back({name, int(sizeof...(A)), [f](const std::vector<ArgValue>& v) {
                                         call_with(f, v, std::index_sequence_for<A...>{});
                                     }, host, cube});
    }
};

namespace rt {
// Runs fn once per block; returns 0 when every block finished cleanly.
int launch(uint32_t block_dim, const std::function<void()>& fn);
// A MIX launch of a kernel with its own cube code: per AI Core one AIC instance (cube) and `ratio` AIV ones.
int launch_mix(uint32_t block_dim, uint32_t ratio, const std::function<void()>& vec, const std::function<void()>& cube);
}

template <class K, class... A> inline int launch_kernel(K* kernel, uint32_t block_dim, void* /*l2ctrl*/, void* /*stream*/, A... args) {
    return rt::launch(block_dim, [=]() { kernel(args...); });
}
template <class K, class... A> inline int launch_kernel(K* kernel, uint32_t block_dim, std::nullptr_t, void* stream, A... args) {
    return launch_kernel(kernel, block_dim, static_cast<void*>(nullptr), stream, args...);
}
template <class K, class... A> inline int launch_kernel(K* kernel, uint32_t block_dim, int, void* stream, A... args) {
    return launch_kernel(kernel, block_dim, static_cast<void*>(nullptr), stream, args...);
}

}  // namespace kw

#ifdef KW_AIC_ONLY  // a cube-only kernel (tools/sim/mix.py): its AIC copy is the kernel, run as any other
#define KW_CUBE_COPY false
#else              // the AIC copy of a MIX kernel: the cube instances' half, loaded beside the AIV copy
#define KW_CUBE_COPY (g_coreType == AscendC::AIC)
#endif
#define KW_EXPORT_KERNEL(name) static ::kw::KernelRegistrar kw_registrar_##name(#name, &name, false, KW_CUBE_COPY);
#define KW_EXPORT_KERNEL_AS(fn, name) static ::kw::KernelRegistrar kw_registrar_##fn(#name, &fn, false, KW_CUBE_COPY);
#define KW_EXPORT_HOST_ENTRY(name) static ::kw::KernelRegistrar kw_host_registrar_##name(#name, &name, true);
