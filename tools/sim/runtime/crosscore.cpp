// Cross-core flags (CrossCoreSetFlag / CrossCoreWaitFlag). In a MIX launch whose kernel has its own
// cube code, every AI Core is one AIC instance and `ratio` AIV instances (separate processes); the flags
// between them are counters in a shared table, as the CANN 8.x API reference describes the modes:
//   mode 0: a barrier over all cores of one kind (emulated as SyncAll among them);
//   mode 1: between the AIVs of one AI Core: a set reaches the other AIV(s);
//   mode 2: between an AIC and its AIVs: the AIC's set reaches each of its AIVs; an AIV's set counts
//           for the AIC, whose wait returns once every one of its AIVs has set the flag.
// A wait whose counter is empty yields to the parent (scheduler.cpp), which resumes it after another
// instance has set some flag; when nobody can move, the launch deadlocks as the NPU would hang.
// In a vector-only launch modes 1 and 2 have no partner core and only count. A wait takes mode 0 when
// this core's last set of the flag was mode 0 (kernels call CrossCoreWaitFlag(id) without a mode).
#include <execinfo.h>
#include <sys/mman.h>
#include <algorithm>
#include "internal.h"

namespace kw::rt {
namespace {
constexpr uint32_t kFlags = 16;

struct Table {
    uint32_t* aiv = nullptr;  // [group][sub][flag]: sets waiting for that AIV
    uint32_t* aic = nullptr;  // [group][sub][flag]: sets of that AIV waiting for the group's AIC
    uint32_t* aiv_epoch = nullptr;  // [group][sub][flag]: the latest SyncAll phase of the sets in `aiv`
    uint32_t* aic_epoch = nullptr;  // ... and in `aic`
    uint64_t* generation = nullptr;
    uint32_t groups = 0, ratio = 0;
};
Table& table() {
    static Table t;
    return t;
}
int last_set_mode[kFlags] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};  // per process (core)

uint32_t* aiv_slot(uint64_t group, uint64_t sub, uint32_t flag) {
    Table& t = table();
    return t.aiv + (group * t.ratio + sub) * kFlags + flag;
}
uint32_t* aic_slot(uint64_t group, uint64_t sub, uint32_t flag) {
    Table& t = table();
    return t.aic + (group * t.ratio + sub) * kFlags + flag;
}
// A set orders everything its core did before it (SyncAll phases passed included) before the wait it
// releases: the waiter takes the setter's phase, so GM data another AI Core wrote before a mode-0 barrier
// that the setter passed is no race for the waiter (Catlass PaddingMatmul: AIVs pad, barrier, tell the AIC).
void pass_phase(uint32_t* cell_epoch) { *cell_epoch = std::max(*cell_epoch, bs().epoch); }
void take_phase(const uint32_t* cell_epoch) { bs().epoch = std::max(bs().epoch, *cell_epoch); }
uint32_t* epoch_of(const uint32_t* cell) {
    Table& t = table();
    return cell >= t.aic ? t.aic_epoch + (cell - t.aic) : t.aiv_epoch + (cell - t.aiv);
}

void check_flag(uint32_t flag, const char* api) {
    if (flag < kFlags) return;
    Diag("flag.event_id", api)
        .msg(std::string(api) + " with flag id " + std::to_string(flag) + "; cross-core flag ids are 0..15")
        .val("flag", flag).hint("use a flag id below 16").fatal();
}
}  // namespace

void crosscore_setup(uint32_t groups, uint32_t ratio) {
    Table& t = table();
    const uint64_t cells = uint64_t(groups) * ratio * kFlags;
    const uint64_t bytes = 4 * cells * sizeof(uint32_t) + sizeof(uint64_t);
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        std::fprintf(stderr, "kernelwright: cannot map the cross-core flag table\n");
        std::abort();
    }
    t.generation = static_cast<uint64_t*>(p);
    t.aiv = reinterpret_cast<uint32_t*>(t.generation + 1);
    t.aic = t.aiv + cells;
    t.aiv_epoch = t.aic + cells;
    t.aic_epoch = t.aiv_epoch + cells;
    t.groups = groups;
    t.ratio = ratio;
}

uint64_t crosscore_generation() { return table().generation ? *table().generation : 0; }

void cross_set(int mode, uint32_t flag, const char* api) {
    check_flag(flag, api);
    count_sync(api);
    last_set_mode[flag] = mode;
    if (config().cube_ratio == 0 || mode == 0) return;
    BlockState& st = bs();
    Table& t = table();
    auto set = [](uint32_t* cell) { ++*cell, pass_phase(epoch_of(cell)); };
    if (mode == 2 && st.cube) {
        for (uint32_t s = 0; s < t.ratio; ++s) set(aiv_slot(st.group, s, flag));
    } else if (mode == 2) {
        set(aic_slot(st.group, st.sub_block_idx, flag));
    } else if (mode == 1 && !st.cube) {
        for (uint32_t s = 0; s < t.ratio; ++s)
            if (int64_t(s) != st.sub_block_idx) set(aiv_slot(st.group, s, flag));
    }
    ++*t.generation;
}

void cross_wait(uint32_t flag, const char* api) {
    check_flag(flag, api);
    count_sync(api);
    if (last_set_mode[flag] == 0) {  // the all-core barrier
        last_set_mode[flag] = -1;
        sync_all(api);
        return;
    }
    if (config().cube_ratio == 0) return;  // no partner core to wait for
    BlockState& st = bs();
    Table& t = table();
    bool announced = false;
    for (;;) {
        if (st.cube) {
            bool all = true;
            for (uint32_t s = 0; s < t.ratio; ++s) all = all && *aic_slot(st.group, s, flag) > 0;
            if (all) {
                for (uint32_t s = 0; s < t.ratio; ++s) --*aic_slot(st.group, s, flag), take_phase(epoch_of(aic_slot(st.group, s, flag)));
                return;
            }
        } else if (*aiv_slot(st.group, st.sub_block_idx, flag) > 0) {
            --*aiv_slot(st.group, st.sub_block_idx, flag);
            take_phase(epoch_of(aiv_slot(st.group, st.sub_block_idx, flag)));
            return;
        }
        if (!announced) {  // where this instance waits, should the launch deadlock here
            void* frames[32];
            int n = backtrace(frames, 32);
            report_line("{\"type\":\"wait\",\"block\":" + std::to_string(st.block_idx) + ",\"flag\":" + std::to_string(flag) +
                        ",\"cube\":" + (st.cube ? "true" : "false") + ",\"frames\":" + frames_json(frames, n) + "}");
            announced = true;
        }
        yield_to_parent('W');
    }
}

}  // namespace kw::rt
