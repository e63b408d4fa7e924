// Host-side stand-in of the tiling-data macros. A class declared with BEGIN_TILING_DATA_DEF
// lays its fields out in declaration order, each aligned to its own size (struct fields to 8),
// and the whole to 8 bytes; the kernel-side struct that kernelwright generates has the same
// layout, so GET_TILING_DATA reads exactly what SaveToBuffer wrote.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>
#include "graph/types.h"
#include "kwhost/registry.h"

namespace optiling {

struct FieldInfo {
    std::string dtype, name, struct_type;
    size_t offset = 0, elem_size = 0, count = 1, struct_size = 0;
    const class TilingDef* nested = nullptr;
};

class TilingDef {
public:
    TilingDef() = default;
    TilingDef(const TilingDef&) = delete;
    TilingDef& operator=(const TilingDef&) = delete;
    virtual ~TilingDef() = default;
    void SaveToBuffer(void* pdata, size_t capacity);
    std::vector<FieldInfo> GetFieldInfo() const { return field_info_; }
    const char* GetTilingClassName() const { return class_name_; }
    size_t GetDataSize() const { return data_size_; }
    const uint8_t* kw_bytes() const { return data_ptr_; }
    void SetDataPtr(void* ptr) { data_ptr_ = static_cast<uint8_t*>(ptr); }  // public in CANN 8.x

protected:
    void InitData() {
        own_.assign(data_size_, 0);
        data_ptr_ = own_.data();
    }
    void CheckAlignAndGenPlaceHolder(const char*, size_t typeSize) {
        if (typeSize && data_size_ % typeSize) data_size_ += typeSize - data_size_ % typeSize;
    }
    size_t FieldHandler(const char* dtype, const char* name, size_t typeSize, const char* namePh) {
        CheckAlignAndGenPlaceHolder(namePh, typeSize);
        FieldInfo f;
        f.dtype = dtype;
        f.name = name;
        f.offset = data_size_;
        f.elem_size = typeSize;
        field_info_.push_back(f);
        data_size_ += typeSize;
        return f.offset;
    }
    size_t FieldHandler(const char* dtype, const char* name, size_t typeSize, size_t arrSize, const char* namePh) {
        CheckAlignAndGenPlaceHolder(namePh, typeSize);
        FieldInfo f;
        f.dtype = dtype;
        f.name = name;
        f.offset = data_size_;
        f.elem_size = typeSize;
        f.count = arrSize;
        field_info_.push_back(f);
        data_size_ += typeSize * arrSize;
        return f.offset;
    }
    size_t FieldHandler(const char*, const char* name, const char* structType, const TilingDef& nested, const char* namePh) {
        CheckAlignAndGenPlaceHolder(namePh, 8);
        FieldInfo f;
        f.dtype = "struct";
        f.name = name;
        f.struct_type = structType;
        f.offset = data_size_;
        f.struct_size = nested.GetDataSize();
        f.nested = &nested;
        field_info_.push_back(f);
        data_size_ += f.struct_size;
        return f.offset;
    }

    std::vector<FieldInfo> field_info_;
    uint8_t* data_ptr_ = nullptr;
    size_t data_size_ = 0;
    const char* class_name_ = "";
    std::vector<uint8_t> own_;
};

inline void TilingDef::SaveToBuffer(void* pdata, size_t capacity) {
    if (!pdata) return;
    size_t n = data_size_ < capacity ? data_size_ : capacity;
    std::memcpy(pdata, data_ptr_, n);
    for (const FieldInfo& f : field_info_) {
        if (!f.nested || f.offset >= capacity) continue;
        size_t m = f.struct_size < capacity - f.offset ? f.struct_size : capacity - f.offset;
        std::memcpy(static_cast<uint8_t*>(pdata) + f.offset, f.nested->kw_bytes(), m);
    }
}

}  // namespace optiling

#define BEGIN_TILING_DATA_DEF(class_name)                 \
    class class_name : public ::optiling::TilingDef {     \
    public:                                               \
        class_name() {                                    \
            class_name_ = #class_name;                    \
            CheckAlignAndGenPlaceHolder(#class_name "PH", 8); \
            InitData();                                   \
        }                                                 \
        explicit class_name(void* ptr) {                  \
            class_name_ = #class_name;                    \
            CheckAlignAndGenPlaceHolder(#class_name "PH", 8); \
            InitData();                                   \
            (void)ptr;                                    \
        }

#define TILING_DATA_FIELD_DEF(data_type, field_name)                                                         \
public:                                                                                                      \
    void set_##field_name(data_type field_name) {                                                            \
        field_name##_ = field_name;                                                                          \
        std::memcpy(data_ptr_ + field_name##_offset_, &field_name##_, sizeof(data_type));                    \
    }                                                                                                        \
    data_type get_##field_name() { return field_name##_; }                                                   \
                                                                                                             \
private:                                                                                                     \
    data_type field_name##_ = 0;                                                                             \
    size_t field_name##_offset_ = FieldHandler(#data_type, #field_name, sizeof(data_type), #field_name "PH");

#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name)                                                 \
public:                                                                                                           \
    void set_##field_name(arr_type* field_name) {                                                                 \
        field_name##_ = field_name;                                                                               \
        if (data_ptr_ + field_name##_offset_ != reinterpret_cast<uint8_t*>(field_name))                          \
            std::memcpy(data_ptr_ + field_name##_offset_, field_name, (arr_size) * sizeof(arr_type));             \
    }                                                                                                             \
    arr_type* get_##field_name() { return reinterpret_cast<arr_type*>(data_ptr_ + field_name##_offset_); }         \
                                                                                                                  \
private:                                                                                                          \
    arr_type* field_name##_ = nullptr;                                                                            \
    size_t field_name##_offset_ = FieldHandler(#arr_type, #field_name, sizeof(arr_type), arr_size, #field_name "PH");

#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name)                                           \
public:                                                                                                 \
    struct_type field_name{nullptr};                                                                    \
                                                                                                        \
private:                                                                                                \
    size_t field_name##_offset_ = FieldHandler("struct", #field_name, #struct_type, field_name, #field_name "PH");

#define END_TILING_DATA_DEF \
    }                       \
    ;

#define REGISTER_TILING_DATA_CLASS(op_type, class_name)                                                         \
    namespace {                                                                                                 \
    struct op_type##class_name##KwHelper {                                                                      \
        op_type##class_name##KwHelper() {                                                                       \
            ::kwhost::tiling_classes().push_back(                                                               \
                {#op_type, #class_name, []() -> std::shared_ptr<::optiling::TilingDef> { return std::make_shared<class_name>(); }}); \
        }                                                                                                       \
    };                                                                                                          \
    static op_type##class_name##KwHelper g_kw_tilingdata_##op_type##class_name##helper;                        \
    }
