"""Bad input is a clear FormatError (a ProjectError) naming the rule, the place and a hint, never a
traceback; six-strings answers are never run."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import formats_fixtures as fx  # noqa: E402

from kernelwright.tools.formats import loads, render  # noqa: E402
from kernelwright.tools.formats.base import FormatError  # noqa: E402

SIX = {"project_json_src": fx.OP_JSON, "host_tiling_src": fx.TILING_H, "host_operator_src": fx.HOST,
       "kernel_src": fx.KERNEL, "python_bind_src": fx.BIND, "model_src": fx.MODEL}


def six(**override: str) -> str:
    values = SIX | override
    return "".join(f"{k} = {v!r}\n" for k, v in values.items() if v is not None)


@pytest.mark.parametrize("code,complaint", [
    ("import os\n", r"answer.py:7: an import is not allowed"),
    ("os.system('rm -rf /')\n", r"answer.py:7: an expression statement \(e.g. a call\) is not allowed"),
    ("kernel_src = open('/etc/passwd').read()\n", r"`kernel_src` assigned a Call instead of a string literal"),
    ("kernel_src = f'{__import__(\"os\")}'\n", r"f-string with a \{...\} expression in `kernel_src`"),
    ("kernel_src = host_tiling_src\n", r"`kernel_src` assigned a Name"),
    ("a, b = 'x', 'y'\n", r"assignment to something other than a plain name"),
    ("for i in range(3):\n    pass\n", r"answer.py:7: a for loop is not allowed"),
])
def test_six_strings_with_code_are_rejected_unrun(code, complaint, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FormatError, match=complaint) as e:
        loads(six() + code, "answer.py")
    assert "read, never run" in str(e.value)


def test_missing_strings_are_named():
    with pytest.raises(FormatError, match=r"missing or empty host_tiling_src, kernel_src"):
        loads(six(host_tiling_src=None, kernel_src="   "), "answer.py")


def test_broken_python_and_bad_json_are_located():
    with pytest.raises(FormatError, match=r"answer.py:2: not valid Python"):
        loads('project_json_src = "[]"\nkernel_src = "unterminated\nhost_tiling_src = ""\n', "answer.py")
    with pytest.raises(FormatError, match=r"project_json_src: not valid JSON"):
        loads(six(project_json_src="[{'op': 'X'}]"), "answer.py")
    with pytest.raises(FormatError, match=r"expected a list holding one operator object"):
        loads(six(project_json_src="[]"), "answer.py")


def test_fenced_model_reply_is_accepted_and_garbage_is_not():
    reply = "Sure! Here is the code:\n```python\n" + six() + "```\nHope it helps."
    assert loads(reply, "reply.md").name == "ScaledSub"
    with pytest.raises(FormatError, match="not a kernel submission we know"):
        loads("I cannot help with AscendC kernels, sorry.\n" * 5, "reply.md")
    with pytest.raises(FormatError, match="not a kernel submission we know"):
        loads("\x00\x01binary\xff" * 10, "blob.bin")


def test_npukb_missing_and_empty_sections():
    bar = "=================="
    sections = f"{bar} op_host/scaled_sub.cpp {bar}\n```cpp\n{fx.HOST}```\n{bar} op_kernel/scaled_sub.cpp {bar}\n```cpp\n{fx.KERNEL}```\n"
    with pytest.raises(FormatError, match=r"missing section\(s\) op_host/scaled_sub_tiling.h") as e:
        loads(sections, "reply.md")
    assert "hint:" in str(e.value)
    empty = f"{bar} op_host/scaled_sub_tiling.h {bar}\nno fence here\n" + sections
    with pytest.raises(FormatError, match=r"reply.md:1: section op_host/scaled_sub_tiling.h has no ```cpp block"):
        loads(empty, "reply.md")
    with pytest.raises(FormatError, match="defines no kernel"):
        loads("<kernel_impl>\n```cpp\nint x;\n```\n</kernel_impl>", "reply.md")


def test_direct_launch_json_errors():
    good = {"name": "t", "entry": {"model": "ModelNew.py::ModelNew"}, "build": {"type": "ascendc_direct_launch"},
            "sources": [{"path": "ModelNew.py", "content": "class ModelNew: pass\n"},
                        {"path": "k.cpp", "content": fx.LAUNCH_KERNEL}, {"path": "b.cpp", "content": fx.PYBIND}]}
    assert loads(json.dumps(good), "s.json").files == {"k.cpp": fx.LAUNCH_KERNEL}
    cases = [
        (good | {"sources": good["sources"] + [{"path": "../../etc/x.cpp", "content": ""}]}, r"must be relative and stay inside"),
        (good | {"sources": good["sources"] + [good["sources"][1]]}, r"sources\[3\].path 'k.cpp' appears twice"),
        (good | {"entry": {"model": "Missing.py::ModelNew"}}, r"names Missing.py, which is not among sources"),
        (good | {"sources": [good["sources"][0], good["sources"][2]]}, r"no kernel found.*among the non-binding sources none"),
        (good | {"sources": "nope"}, r"`sources` must be a non-empty list"),
    ]
    for doc, complaint in cases:
        with pytest.raises(FormatError, match=complaint):
            loads(json.dumps(doc), "s.json")
    with pytest.raises(FormatError, match=r"s.json:1:\d+: not valid JSON"):
        loads('{"build": {"type": "ascendc_direct_launch"}, "sources": [', "s.json")


def test_akb_marker_rules(tmp_path):
    marker = "// ==================== ASCEND_HOST_SECTION ===================="
    with pytest.raises(FormatError, match=r"2 ASCEND_HOST_SECTION markers \(lines \[2, 4\]\)"):
        loads(f"k\n{marker}\nh\n{marker}\n", "custom_op.asc")
    with pytest.raises(FormatError, match="above the ASCEND_HOST_SECTION marker"):
        loads(f"int helper();\n{marker}\n{fx.TORCH_HOST}", "custom_op.asc")


@pytest.mark.parametrize("fmt,project,complaint", [
    ("akb", fx.msopgen_project(), "it is an msopgen operator"),
    ("mkb-direct", fx.msopgen_project(), "it is an msopgen operator"),
    ("mkb", fx.launch_project(), "it is a kernel-launch project"),
    ("npukb", fx.launch_project(), "it is a kernel-launch project"),
    ("cann", fx.launch_project(), "it is a kernel-launch project"),
    ("mkb", fx.msopgen_project(), r"no python_bind_src or model_src .*\n  hint: .*--generate-glue"),
    ("mkb-direct", fx.asc_project().model_copy(update={"glue": {}}), "no ModelNew module"),
    ("mkb-direct", fx.asc_project(), r"no pybind binding"),
    ("akb", fx.launch_project(), r"AscendKernelBench takes one source file|torch.library host section"),
    ("npukb", fx.msopgen_project().model_copy(update={"files": fx.msopgen_project().files | {"op_kernel/helpers.h": "//\n"}}),
     r"no place for op_kernel/helpers.h"),
    ("npukb", fx.msopgen_project().model_copy(update={"files": {"op_kernel/scaled_sub.cpp": "/*\n```\n*/\n" + fx.KERNEL}}),
     r"contains a ``` line"),
    ("cann", fx.msopgen_project().model_copy(update={"files": {"op_kernel/scaled_sub.cpp": fx.KERNEL}}), r"no op_host/ sources"),
])
def test_formats_refuse_what_they_cannot_carry(fmt, project, complaint):
    with pytest.raises(FormatError, match=complaint) as e:
        render(project, fmt)
    assert str(e.value).startswith(f"cannot export {project.name} as {fmt}: ") and "\n  hint: " in str(e.value)
