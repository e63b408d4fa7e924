// Host-side stand-in of PlatformAscendC: hardware queries answered from the SoC profile of
// the case being run (tools/hardware/socs.json).
#pragma once
#include <cstdint>
#include "kwhost/gert.h"

namespace platform_ascendc {
enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, RESERVED };
enum class SocVersion { ASCEND910 = 0, ASCEND910B, ASCEND310P, ASCEND310B, RESERVED_VERSION = 99999 };

class PlatformAscendC {
public:
    PlatformAscendC() = delete;
    ~PlatformAscendC() = default;
    explicit PlatformAscendC(fe::PlatFormInfos* platformInfo) : info_(platformInfo) {}
    // Vector cores on split (Cube/Vector) architectures, AI Cores on coupled ones.
    uint32_t GetCoreNum(void) const { return info_->split_arch ? info_->aiv_cores : info_->aic_cores; }
    uint32_t GetCoreNumAic(void) const { return info_->aic_cores; }
    uint32_t GetCoreNumAiv(void) const { return info_->split_arch ? info_->aiv_cores : info_->aic_cores; }
    uint32_t GetCoreNumVector(void) const { return info_->cce_aicore == 200 ? info_->vector_core_m200 : 0; }
    uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
        if (aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum) return sliceNum;
        uint32_t ratio = aivCoreNum / aicCoreNum;
        return ratio ? (sliceNum + ratio - 1) / ratio : sliceNum;
    }
    uint32_t GetLibApiWorkSpaceSize(void) const { return info_->cce_aicore >= 220 ? 16u * 1024 * 1024 : 2u * 1024 * 1024; }
    uint32_t GetResCubeGroupWorkSpaceSize(void) const { return 0; }
    uint32_t GetResGroupBarrierWorkSpaceSize(void) const { return 0; }
    void GetCoreMemSize(const CoreMemType& memType, uint64_t& size) const {
        switch (memType) {
            case CoreMemType::L0_A: size = info_->l0a; break;
            case CoreMemType::L0_B: size = info_->l0b; break;
            case CoreMemType::L0_C: size = info_->l0c; break;
            case CoreMemType::L1: size = info_->l1; break;
            case CoreMemType::L2: size = info_->l2; break;
            case CoreMemType::UB: size = info_->ub; break;
            case CoreMemType::HBM: size = info_->hbm; break;
            default: size = 0;
        }
    }
    void GetCoreMemBw(const CoreMemType&, uint64_t& bwSize) const { bwSize = 0; }
    SocVersion GetSocVersion(void) const {
        if (info_->short_soc == "Ascend910B" || info_->short_soc == "Ascend910_93") return SocVersion::ASCEND910B;
        if (info_->short_soc == "Ascend310P") return SocVersion::ASCEND310P;
        if (info_->short_soc == "Ascend310B") return SocVersion::ASCEND310B;
        return SocVersion::ASCEND910;
    }

private:
    fe::PlatFormInfos* info_;
};

fe::PlatFormInfos* kw_current_platform();  // the profile of the case being run

class PlatformAscendCManager {
public:
    static PlatformAscendC* GetInstance() {
        static PlatformAscendC p(kw_current_platform());
        return &p;
    }
    static PlatformAscendC* GetInstance(const char*) { return GetInstance(); }
};
}  // namespace platform_ascendc
