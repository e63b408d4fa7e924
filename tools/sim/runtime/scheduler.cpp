// Runs a kernel launch: one forked process per block (globals are per core, GM is shared),
// taking turns so results are deterministic. SyncAll yields to the parent, which releases
// all blocks once every live block has arrived; blocks that exit while others wait is the
// NPU's deadlock, reported as such.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <execinfo.h>
#include <chrono>
#include "internal.h"

namespace kw::rt {
namespace {
struct ChildLink {
    int to_child = -1;    // parent -> child: 'G' resumes after SyncAll
    int from_child = -1;  // child -> parent: 'S' at SyncAll; EOF when it exits
};
ChildLink& self_link() {
    static ChildLink l;
    return l;
}
LaunchSummary& summary() {
    static LaunchSummary s;
    return s;
}

enum class ChildState { RUNNING, AT_SYNC, WAITING, DONE };
struct Child {
    pid_t pid = -1;
    int to = -1, from = -1;
    ChildState state = ChildState::RUNNING;
    int exit_code = 0;
    uint32_t syncs = 0;
    uint64_t waited_at = 0;  // the flag generation when it last blocked
    bool cube = false;
    double cpu_ms = 0;       // CPU time of a finished instance (wait4)
};

using Clock = std::chrono::steady_clock;

// A launch's time limit counts the CPU time of its blocks, not the wall clock: on a loaded machine a kernel
// that finishes is not a timeout. The wall clock still ends a launch at kWallFactor times the limit (a block
// sleeping or blocked in a call uses no CPU).
constexpr int kWallFactor = 8;
struct Budget {
    Clock::time_point wall;
    double cpu_ms;
    const std::vector<Child>* cs;
};

double cpu_ms_of(pid_t pid) {
    clockid_t clk;
    timespec ts{};
    if (clock_getcpuclockid(pid, &clk) != 0 || clock_gettime(clk, &ts) != 0) return 0;
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

double launch_cpu_ms(const std::vector<Child>& cs) {
    double t = 0;
    for (const Child& c : cs) t += c.state == ChildState::DONE ? c.cpu_ms : c.pid > 0 ? cpu_ms_of(c.pid) : 0;
    return t;
}

// MIX kernels have several AIV cores per block on split-architecture SoCs only (coupled ones
// run one AI Core per block).
uint32_t aiv_per_block() { return soc().split_arch && config().mix_ratio > 1 ? config().mix_ratio : 1; }

void reset_block_state() {
    arenas_reset();
    pipes_reset();
    trace_reset();
    gm_reset_core_state();
    release_pipe(nullptr);
}

// Instance i of a launch: a block of a vector launch (AIV instances block * ratio + sub for MIX kernels
// that use the Matmul API), or, when the kernel has its own cube code (Config::cube_ratio), one AIC
// (GetBlockIdx() = the AI Core) followed by its AIVs (GetBlockIdx() = core * ratio + sub).
void place(BlockState& st, uint32_t i, uint32_t block_dim) {
    const uint32_t cube = config().cube_ratio;
    const uint32_t ratio = cube ? cube : aiv_per_block();
    const uint32_t per = cube ? 1 + cube : 1;
    const uint32_t group = i / per, r = i % per;
    st.cube = cube && r == 0;
    st.group = cube ? group : i / ratio;
    st.block_idx = cube ? (st.cube ? group : group * ratio + (r - 1)) : i;
    st.block_num = block_dim;
    st.sub_block_idx = st.cube ? 0 : cube ? r - 1 : i % ratio;
    st.sub_block_num = st.cube ? 1 : ratio;
}

uint32_t g_instance = 0;  // the instance this child runs (child_main)

[[noreturn]] void end_block() {
    counters_flush();
    trace_flush();
    report_line("{\"type\":\"end\",\"block\":" + std::to_string(g_instance) + ",\"status\":\"ok\"}");
    std::fflush(stdout);
    _exit(0);
}

[[noreturn]] void child_main(uint32_t b, uint32_t block_dim, LaunchBody& body) {
    BlockState& st = bs();
    g_instance = b;
    place(st, b, block_dim);
    st.epoch = 0;
    st.atomic = 0;
    st.launch = summary().launches;  // launches finished before this one
    st.in_block = true;
    std::string path = config().out_dir + "/block_" + std::to_string(b) + ".jsonl";
    st.report_fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    install_crash_handlers();
    reset_block_state();
    // UB/L1 carry over per physical core: AIV cores first, then AIC cores
    const SocInfo& s = soc();
    const uint32_t slot = st.cube ? s.aiv_cores + uint32_t(st.group) % (s.aic_cores ? s.aic_cores : 1)
                                  : uint32_t(st.block_idx) % (s.split_arch && s.aiv_cores ? s.aiv_cores : (s.aic_cores ? s.aic_cores : 1));
    carry_restore(slot);
    if (st.cube) body.run_cube(); else body.run();
    carry_save(slot);
    end_block();
}

// Waits until the child yields at SyncAll or exits. Returns false on timeout.
bool wait_child(Child& c, const Budget& budget) {
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(budget.wall - Clock::now()).count();
        if (left <= 0 || launch_cpu_ms(*budget.cs) > budget.cpu_ms) return false;
        pollfd p{c.from, POLLIN, 0};
        int r = poll(&p, 1, int(left > 1000 ? 1000 : left));
        if (r < 0) continue;
        if (r == 0) continue;
        char ch = 0;
        ssize_t n = read(c.from, &ch, 1);
        if (n == 1 && ch == 'S') {
            c.state = ChildState::AT_SYNC;
            c.syncs++;
            return true;
        }
        if (n == 1 && ch == 'W') {  // blocked on a cross-core flag: resumed after some flag is set
            c.state = ChildState::WAITING;
            c.waited_at = crosscore_generation();
            return true;
        }
        int status = 0;
        rusage ru{};
        wait4(c.pid, &status, 0, &ru);
        c.cpu_ms = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
        c.state = ChildState::DONE;
        c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return true;
    }
}

std::string block_list(const std::vector<Child>& cs, ChildState st) {
    std::string s;
    for (size_t i = 0; i < cs.size(); ++i)
        if (cs[i].state == st) s += (s.empty() ? "" : ",") + std::to_string(i);
    return s;
}

void kill_all(std::vector<Child>& cs) {
    for (auto& c : cs)
        if (c.state != ChildState::DONE && c.pid > 0) {
            kill(c.pid, SIGKILL);
            int status;
            waitpid(c.pid, &status, 0);
            c.state = ChildState::DONE;
            c.exit_code = 137;
        }
}
}  // namespace

// A trace-only run's block that has moved its budget of GM bytes (Config::trace_budget) ends here, its trace marked
// as cut: the rest of the block is its steady state again, extended by the referee (speed_extend.py), not emulated.
void trace_cut() {
    trace_mark_cut(output_bytes_written());
    end_block();
}

LaunchSummary& last_launch() { return summary(); }

int declare_mix_ratio(uint32_t ratio) {
    config().mix_ratio = ratio ? ratio : 1;
    return 0;
}

void yield_to_parent(char why) {
    ChildLink& l = self_link();
    if (write(l.from_child, &why, 1) != 1) _exit(70);
    char ch = 0;
    if (read(l.to_child, &ch, 1) != 1) _exit(70);  // parent gone or killed us
}

void sync_all(const char* api) {
    BlockState& st = bs();
    uint32_t cores = soc().split_arch ? soc().aiv_cores : soc().aic_cores;
    if (st.block_num > int64_t(cores))
        Diag("syncall.block_dim", api)
            .msg("SyncAll with blockDim " + std::to_string(st.block_num) + " on " + soc().name + ", which runs only " +
                 std::to_string(cores) + " vector cores at a time; blocks past the first " + std::to_string(cores) +
                 " never start while the first ones wait, so the NPU hangs")
            .val("block_dim", st.block_num).val("cores", cores)
            .hint("launch at most GetCoreNumAiv() blocks in a kernel that uses SyncAll and loop over the work inside")
            .fatal();
    if (sampled() && !config().trace_only)
        unsampleable(api, "it calls SyncAll, so its blocks read what other blocks (outside the sample) write");
    count_sync("SyncAll");
    pipe_barrier(Pipe::COUNT);  // SyncAll drains every pipe of this core
    trace_op(TraceKind::SYNCALL, Pipe::COUNT, api);
    // where this block waits: a SyncAll mismatch found by the parent is reported at this call
    void* frames[32];
    int n = backtrace(frames, 32);
    report_line("{\"type\":\"sync\",\"block\":" + std::to_string(st.block_idx) + ",\"frames\":" + frames_json(frames, n) + "}");
    yield_to_parent('S');
    st.epoch++;
}

int run_blocks(uint32_t block_dim, LaunchBody& body) {
    LaunchSummary& all = summary();
    LaunchSummary sum;
    sum.block_dim = block_dim;
    sum.launches = all.launches + 1;
    struct Merge {  // fold this launch into the run's summary however we leave
        LaunchSummary& all;
        LaunchSummary& one;
        ~Merge() {
            int worst = all.status > one.status ? all.status : one.status;
            std::string detail = all.detail.empty() ? one.detail : one.detail.empty() ? all.detail : all.detail + "; " + one.detail;
            all = one;
            all.status = worst;
            all.detail = detail;
        }
    } merge{all, sum};
    if (block_dim == 0 || block_dim > 65535) {
        Diag("launch.block_dim", "<<<>>>")
            .msg("blockDim " + std::to_string(block_dim) + " is outside [1, 65535]")
            .hint("the tiling must set SetBlockDim to at least 1").error();
        sum.status = 4;
        sum.detail = "blockDim " + std::to_string(block_dim) + " is outside [1, 65535]";
        return sum.status;
    }
    std::fflush(stdout);
    std::fflush(stderr);
    gm_reset_shadows();  // launches on one stream run one after the other: no race across them
    arenas_prepare();    // the blocks start from these copy-on-write
    const auto started = Clock::now();
    const uint32_t instances = block_dim * (config().cube_ratio ? 1 + config().cube_ratio : aiv_per_block());
    if (config().cube_ratio) crosscore_setup(block_dim, config().cube_ratio);
    std::vector<Child> cs(instances);
    const Budget deadline{started + std::chrono::milliseconds(int64_t(config().timeout_ms) * kWallFactor),
                          double(config().timeout_ms), &cs};
    for (uint32_t i = 0; i < instances; ++i) {
        BlockState where;
        place(where, i, block_dim);
        cs[i].cube = where.cube;
    }
    bool timed_out = false;
    uint32_t running = 0;
    auto start_child = [&](uint32_t b) {
        int down[2], up[2];
        if (pipe(down) != 0 || pipe(up) != 0) std::abort();
        pid_t pid = fork();
        if (pid == 0) {
            close(down[1]);
            close(up[0]);
            for (uint32_t i = 0; i < b; ++i) {  // do not keep other blocks' pipes open
                if (cs[i].to >= 0) close(cs[i].to);
                if (cs[i].from >= 0) close(cs[i].from);
            }
            self_link().to_child = down[0];
            self_link().from_child = up[1];
            child_main(b, block_dim, body);
        }
        close(down[0]);
        close(up[1]);
        cs[b].pid = pid;
        cs[b].to = down[1];
        cs[b].from = up[0];
    };
    auto resume = [&](uint32_t b) {
        char g = 'G';
        if (write(cs[b].to, &g, 1) != 1) std::abort();
        cs[b].state = ChildState::RUNNING;
        running = b;
        if (!wait_child(cs[b], deadline)) timed_out = true;
    };
    // Phase 0: start instances one at a time; each runs until it exits, reaches SyncAll or blocks on a flag.
    // A sampled launch starts only the instances of its sampled blocks (sample.cpp); the others count as done.
    for (uint32_t b = 0; b < instances && !timed_out; ++b) {
        BlockState where;
        place(where, b, block_dim);
        if (!sample_runs(uint32_t(where.group))) {
            cs[b].state = ChildState::DONE;
            cs[b].exit_code = -1;
            continue;
        }
        start_child(b);
        running = b;
        if (!wait_child(cs[b], deadline)) timed_out = true;
    }
    // Later: resume an instance blocked on a flag once some flag was set after it blocked; release the
    // instances of one kind (AIV, AIC) at SyncAll once all of them are there; otherwise nothing can move.
    while (!timed_out) {
        bool moved = false;
        for (uint32_t b = 0; b < instances && !timed_out && !moved; ++b)
            if (cs[b].state == ChildState::WAITING && cs[b].waited_at < crosscore_generation()) resume(b), moved = true;
        if (moved) continue;
        for (int kind = 0; kind < 2 && !moved; ++kind) {
            bool any = false, all = true;
            for (auto& c : cs) {
                // a trace-only sampled launch: the blocks outside the sample never run, so they are not waited for
                // (nor are the blocks whose trace was cut short: trace_cut)
                if (config().trace_only && c.state == ChildState::DONE) continue;
                if (c.cube == bool(kind)) any = any || c.state == ChildState::AT_SYNC, all = all && c.state == ChildState::AT_SYNC;
            }
            if (!any || !all) continue;
            for (uint32_t b = 0; b < instances && !timed_out; ++b)
                if (cs[b].cube == bool(kind) && cs[b].state == ChildState::AT_SYNC) resume(b);
            moved = true;
        }
        if (moved) continue;
        std::string at_sync = block_list(cs, ChildState::AT_SYNC), waiting = block_list(cs, ChildState::WAITING);
        if (at_sync.empty() && waiting.empty()) break;  // everyone finished
        if (!at_sync.empty() && waiting.empty()) {
            std::string done = block_list(cs, ChildState::DONE);
            Diag("syncall.mismatch", "SyncAll")
                .msg("blocks [" + at_sync + "] wait in SyncAll while blocks [" + done +
                     "] already returned without reaching it; on the NPU the waiting cores hang (AI Core timeout, error 507014)")
                .val("waiting", at_sync).val("finished", done)
                .hint("every block must call SyncAll the same number of times: do not put SyncAll under a condition that "
                      "depends on GetBlockIdx(), and do not return early from idle blocks")
                .error();
            sum.detail = "SyncAll mismatch";
        } else if (sampled()) {
            Diag("sample.unsampleable", "CrossCoreWaitFlag")
                .msg("the kernel cannot be judged on a sample of its blocks: instances [" + waiting + "] wait for "
                     "cross-core flags that only cores outside the sample set")
                .hint("the referee runs every block (at shrunk shapes) or declares the case too big to judge")
                .error();
            sum.detail = "unsampleable: cross-core flags between AI Cores";
        } else {
            Diag("flag.wait_without_set", "CrossCoreWaitFlag")
                .msg("instances [" + waiting + "] wait in CrossCoreWaitFlag for flags no core will set any more" +
                     (at_sync.empty() ? std::string() : " (instances [" + at_sync + "] wait in SyncAll)") +
                     "; on the NPU these cores hang (AI Core timeout, error 507014)")
                .val("waiting", waiting)
                .hint("every CrossCoreWaitFlag needs a matching CrossCoreSetFlag on the partner core (mode 2: the AIC and each "
                      "of its AIVs; mode 1: the other AIV) as often as it waits; check the loop counts on both sides")
                .error();
            sum.detail = "cross-core flag deadlock";
        }
        kill_all(cs);
        sum.status = 1;
        break;
    }
    if (timed_out) {
        const bool wall = Clock::now() >= deadline.wall;
        Child& c = cs[running];
        kill(c.pid, SIGUSR2);  // the child records where it was, then exits
        wait_child(c, Budget{Clock::now() + std::chrono::milliseconds(1500), 1e300, &cs});
        kill_all(cs);
        sum.status = 3;
        sum.detail = "block " + std::to_string(running) + " did not finish within " +
                     (wall ? std::to_string(int64_t(config().timeout_ms) * kWallFactor) + " ms of wall-clock time"
                           : std::to_string(config().timeout_ms) + " ms of CPU time (all blocks of the launch)");
    }
    for (auto& c : cs) {
        if (c.to >= 0) close(c.to);
        if (c.from >= 0) close(c.from);
    }
    for (uint32_t b = 0; b < instances; ++b) {
        int code = cs[b].exit_code;
        std::string st = code == -1 ? "not_run" : code == 0 ? "ok" : code == 3 ? "violation" : code == 124 ? "hang" : code == 137 ? "killed" : "crash";
        sum.block_status.push_back(st);
        if (sum.status == 0 && st == "violation") sum.status = 1;
        if (sum.status == 0 && (st == "crash")) sum.status = 2;
    }
    return sum.status;
}

}  // namespace kw::rt
