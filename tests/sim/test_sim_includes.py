"""A project's own include directories: NPUKernelBench builds answers inside its cann-ops tree,
whose `src/common/inc` (tiling_base.h, ops_log.h, ...) is on the path; a task tree next to that
`libs/` directory gets the same -I flags and defines, KW_SIM_INCLUDE adds more, and the headers'
contents key the build cache. The CANN host APIs those headers need have stand-ins."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kernelwright.tools.project import KernelProject
from kernelwright.tools.sim import includes

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim_harness_ops as h  # noqa: E402


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    inc = tmp_path / "bench" / includes.NPUKB_COMMON
    (inc / "tiling").mkdir(parents=True)
    (inc / "kernel").mkdir()
    (inc / "tiling" / "helper.h").write_text("#pragma once\n#define HELPER 1\n")
    answer = tmp_path / "bench" / "tasks" / "level1" / "Math" / "Op" / "answer" / "0"
    answer.mkdir(parents=True)
    return inc, answer


def test_npukb_tree_gets_the_common_include_dirs(tmp_path, monkeypatch):
    inc, answer = _tree(tmp_path)
    monkeypatch.delenv(includes.ENV, raising=False)
    p = KernelProject(name="Op", kind="msopgen", origin=str(answer))
    assert includes.flags(p) == [f"-I{inc.resolve()}", f"-I{(inc / 'kernel').resolve()}", *includes.NPUKB_DEFINES]
    before = includes.key_parts(p)
    (inc / "tiling" / "helper.h").write_text("#pragma once\n#define HELPER 2\n")
    assert includes.key_parts(p) != before           # header edits rebuild
    elsewhere = KernelProject(name="Op", kind="msopgen", origin=str(tmp_path))
    assert includes.flags(elsewhere) == [] and includes.key_parts(elsewhere) == []


def test_env_adds_directories(tmp_path, monkeypatch):
    extra = tmp_path / "extra"
    extra.mkdir()
    monkeypatch.setenv(includes.ENV, f"{extra}:{tmp_path / 'missing'}")
    assert includes.flags(KernelProject(name="k", kind="kernel_launch")) == [f"-I{extra.resolve()}"]


@pytest.mark.skipif(not h.have_compiler(), reason="clang++-16 not installed")
def test_cann_host_stand_ins_compile():
    src = r"""
#include <securec.h>
#include <toolchain/slog.h>
#include <common/util/error_manager/error_manager.h>
#include <exe_graph/runtime/tiling_parse_context.h>
#include <graph/types.h>
int f(gert::TilingParseContext* ctx) {
    char buf[16];
    if (snprintf_s(buf, sizeof(buf), sizeof(buf) - 1, "%d", 42) < 0 || memset_s(buf, sizeof(buf), 0, 4) != EOK) return 1;
    if (CheckLogLevel(OP, DLOG_DEBUG) == 0) DlogSub(OP, "OP_TILING", DLOG_ERROR, "bad %s", "shape");
    REPORT_INNER_ERROR("E89999", "tiling failed: %d", 3);
    (void)ctx->GetCompiledInfo<int>();
    return ge::GetPrimaryFormat(ge::FORMAT_ND | (1 << 8)) == ge::FORMAT_ND ? 0 : 1;
}
"""
    ok, err = h.compile_check(src, extra=["-DKERNELWRIGHT_SIM=1"])
    assert ok, err
