// Host-side stand-in (namespace ge): data types, formats and status codes of the CANN
// graph API, with the numeric values of CANN 8.x.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace ge {
using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFF;
constexpr graphStatus GRAPH_PARAM_INVALID = 50331649;
constexpr graphStatus GRAPH_NOT_CHANGED = 1343242304;
// ge/ge_api_error_codes.h: the generic status codes (op_host code says `SUCCESS` after `using namespace ge;`)
using Status = uint32_t;
constexpr Status SUCCESS = 0;
constexpr Status FAILED = 0xFFFFFFFF;
using char_t = char;

enum DataType {
    DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 6, DT_UINT16 = 7, DT_UINT32 = 8,
    DT_INT64 = 9, DT_UINT64 = 10, DT_DOUBLE = 11, DT_BOOL = 12, DT_STRING = 13, DT_DUAL_SUB_INT8 = 14,
    DT_DUAL_SUB_UINT8 = 15, DT_COMPLEX64 = 16, DT_COMPLEX128 = 17, DT_QINT8 = 18, DT_QINT16 = 19, DT_QINT32 = 20,
    DT_QUINT8 = 21, DT_QUINT16 = 22, DT_RESOURCE = 23, DT_STRING_REF = 24, DT_DUAL = 25, DT_VARIANT = 26, DT_BF16 = 27,
    DT_UNDEFINED = 28, DT_INT4 = 29, DT_UINT1 = 30, DT_INT2 = 31, DT_UINT2 = 32, DT_COMPLEX32 = 33, DT_HIFLOAT8 = 34,
    DT_FLOAT8_E5M2 = 35, DT_FLOAT8_E4M3FN = 36, DT_FLOAT8_E8M0 = 37, DT_MAX
};

enum Format {
    FORMAT_NCHW = 0, FORMAT_NHWC = 1, FORMAT_ND = 2, FORMAT_NC1HWC0 = 3, FORMAT_FRACTAL_Z = 4, FORMAT_NC1C0HWPAD = 5,
    FORMAT_NHWC1C0 = 6, FORMAT_FSR_NCHW = 7, FORMAT_FRACTAL_DECONV = 8, FORMAT_C1HWNC0 = 9, FORMAT_CHWN = 14,
    FORMAT_HWCN = 16, FORMAT_FRACTAL_NZ = 29, FORMAT_NCDHW = 30, FORMAT_DHWCN = 31, FORMAT_NDHWC = 27,
    FORMAT_NDC1HWC0 = 32, FORMAT_FRACTAL_Z_3D = 33, FORMAT_RESERVED = 40, FORMAT_ALL = 41, FORMAT_NULL = 42,
    FORMAT_MAX = 0xff
};
// A storage format packs sub-format and C0 bits above the primary format (low byte).
inline int32_t GetPrimaryFormat(int32_t format) { return format & 0xff; }
inline int32_t GetSubFormat(int32_t format) { return (format >> 8) & 0xffff; }

inline int GetSizeByDataType(DataType dt) {
    switch (dt) {
        case DT_FLOAT: case DT_INT32: case DT_UINT32: return 4;
        case DT_FLOAT16: case DT_BF16: case DT_INT16: case DT_UINT16: return 2;
        case DT_INT8: case DT_UINT8: case DT_BOOL: case DT_QINT8: case DT_QUINT8: case DT_HIFLOAT8:
        case DT_FLOAT8_E5M2: case DT_FLOAT8_E4M3FN: case DT_FLOAT8_E8M0: return 1;
        case DT_INT64: case DT_UINT64: case DT_DOUBLE: case DT_COMPLEX64: return 8;
        case DT_COMPLEX128: return 16;
        default: return -1;
    }
}

constexpr int64_t UNKNOWN_DIM = -1;
constexpr int64_t UNKNOWN_DIM_NUM = -2;

// The graph-level shape used by the high-level tiling helpers (e.g. SoftMaxTilingFunc).
class Shape {
public:
    Shape() = default;
    explicit Shape(const std::vector<int64_t>& dims) : dims_(dims) {}
    size_t GetDimNum() const { return dims_.size(); }
    int64_t GetDim(size_t idx) const { return idx < dims_.size() ? dims_[idx] : 0; }
    graphStatus SetDim(size_t idx, int64_t value) {
        if (idx >= dims_.size()) return GRAPH_FAILED;
        dims_[idx] = value;
        return GRAPH_SUCCESS;
    }
    std::vector<int64_t> GetDims() const { return dims_; }
    int64_t GetShapeSize() const {
        int64_t n = 1;
        for (int64_t d : dims_) n *= d;
        return dims_.empty() ? 0 : n;
    }

private:
    std::vector<int64_t> dims_;
};

class AscendString {
public:
    AscendString() = default;
    AscendString(const char* s) : s_(s ? s : "") {}
    const char* GetString() const { return s_.c_str(); }
    size_t GetLength() const { return s_.size(); }
    bool operator<(const AscendString& o) const { return s_ < o.s_; }
    bool operator==(const AscendString& o) const { return s_ == o.s_; }

private:
    std::string s_;
};
}  // namespace ge
