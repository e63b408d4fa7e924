// The region-proposal sort instructions of the earlier vector units (ProposalConcat/Extract,
// RpSort16, MrgSort4). CANN 8.x declares them for A2/A3 too, so kernels written for those
// devices compile, but their A2/A3 bodies only report "unsupported API on current device" when
// they run (dav_c220 kernel_operator_proposal_impl.h); so does the emulation. A2/A3 kernels sort
// with Sort32/MrgSort (kw/vec_sort.h).
#pragma once
#include "kw/vec_sort.h"

namespace kw {
[[noreturn]] inline void unsupported_on_device(const char* api) {
    rt::Diag("api.unsupported_on_device", api)
        .msg(std::string(api) + " is an unsupported API on current device (" + rt::soc().name +
             "): CANN declares it, but on this device it stops the kernel when it runs")
        .hint("sort with Sort32 (32-element runs) and MrgSort (merging up to 4 sorted lists), the sort instructions of A2/A3")
        .fatal();
}
}  // namespace kw

namespace AscendC {
template <typename T>
[[deprecated("MrgSort4 is an unsupported API on current device")]] inline void MrgSort4(const LocalTensor<T>&, const MrgSortSrcList<T>&,
                                                                                    const MrgSort4Info&) {
    kw::unsupported_on_device("MrgSort4");
}
template <typename T>
[[deprecated("RpSort16 is an unsupported API on current device")]] inline void RpSort16(const LocalTensor<T>&, const LocalTensor<T>&,
                                                                                    const int32_t) {
    kw::unsupported_on_device("RpSort16");
}
template <typename T>
[[deprecated("ProposalConcat is an unsupported API on current device")]] inline void ProposalConcat(const LocalTensor<T>&,
                                                                                                const LocalTensor<T>&, const int32_t,
                                                                                                const int32_t) {
    kw::unsupported_on_device("ProposalConcat");
}
template <typename T>
[[deprecated("ProposalExtract is an unsupported API on current device")]] inline void ProposalExtract(const LocalTensor<T>&,
                                                                                                  const LocalTensor<T>&, const int32_t,
                                                                                                  const int32_t) {
    kw::unsupported_on_device("ProposalExtract");
}
}  // namespace AscendC
