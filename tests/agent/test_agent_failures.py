"""One failure record: what failed (the DSL check, the lowering, a patch, the kernel) is kept in
`RunState.failure`; routing and the debugger read it; the node wrapper clears each attempt's fields;
the typed state survives the checkpoint serializer."""
import json
from pathlib import Path

from kernelwright.agent import dslkit
from kernelwright.agent.deps import Deps
from kernelwright.agent.graph import Router, _step
from kernelwright.agent.models import ScriptedModel
from kernelwright.agent.nodes.debugger import debugger
from kernelwright.agent.nodes.lowerer import lowerer
from kernelwright.agent.replies import one_code_block
from kernelwright.agent.checkpoints import serializer
from kernelwright.agent.state import Failure, Feedback, Unusable, VerdictBrief, initial_state
from kernelwright.agent.triage import suggest
from kernelwright.tools.tasks import load_task

HERE = Path(__file__).parent
TASK, REPLIES = HERE / "tasks" / "abs_scale.py", HERE / "transcripts" / "replies"


class NoDocs:
    def search(self, query, k=5, kinds=None, soc=None):
        return []


def advance(state, update):
    """The state after a node's update (the counters' reducers do not matter here)."""
    return state | {k: v for k, v in update.items() if k not in ("path", "attempts", "usage")}


def lowered_state(tmp_path):
    task = load_task(TASK)
    dsl = one_code_block((REPLIES / "abs_scale_good.md").read_text(), ("python",), "the program")
    project, holes = dslkit.lower(dsl, task)
    return initial_state(task, "r1", str(tmp_path)) | {"dsl": dsl, "dsl_version": 1, "project": project,
                                                         "project_version": 1, "holes": holes, "lowered_from": 1}


def test_a_patch_that_does_not_apply_goes_back_to_the_debugger_as_its_own_failed_patch(tmp_path, agent_config):
    state = lowered_state(tmp_path)
    kernel = dslkit.kernel_file(state["project"])
    line = next(ln for ln in state["project"].files[kernel].splitlines() if "Muls(" in ln)
    edit = "{}\n<<<<<<< SEARCH\n{}\n=======\n{}\n>>>>>>> REPLACE\n"
    bad = edit.format(kernel, line.replace("Muls(", "Muls<float>("), line + "  // patched")
    good = edit.format(kernel, line, line + "  // patched")
    decision = {"fault": "ascendc", "explanation": "my SEARCH text was not in the source",
                "instructions": "copy the line exactly"}
    model = ScriptedModel([{"node": "debugger", "content": json.dumps(decision) + f"\n```cpp\n{good}```"}])
    deps = Deps(config=agent_config, models={"debugger": model}, writer=None, toolchain=None, retriever=NoDocs())
    lower, debug, route = _step("lowerer", lowerer, deps), _step("debugger", debugger, deps), Router(deps, set())

    state["feedback"] = Feedback(to="lowerer", source="debugger", text="patch it", code=bad)
    update = lower(state)
    failure = update["failure"]
    assert failure.subject == "patch" and failure.stage == "apply" and failure.details == [bad]
    assert failure.summary.startswith("your patch does not apply: edit 1: the SEARCH text occurs 0 times")
    assert "project" not in update and update["feedback"] is None      # nothing applied; the feedback is used up
    state = advance(state, update)
    assert route.after("lowerer")(state) == "debugger"
    assert suggest(state)[0] == "ascendc"                                # not "the code generator could not lower"

    update = debug(state)
    [(node, messages)] = model.calls
    prompt = messages[-1]["content"]
    assert "What failed (patch, stage apply): your patch does not apply: edit 1" in prompt and bad in prompt
    assert line in prompt and "could not lower" not in prompt            # the current source, to patch against
    assert update["failure"] is None and update["feedback"].to == "lowerer" and update["feedback"].code == good
    state = advance(state, update)

    update = lower(state)
    assert update["failure"] is None and update["project_version"] == 2
    assert line + "  // patched" in update["project"].files[kernel]


def test_the_node_wrapper_clears_each_attempts_fields_but_keeps_them_for_a_retry(agent_config):
    deps = Deps(config=agent_config, models={}, writer=None, toolchain=None, retriever=NoDocs())
    before = {"failure": Failure(subject="kernel", stage="build", summary="s"), "review": {"action": "approve"},
              "feedback": Feedback(to="lowerer", source="debugger", text="t")}
    done = _step("verify", lambda state, deps: {"verdict": None}, deps)(before)
    assert {k: done[k] for k in ("failure", "feedback", "format_error", "review")} == dict.fromkeys(
        ("failure", "feedback", "format_error", "review"))
    assert done["attempts"] == {"verify": 1} and done["path"] == ["verify"]
    unusable = Unusable(node="lowerer", reply="?", problem="no block", expected="a block", count=1)
    retry = _step("lowerer", lambda state, deps: {"format_error": unusable}, deps)(before)
    assert "failure" not in retry and "feedback" not in retry and retry["attempts"] == {}


def test_the_typed_state_survives_the_checkpoint_serializer(tmp_path, agent_config):
    from kernelwright.agent.config import RunSettings
    state = lowered_state(tmp_path) | {
        "settings": RunSettings(config=agent_config, models={"planner": "builtin"}),
        "verdict": VerdictBrief(version=1, status="fail", stage="build", summary="s", details=["d"]),
        "failure": Failure(subject="kernel", stage="build", summary="s"),
        "feedback": Feedback(to="lowerer", source="debugger", text="t"),
        "format_error": Unusable(node="planner", reply="r", problem="p", expected="e", count=1)}
    serde = serializer()
    back = serde.loads_typed(serde.dumps_typed(state))
    assert back == state
    assert {k: type(v) for k, v in back.items()} == {k: type(v) for k, v in state.items()}
    assert type(back["holes"]).__name__ == "list" and type(back["settings"].config.paths.runs) is type(
        agent_config.paths.runs)
