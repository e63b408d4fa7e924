"""Cube and Matmul misuse the NPU punishes, reported here with a rule at the user's line: a missing
cube-pipe flag, a misaligned L0A operand, an L0A reservation past 64 KiB, a cube load into UB,
a wrong fractal layout (wrong numbers, as on the NPU), and Matmul tilings that are empty or do
not fit L0. Each case mutates a good corpus kernel in one place."""
import numpy as np
import pytest

from kernelwright.tools.project import KernelProject
from kernelwright.tools.sim import corpus

ENTRIES = {e.name: e for e in corpus.load(kind="good")}


def _mutated(name: str, rel: str, old: str, new: str) -> tuple[KernelProject, str]:
    project = ENTRIES[name].project()
    text = project.files[rel]
    assert old in text, f"{old!r} not in {rel}"
    project.files[rel] = text.replace(old, new, 1)
    line = project.files[rel][: project.files[rel].index(new)].count("\n") + 1 if new else 0
    return project, line


def _run_first_case(sim, name, project):
    build = sim.build(project)
    assert build.ok, [d.render() for d in build.diagnostics]
    case = ENTRIES[name].cases()[0]
    return case, sim.run(build, case)


RAW = "cube_tbuf_flags"
RAW_SRC = "cube_tbuf_flags.cpp"


@pytest.mark.parametrize("old,new,rule,at", [
    ("    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);\n", "\n", "pipe.hazard.raw", "Mmad(c1"),
    ("Mmad(c1, a2, b2,", "Mmad(c1, a2[8], b2,", "cube.align", "Mmad(c1"),
    # past twice L0A's 64 KiB: InitBuffer itself fails (a smaller overshoot fails only where it is used)
    ("pipe.InitBuffer(a2Buf, ROWS * kA * sizeof(half));", "pipe.InitBuffer(a2Buf, 160 * 1024);", "local.capacity",
     "pipe.InitBuffer(a2Buf"),
    ("TBuf<TPosition::A2> a2Buf;", "TBuf<TPosition::VECCALC> a2Buf;", "cube.position", "LoadData(a2["),
])
def test_raw_cube_misuse_is_reported_at_its_line(sim, old, new, rule, at):
    project, _ = _mutated(RAW, RAW_SRC, old, new)
    _, run = _run_first_case(sim, RAW, project)
    assert run.status == "rule_violation", run.status
    errors = [d for d in run.diagnostics if d.severity == "error"]
    assert errors and errors[0].rule == rule, [d.render() for d in errors]
    want_line = next(i for i, ln in enumerate(project.files[RAW_SRC].splitlines(), 1) if at in ln)
    assert errors[0].file == RAW_SRC and errors[0].line == want_line, errors[0].render()
    assert errors[0].hint


def test_wrong_fractal_layout_gives_wrong_numbers(sim):
    # B loaded into L0B without the per-fractal transpose: runs, but the product is not A x B
    project, _ = _mutated(RAW, RAW_SRC, "LoadData2DParams(0, nA / 16, kA / 16, 0, 0, true, 0)",
                          "LoadData2DParams(0, nA / 16, kA / 16, 0, 0, false, 0)")
    case, run = _run_first_case(sim, RAW, project)
    assert run.status == "ok"
    assert ENTRIES[RAW].mismatches(case, run.outputs)


MM = "matmul_custom"
MM_SRC = "op_kernel/matmul_custom.cpp"


@pytest.mark.parametrize("new,rule", [
    ("TCubeTiling bad = t;\n    bad.baseK = 4096;\n    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &bad);", "mm.l0_capacity"),
    ("TCubeTiling bad{};\n    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &bad);", "mm.tiling"),
    ("REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm);", "mm.not_initialised"),
])
def test_matmul_tiling_misuse(sim, new, rule):
    project, _ = _mutated(MM, MM_SRC, "REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);", new)
    _, run = _run_first_case(sim, MM, project)
    assert run.status == "rule_violation"
    errors = [d for d in run.diagnostics if d.severity == "error"]
    assert errors[0].rule == rule and errors[0].file == MM_SRC, [d.render() for d in errors]


def test_matmul_without_end_warns_and_workspace_is_checked(sim):
    project, _ = _mutated(MM, MM_SRC, "    mm.End();\n", "\n")
    _, run = _run_first_case(sim, MM, project)
    assert run.status == "ok"
    assert any(d.rule == "mm.end_missing" and d.severity == "warning" for d in run.diagnostics)
    host = "op_host/matmul_custom.cpp"
    project, _ = _mutated(MM, host, "context->GetWorkspaceSizes(1)[0] = platform.GetLibApiWorkSpaceSize();",
                          "context->GetWorkspaceSizes(1)[0] = 1024;")
    _, run = _run_first_case(sim, MM, project)
    assert run.status == "rule_violation"
    assert [d.rule for d in run.diagnostics if d.severity == "error"][0] == "mm.workspace"


def test_matmul_counters_and_mix_blocks(sim):
    build = sim.build(ENTRIES[MM].project())
    case = ENTRIES[MM].cases()[0]  # 64 x 96 x 48 fp16 over the vector cores, two per block
    run = sim.run(build, case)
    assert run.status == "ok"
    assert len(run.block_status) == 2 * run.block_dim
    macs = sum(c["macs"] for blk in run.counters for c in blk.get("cube", []) if c["api"] == "Mmad")
    assert macs == 64 * 96 * 48
    np.testing.assert_allclose(run.outputs["c"], ENTRIES[MM].reference(case)["c"], rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("new,rule", [
    # every block computes the whole C and stores the same values (MKB four_dim_tensor_matrix_multiplication):
    # whichever block lands last, C is right
    ("mm.SetTensorA(aGm, tilingData.transA);\n    mm.SetTensorB(bGm, tilingData.transB);\n"
     "    mm.SetTail(t.M, t.N);\n    mm.IterateAll(cGm);", None),
    # every block stores its own tile's values at C's start: the result depends on which lands last
    ("mm.IterateAll(cGm);", "gm.race"),
])
def test_blocks_storing_the_same_matmul_result_do_not_race(sim, new, rule):
    project, _ = _mutated(MM, MM_SRC, "mm.IterateAll(cGm[offsetC]);", new)
    case, run = _run_first_case(sim, MM, project)
    errors = [d.rule for d in run.diagnostics if d.severity == "error"]
    if rule is None:
        assert run.status == "ok", errors
        np.testing.assert_allclose(run.outputs["c"], ENTRIES[MM].reference(case)["c"], rtol=1e-4, atol=1e-3)
    else:
        assert run.status == "rule_violation" and errors[0] == rule, errors
