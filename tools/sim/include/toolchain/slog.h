// Host stand-in for CANN's device log interface (toolchain/slog.h): levels, module ids and the
// DlogSub/dlog_* entry points that op_host logging macros expand to. Errors and warnings go to
// stderr (the tiling run's log); debug and info are dropped, as at CANN's default log level.
#pragma once
#include <cstdarg>
#include <cstdio>

#define DLOG_DEBUG 0
#define DLOG_INFO 1
#define DLOG_WARN 2
#define DLOG_ERROR 3
#define DLOG_NULL 4
#define DLOG_EVENT 0x10

enum { SLOG = 0, IDEDD, IDEDH, HCCL, FMK, HIAIENGINE, DVPP, RUNTIME, CCE, HDC, DRV, MDCFUSION, MDCLOCATION, MDCPERCEPTION,
       MDCFSM, MDCCOMMON, MDCMONITOR, MDCBSWP, MDCDEFAULT, MDCSC, MDCPNC, MLL, DEVMM, KERNEL, LIBMEDIA, CCECPU, ASCENDDK,
       ROS, HCCP, ROCE, TEFUSION, PROFILING, DP, APP, TS, TSDUMP, AICPU, LP, TDT, FE, MD, MB, ME, IMU, IMP, GE, MDCFUSA,
       CAMERA, ASCENDCL, TEEOS, ISP, SIS, HSM, DSS, PROCMGR, BBOX, AIVECTOR, TBE, FV, MDCMAP, TUNE, HSS, FFTS, OP, UDF,
       HICAID, TSYNC, AUDIO, TPRT, ASCENDCKERNEL, ASYS, ATRACE, RTC, SYSMONITOR, AML, INVLID_MOUDLE_ID };

inline int CheckLogLevel(int moduleId, int logLevel) {
    (void)moduleId;
    return logLevel >= DLOG_WARN && logLevel != DLOG_EVENT ? 1 : 0;
}
inline void DlogSubV(int moduleId, const char* submodule, int level, const char* fmt, va_list ap) {
    if (!CheckLogLevel(moduleId, level)) return;
    std::fprintf(stderr, "[%s][%s] ", level == DLOG_ERROR ? "ERROR" : "WARNING", submodule ? submodule : "");
    std::vfprintf(stderr, fmt, ap);
    std::fputc('\n', stderr);
}
inline void DlogSub(int moduleId, const char* submodule, int level, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    DlogSubV(moduleId, submodule, level, fmt, ap);
    va_end(ap);
}
inline void DlogRecord(int moduleId, int level, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    DlogSubV(moduleId, "", level, fmt, ap);
    va_end(ap);
}
#define dlog_error(moduleId, fmt, ...) DlogRecord(moduleId, DLOG_ERROR, fmt, ##__VA_ARGS__)
#define dlog_warn(moduleId, fmt, ...) DlogRecord(moduleId, DLOG_WARN, fmt, ##__VA_ARGS__)
#define dlog_info(moduleId, fmt, ...) DlogRecord(moduleId, DLOG_INFO, fmt, ##__VA_ARGS__)
#define dlog_debug(moduleId, fmt, ...) DlogRecord(moduleId, DLOG_DEBUG, fmt, ##__VA_ARGS__)
#define dlog_event(moduleId, fmt, ...) DlogRecord(moduleId, DLOG_EVENT, fmt, ##__VA_ARGS__)
