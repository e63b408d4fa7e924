"""bisheng's VA registers and the raw builtins around them (cann-ops AddLayerNorm broadcasts a column with
set_va_reg_sb + scatter_vnchwconv_b16, vtranspose, vor and vector_dup on __ubuf__ pointers): the register
pair VAn/VAn+1 holds a 16-address list, and the instructions compute what their AscendC forms compute."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim_harness_ops as h  # noqa: E402

pytestmark = pytest.mark.skipif(not h.have_compiler(), reason="clang++-16 not installed")

KERNEL = r"""
extern "C" __global__ __aicore__ void va(GM_ADDR a, GM_ADDR out, GM_ADDR out2) {
    TPipe pipe;
    In<half> x; x.load(pipe, a, 256);
    Out<half> o; o.init(pipe, out, 256);
    Out<int16_t> o2; o2.init(pipe, out2, 256);
    uint64_t dst[16], src[16];
    for (int i = 0; i < 16; ++i) {
        dst[i] = (uint64_t)(o.t[16 * i].GetPhyAddr());
        src[i] = (uint64_t)(x.t[16 * i].GetPhyAddr());
    }
    set_va_reg_sb(VA0, dst);
    set_va_reg_sb(VA1, dst + 8);
    set_va_reg_sb(VA2, src);
    set_va_reg_sb(VA3, src + 8);
    scatter_vnchwconv_b16(VA0, VA2, 1, 0, 0);         // out = x^T (16 x 16)
    __ubuf__ int16_t* p = (__ubuf__ int16_t*)o2.t.GetPhyAddr();
    set_vector_mask(0x0, 0xffff);                      // 16 lanes
    vector_dup(p, (int16_t)5, 16, 1, 1, (uint8_t)1, (uint8_t)0);   // 16 repeats of one block: all 256 = 5
    set_vector_mask(0xffffffffffffffffull, 0xffffffffffffffffull);
    vor(p, p, (__ubuf__ int16_t*)x.t.GetPhyAddr(), 2, 1, 1, 1, 8, 8, 8);   // 5 | bits of x
    o.store();
    o2.store();
}
KW_EXPORT_KERNEL(va)
"""


def test_vnchwconv_through_va_registers_transposes_and_raw_vor_dup_compute(tmp_path):
    a = (np.arange(256) % 97).astype(np.float16)
    r = h.build_and_run(tmp_path, h.kernel_source(KERNEL), "va",
                        [h.Buf("a", a), h.Buf("out", nbytes=512, role="out", dtype="float16"),
                         h.Buf("out2", nbytes=512, role="out", dtype="int16")],
                        [("buffer", "a"), ("buffer", "out"), ("buffer", "out2")])
    assert r.status == 0, r.diags
    np.testing.assert_array_equal(r.outputs["out"], a.reshape(16, 16).T.reshape(-1))
    np.testing.assert_array_equal(r.outputs["out2"], np.int16(5) | a.view(np.int16))
