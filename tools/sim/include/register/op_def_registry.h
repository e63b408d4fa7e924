// Host-side stand-in: OP_ADD registers the op class so the kernelwright host runner can
// describe it and call its tiling / shape inference.
#pragma once
#include "register/op_def.h"
#include "register/op_impl_registry.h"
#include "kwhost/registry.h"

#define OP_ADD(opType, ...)                                                                                            \
    static int g_##opType##_added = (::kwhost::op_defs().push_back({#opType, []() -> ::ops::OpDef { return opType(#opType); }}), 0)
