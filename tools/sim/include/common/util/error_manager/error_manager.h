// Host stand-in for CANN's error manager (common/util/error_manager/error_manager.h): the
// REPORT_*_ERROR macros that op_host code uses to attach an error code to a failure; here they
// print the code and message to stderr.
#pragma once
#include <cstdio>
#include <string>

class ErrorManager {
public:
    static ErrorManager& GetInstance() {
        static ErrorManager m;
        return m;
    }
    template <typename... A> int ATCReportErrMessage(const std::string& code, A&&...) {
        std::fprintf(stderr, "[ERROR] %s\n", code.c_str());
        return 0;
    }
};

#define REPORT_INNER_ERROR(error_code, fmt, ...) \
    std::fprintf(stderr, "[ERROR][%s] " fmt "\n", (error_code), ##__VA_ARGS__)
#define REPORT_CALL_ERROR(error_code, fmt, ...) \
    std::fprintf(stderr, "[ERROR][%s] " fmt "\n", (error_code), ##__VA_ARGS__)
#define REPORT_INPUT_ERROR(error_code, key, value) std::fprintf(stderr, "[ERROR][%s]\n", (error_code))
