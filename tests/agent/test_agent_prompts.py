"""Prompt templates render strictly, show the DSL examples of the plan's family and chip facts from the
SoC data; replies are read into code blocks and JSON objects with problems written for the model."""
import json

import pytest

from kernelwright.agent import dslkit
from kernelwright.agent.prompting import chip_facts, examples, families, render, render_text
from kernelwright.agent.replies import FormatError, json_object, one_code_block
from kernelwright.agent.state import Decision, Feedback, Plan
from kernelwright.tools.task import Task

TASK = Task(name="relu", op_type="Relu", kernel_name="relu", layout="py", source="relu.py")
PLAN = Plan(category="elementwise", math="y = max(x, 0)", dtype_strategy="fp32", core_split="flat",
            tiling="two slots", tail_handling="counts", pitfalls=["bf16 has no arithmetic"])
TRACE = {"ok": True, "summary": "%x = input\n%relu = relu(%x)\nreturn %relu", "ops": ["relu"]}


def test_every_node_prompt_renders():
    chip = chip_facts(None)
    planner = render("planner", task=TASK, source="class Model: ...", trace=TRACE, chip=chip, families=families(),
                     passages=[{"cite": "api/Relu.md", "text": "Relu(dst, src, count)"}], feedback=None,
                     previous=None, schema=Plan.model_json_schema(), offered=dslkit.offered(),
                     binding="- input `conv_weight` <- conv.weight (float32, traced shape [8, 3, 3, 3])")
    assert [m["role"] for m in planner] == ["system", "user"] and "%relu = relu(%x)" in planner[1]["content"]
    assert f"{chip['ub_bytes']} bytes" in planner[1]["content"] and "api/Relu.md" in planner[1]["content"]
    assert "module parameters are kernel\ninputs" in planner[1]["content"] and "`conv_weight`" in planner[1]["content"]
    writer = render("dsl_writer", task=TASK, source="...", plan=PLAN, trace=TRACE, chip=chip, reference="",
                    examples=examples("elementwise"), previous="import adsl as A", verdict=None,
                    check={"ok": False, "stage": "rules", "summary": "1 rule", "diagnostics": ["error [dtype.op] at line 3"]},
                    feedback=Feedback(to="dsl_writer", source="debugger", text="cast to f32"), passages=[],
                    binding="- input `x` <- x (float32, traced shape [8, 16])")
    text = writer[1]["content"]
    assert "error [dtype.op] at line 3" in text and "cast to f32" in text and "pitfall: bf16" in text
    assert "import adsl as A" in text and "elementwise/" in text
    assert "- input `x` <- x" in text and "`conv1.weight` -> `conv1_weight`" in text and "shrunk" in text
    hole = {"name": "absval", "function": "Hole_absval", "begin_marker": "// KW-HOLE absval BEGIN",
            "end_marker": "// KW-HOLE absval END", "brief": "u = |v|", "fill": "Abss(u, v, n);", "spec": "u = |v|"}
    lowerer = render("lowerer", mode="hole", hole=hole, dsl="...", kernel="// kernel", chip=chip, feedback=None,
                     verdict={"status": "fail", "stage": "build", "summary": "does not build", "details": ["error: Abss"]},
                     passages=[])
    assert "Hole_absval" in lowerer[1]["content"] and "Abss(u, v, n);" in lowerer[1]["content"]
    debugger = render("debugger", route="dsl", failure={"subject": "kernel", "stage": "build", "summary": "s", "details": ["d"]},
                      suggestion={"fault": "ascendc", "why": "w"}, plan=PLAN.model_dump(), dsl="1 | x", holes=[hole],
                      files={"op_kernel/relu.cpp": "int main;", "op_host/relu.cpp": "host"}, passages=[],
                      schema=Decision.model_json_schema())
    assert "op_kernel/relu.cpp" in debugger[1]["content"] and "op_host/relu.cpp" not in debugger[1]["content"]
    assert "could not be used: no block." in render_text("format_error", problem="no block", expected="a block", attempt=1)


def test_the_writer_is_shown_the_dsl_reference_generated_from_the_tables():
    from kernelwright.agent.models import ScriptedModel
    from kernelwright.agent.writers import LlmWriter, WriteRequest
    from kernelwright.tools.dsl.primitives import prims
    req = WriteRequest(task=TASK, source="...", plan=PLAN, trace=TRACE)
    user = LlmWriter(ScriptedModel([])).messages(req)[1]["content"]
    assert user.startswith("The DSL reference:\n## Program")
    for needle in ("@A.shapes", "Queue lifetime", 'numpy="gather"', 'numpy="np.<ufunc>"', "A.Tiling(block_dim="):
        assert needle in user, needle
    assert all(p.form in user for p in prims().values())


def test_the_planner_sees_every_dsl_primitive_to_choose_its_route():
    from kernelwright.tools.dsl.primitives import prims
    offered = dslkit.offered()
    assert all(f"A.{name}" in offered for name in prims()), offered
    assert "A.Exp" in offered and 'gather' in offered and "CumSum" in offered     # CumSum: named as absent


def test_a_missing_variable_is_an_error():
    import jinja2
    with pytest.raises(jinja2.UndefinedError):
        render("planner", task=TASK, source="...")


def test_examples_and_chip_facts_come_from_data():
    assert {"elementwise", "softmax", "reduce"} <= set(families())
    ex = examples("softmax")
    assert ex and all(e["name"].startswith("softmax/") and "import adsl as A" in e["source"] for e in ex)
    assert examples("no-such-family")[0]["name"].startswith("elementwise/")
    # the closest examples of the family first (the mitl suite's scatter_add writer was shown embedding and gather)
    assert [e["name"] for e in examples("index", about="scatter_add_rows scatter_add")][0] == "index/scatter_add.dsl.py"
    from kernelwright.tools.hardware import load_soc
    soc = load_soc("Ascend910B4")
    assert chip_facts("Ascend910B4")["vector_cores"] == soc.vector_cores and chip_facts(None)["ub_bytes"] == soc.ub_bytes


def test_code_blocks_and_json_replies():
    assert one_code_block("a\n```python\nx = 1\n```\nthen\n```\nx = 2\n```\n", ("python",), "p") == "x = 2\n"
    with pytest.raises(FormatError, match="found only json blocks"):
        one_code_block('```json\n{}\n```\n', ("python",), "the program")
    with pytest.raises(FormatError, match="found no fenced code block"):
        one_code_block("just prose", ("cpp",), "the body")
    d = json_object('Here: {"fault": "dsl", "explanation": "e", "instructions": "i"}\n```python\nd = {"a": 1}\n```',
                    Decision)
    assert d.fault == "dsl"
    with pytest.raises(FormatError, match="fault: Input should be 'plan', 'dsl' or 'ascendc'"):
        json_object(json.dumps({"fault": "compiler", "explanation": "e", "instructions": "i"}), Decision)
