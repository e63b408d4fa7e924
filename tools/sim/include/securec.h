// Host stand-in for CANN's bounds-checked C library (libc_sec, "securec.h"): the *_s functions
// return EOK (0) on success and a non-zero error when the destination is too small or null.
#pragma once
#include <cstdarg>
#include <cstdio>
#include <cstring>

#ifndef EOK
#define EOK 0
#endif
typedef int errno_t;

inline errno_t memcpy_s(void* dest, size_t destMax, const void* src, size_t count) {
    if (dest == nullptr || src == nullptr || count > destMax) return 1;
    std::memmove(dest, src, count);
    return EOK;
}
inline errno_t memmove_s(void* dest, size_t destMax, const void* src, size_t count) { return memcpy_s(dest, destMax, src, count); }
inline errno_t memset_s(void* dest, size_t destMax, int c, size_t count) {
    if (dest == nullptr || count > destMax) return 1;
    std::memset(dest, c, count);
    return EOK;
}
inline errno_t strcpy_s(char* dest, size_t destMax, const char* src) {
    if (dest == nullptr || src == nullptr || std::strlen(src) + 1 > destMax) return 1;
    std::memcpy(dest, src, std::strlen(src) + 1);
    return EOK;
}
inline errno_t strncpy_s(char* dest, size_t destMax, const char* src, size_t count) {
    if (dest == nullptr || src == nullptr || destMax == 0) return 1;
    size_t n = std::strlen(src) < count ? std::strlen(src) : count;
    if (n + 1 > destMax) return 1;
    std::memcpy(dest, src, n);
    dest[n] = '\0';
    return EOK;
}
inline errno_t strcat_s(char* dest, size_t destMax, const char* src) {
    if (dest == nullptr || src == nullptr) return 1;
    size_t have = std::strlen(dest);
    return strcpy_s(dest + have, destMax > have ? destMax - have : 0, src);
}
inline int vsnprintf_s(char* dest, size_t destMax, size_t count, const char* format, va_list ap) {
    if (dest == nullptr || destMax == 0) return -1;
    size_t limit = count + 1 < destMax ? count + 1 : destMax;
    int n = std::vsnprintf(dest, limit, format, ap);
    return n < 0 || size_t(n) >= limit ? -1 : n;
}
inline int snprintf_s(char* dest, size_t destMax, size_t count, const char* format, ...) {
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf_s(dest, destMax, count, format, ap);
    va_end(ap);
    return n;
}
inline int sprintf_s(char* dest, size_t destMax, const char* format, ...) {
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf_s(dest, destMax, destMax - 1, format, ap);
    va_end(ap);
    return n;
}
