// Findings of the emulation: JSON lines in the block report, with the raw code addresses that
// the Python side turns into file:line of the user's kernel.
#include <dlfcn.h>
#include <execinfo.h>
#include <unistd.h>
#include <csignal>
#include <ucontext.h>
#include <cstdlib>
#include <vector>
#include "internal.h"

namespace kw::rt {

constexpr int kViolationExit = 3;

struct Diag::Impl {
    std::string rule, api, message, hint, values;
    const void* at = nullptr;
    std::vector<void*> at_frames;
};

Diag::Diag(const char* rule, const char* api) : impl_(new Impl) {
    impl_->rule = rule;
    impl_->api = api ? api : "";
}
Diag& Diag::msg(const std::string& m) {
    impl_->message = m;
    return *this;
}
Diag& Diag::hint(const std::string& h) {
    impl_->hint = h;
    return *this;
}
Diag& Diag::val(const char* key, long long v) {
    impl_->values += (impl_->values.empty() ? "" : ",") + ("\"" + json_escape(key) + "\":" + std::to_string(v));
    return *this;
}
Diag& Diag::val(const char* key, const std::string& v) {
    impl_->values += (impl_->values.empty() ? "" : ",") + ("\"" + json_escape(key) + "\":\"" + json_escape(v) + "\"");
    return *this;
}
Diag& Diag::at(const void* pc) {
    impl_->at = pc;
    return *this;
}
Diag& Diag::at(void* const* frames, int n) {
    impl_->at_frames.assign(frames, frames + n);
    return *this;
}

std::string json_escape(const std::string& s) {
    std::string o;
    for (char ch : s) {
        unsigned char c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') { o += '\\'; o += ch; }
        else if (c == '\n') o += "\\n";
        else if (c < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); o += b; }
        else o += ch;
    }
    return o;
}

std::string frames_json(void* const* frames, int n) {
    std::string s = "[";
    for (int i = 0; i < n; ++i) {
        char b[32];
        std::snprintf(b, sizeof b, "%s\"%p\"", i ? "," : "", frames[i]);
        s += b;
    }
    return s + "]";
}

// Addresses inside a shared library (a MIX kernel's cube-core copy is one, build.py) as library + offset:
// the report symbolizes them against that library, not the runner.
static std::string module_offsets(void* const* addrs, int n) {
    Dl_info self{};
    dladdr(reinterpret_cast<void*>(&module_offsets), &self);
    std::string s = "[";
    for (int i = 0; i < n; ++i) {
        Dl_info d{};
        if (!addrs[i] || !dladdr(addrs[i], &d) || !d.dli_fname || d.dli_fbase == self.dli_fbase) continue;
        char b[96];
        std::snprintf(b, sizeof b, "%s{\"addr\":\"%p\",\"offset\":\"%p\",\"module\":\"", s.size() > 1 ? "," : "",
                      addrs[i], reinterpret_cast<void*>(static_cast<char*>(addrs[i]) - static_cast<char*>(d.dli_fbase)));
        s += b + json_escape(d.dli_fname) + "\"}";
    }
    return s + "]";
}

static std::string record(const Diag::Impl& d, const char* severity) {
    void* frames[48];
    int n = backtrace(frames, 48);
    std::string at;
    if (d.at) {
        void* a[1] = {const_cast<void*>(d.at)};
        at = ",\"at\":" + frames_json(a, 1);
    } else if (!d.at_frames.empty()) {
        at = ",\"at\":" + frames_json(d.at_frames.data(), int(d.at_frames.size()));
    }
    std::vector<void*> all(frames, frames + n);
    all.insert(all.end(), d.at_frames.begin(), d.at_frames.end());
    if (d.at) all.push_back(const_cast<void*>(d.at));
    return "{\"type\":\"diag\",\"severity\":\"" + std::string(severity) + "\",\"rule\":\"" + json_escape(d.rule) +
           "\",\"api\":\"" + json_escape(d.api) + "\",\"block\":" + std::to_string(bs().block_idx) + ",\"message\":\"" +
           json_escape(d.message) + "\",\"hint\":\"" + json_escape(d.hint) + "\",\"values\":{" + d.values +
           "},\"frames\":" + frames_json(frames, n) + at + ",\"modules\":" + module_offsets(all.data(), int(all.size())) + "}";
}

void Diag::fatal() {
    report_line(record(*impl_, "error"));
    if (!bs().in_block) {  // a finding outside any block (host-side launch code)
        std::fprintf(stderr, "kernelwright: %s: %s\n", impl_->rule.c_str(), impl_->message.c_str());
    }
    counters_flush();
    report_line("{\"type\":\"end\",\"block\":" + std::to_string(bs().block_idx) + ",\"status\":\"violation\"}");
    std::fflush(stdout);
    _exit(kViolationExit);
}

void Diag::warn() {
    report_line(record(*impl_, "warning"));
    delete impl_;
    impl_ = nullptr;
}

void Diag::error() {
    report_line(record(*impl_, "error"));
    delete impl_;
    impl_ = nullptr;
}

__attribute__((noinline)) void* caller_pc() { return __builtin_return_address(0); }

void report_line(const std::string& json) {
    int fd = bs().report_fd;
    if (fd < 0) fd = 2;
    std::string line = json + "\n";
    const char* p = line.data();
    size_t left = line.size();
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w <= 0) break;
        p += w;
        left -= size_t(w);
    }
}

// The exact instruction that faulted (or was interrupted), from the signal context.
static void* context_pc(void* uctx) {
    auto* uc = static_cast<ucontext_t*>(uctx);
#if defined(__x86_64__)
    return reinterpret_cast<void*>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
    return reinterpret_cast<void*>(uc->uc_mcontext.pc);
#else
    (void)uc;
    return nullptr;
#endif
}

// Crashes and hangs still produce a record with the code addresses of the faulting block.
static void on_signal(int sig, siginfo_t* info, void* uctx) {
    if (sig == SIGFPE && info && info->si_code == FPE_INTDIV && finish_division_by_zero(uctx)) return;
    if (sig == SIGSEGV && info && generated_fault(info->si_addr)) return;   // a generated input's first touch
    void* frames[48];
    int n = backtrace(frames, 48);
    const char* kind = sig == SIGUSR2 ? "hang" : "crash";
    char head[200];
    std::snprintf(head, sizeof head, "{\"type\":\"%s\",\"block\":%lld,\"signal\":%d,\"pc\":\"%p\",\"frames\":", kind,
                  static_cast<long long>(bs().block_idx), sig, context_pc(uctx));
    int fd = bs().report_fd >= 0 ? bs().report_fd : 2;
    ssize_t ignored = write(fd, head, std::strlen(head));
    backtrace_symbols_fd(frames, 0, fd);  // keeps the async-signal-safe path warm
    void* with_pc[49];
    for (int i = 0; i < n; ++i) with_pc[i] = frames[i];
    with_pc[n] = context_pc(uctx);
    std::string f = frames_json(frames, n) + ",\"modules\":" + module_offsets(with_pc, n + 1) + "}\n";
    ignored = write(fd, f.data(), f.size());
    (void)ignored;
    _exit(sig == SIGUSR2 ? 124 : 128 + sig);
}

void install_crash_handlers() {
    struct sigaction sa {};
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGUSR2}) sigaction(s, &sa, nullptr);
    // warm up backtrace() outside the handler (it may allocate on first use)
    void* f[2];
    backtrace(f, 2);
}

}  // namespace kw::rt
