"""The direct AscendC route, driven by replayed transcripts: the planner chooses it, the writer writes the
kernel over the generated skeleton, the same referee judges it and the same debugger repairs it; a plan
requirement the kernel does not honour (no cube instruction) is sent back, never silently accepted."""
import json

from kernelwright.agent.ascendc_skeleton import skeleton_program
from kernelwright.agent.patching import PatchError, apply_reply


def events(result, node):
    lines = (result.artifacts / "events.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["node"] == node]


def test_direct_route_passes(run_task):
    result, model = run_task("direct_route_pass")
    assert result.path == ["planner", "ascendc_writer", "verify", "finish"]
    assert result.status == "passed", result.reason
    assert model.remaining == 0
    assert (result.artifacts / "project/skeleton/op_kernel/abs_scale.cpp").exists()
    kernel = (result.kernel / "op_kernel/abs_scale.cpp").read_text()
    assert "Muls(yout, yout, 2.0f, n);" in kernel and not (result.kernel / "kernel.dsl.py").exists()


def test_direct_route_is_repaired_by_the_debugger(run_task):
    result, model = run_task("direct_route_repair")
    assert result.path == ["planner", "ascendc_writer", "verify", "debugger", "ascendc_writer", "verify", "finish"]
    assert result.status == "passed", result.reason
    assert model.remaining == 0          # the second writer run applied the debugger's edit without asking
    assert [e["stage"] for e in events(result, "verify")] == ["compare", "pass"]
    assert events(result, "debugger")[0]["fault"] == "ascendc"


def test_cube_requirement_not_honoured_is_sent_back_and_reported(run_task):
    result, model = run_task("direct_route_cube_unmet")
    assert result.path == ["planner", "ascendc_writer", "verify", "debugger", "planner", "finish"]
    assert model.remaining == 0
    assert result.status == "passed" and "requirement not honoured" in result.reason
    plans = sorted(result.artifacts.glob("plan.v*.json"))
    assert [json.loads(p.read_text())["cube"] for p in plans] == [True, False]     # revised, not dropped


def test_skeleton_names_reference_values_as_the_binding_does():
    trace = {"inputs": [{"name": "A", "shape": [4, 8], "dtype": "float32"}, {"name": "dim", "value": 1}],
             "init": [{"name": "eps", "value": 1e-5}], "params": [{"name": "fc.weight", "shape": [8, 8], "dtype": "float16"}],
             "nodes": [{"name": "out", "op": "output", "args": [{"node": "mm"}], "shape": [4, 8], "dtype": "float32"},
                       {"name": "mm", "op": "matmul", "shape": [4, 8], "dtype": "float32"}]}
    program = skeleton_program(trace, "my_op")
    assert '@A.kernel(inputs={"A_": (A.f32,), "fc_weight": (A.f16,)}, outputs={"y": (A.f32,)}, ' \
           'attrs={"eps": 1e-05, "dim": 1})' in program
    assert "A__d0=A_.shape[0], A__d1=A_.shape[1]" in program and "def my_op(A_, fc_weight, y, t):" in program


def test_reply_with_whole_files_and_edits():
    files = {"op_kernel/k.cpp": "a\nb\n", "op_host/k.cpp": "h\n"}
    reply = "op_kernel/k.cpp\n```cpp\nx\ny\n```\nop_kernel/k.cpp\n<<<<<<< SEARCH\ny\n=======\nz\n>>>>>>> REPLACE\n"
    assert apply_reply(files, reply, "op_kernel/k.cpp")["op_kernel/k.cpp"] == "x\nz\n"
    try:
        apply_reply(files, "**op_host/other.cpp**\n```cpp\nq\n```", "op_kernel/k.cpp")
    except PatchError as e:
        assert "no file op_host/other.cpp" in str(e)
    else:
        raise AssertionError("a new op_host source was accepted")


def test_a_recorded_direct_route_run_replays_through_the_whole_graph(agent_config, sim):
    """Real model replies (evals/mitl round s4: the player chose the direct route for a row scan the DSL has no
    primitive for) against our own stand-in task of the same signature, with ragged rows."""
    from pathlib import Path

    from kernelwright.agent.api import generate
    from kernelwright.agent.models import ReplayModel
    here = Path(__file__).parent
    model = ReplayModel(here / "transcripts" / "mitl_direct" / "cumprod.jsonl")
    result = generate(here / "tasks" / "mitl_direct" / "cumprod.py", model=model, config=agent_config, toolchain=sim)
    assert result.path == ["planner", "ascendc_writer", "verify", "finish"] and model.remaining == 0
    assert result.status == "passed", result.reason
