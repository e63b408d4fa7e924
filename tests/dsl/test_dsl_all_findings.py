"""A program's independent parse findings come back in one round, and a name clash with the DSL alias `A` is
named as such (with the `A_` spelling the check matches to a reference argument `A`)."""
from pathlib import Path

import pytest

from kernelwright.tools.dsl.errors import DslError, findings
from kernelwright.tools.dsl.parse_program import parse_program

EXAMPLES = Path(__file__).resolve().parents[2] / "prompts" / "examples" / "elementwise"
CHAIN = (EXAMPLES / "binary_chain.dsl.py").read_text()


def parse_findings(source: str):
    with pytest.raises(DslError) as info:
        parse_program(source)
    return findings(info.value)


def test_independent_errors_in_host_and_kernel_are_reported_together():
    broken = (CHAIN.replace("    nb = max(", "    nb = [1][0]\n    nb = max(")             # a list in the tiling
                   .replace("        A.Mul(u, u, v, n)", "        A.Mul(u, u, v, n, 4)")      # wrong arity
                   .replace("        A.Add(res, u, ain, n)", "        A.Frobnicate(res, u, n)"))  # unknown primitive
    found = parse_findings(broken)
    assert len(found) == 3, [d.render() for d in found]
    lines = [d.line for d in found]
    assert lines == sorted(lines) and all(lines)
    assert {d.rule for d in found} >= {"call.args"}


def test_errors_inside_a_loop_body_are_each_reported():
    broken = CHAIN.replace("A.Sub(u, ain, bin, n)", "A.Sub(u, ain, bin)").replace("A.Muls(u, u, t.scale, n)",
                                                                                   "A.Muls(u, u)")
    assert [d.rule for d in parse_findings(broken)] == ["call.args", "call.args"]


def test_an_input_named_A_is_diagnosed_as_a_clash_with_the_alias():
    clash = (CHAIN.replace('"a": (A.f32', '"A": (A.f32').replace('{"out": "a"}', '{"out": "A"}')
                  .replace("(a, b, out, t)", "(A, b, out, t)"))
    found = parse_findings(clash)
    alias = [d for d in found if d.rule == "names.alias"]
    assert alias and "A_" in alias[0].hint and "clashes with the DSL alias" in alias[0].message


def test_a_constant_named_A_is_diagnosed():
    found = parse_findings(CHAIN.replace("import adsl as A\n", "import adsl as A\nA = 3\n"))
    assert [d.rule for d in found] == ["names.alias"]


def test_a_correct_program_still_parses():
    assert parse_program(CHAIN).kernel.name == "binary_chain"


def test_an_input_spelled_A_underscore_is_matched_to_the_reference_argument_A(tmp_path):
    from kernelwright.tools.dsl.check import check
    from kernelwright.tools.tasks.load import load_task
    from kernelwright.tools.tasks.reference import ReferenceWorker
    ref = (EXAMPLES / "binary_chain.py").read_text().replace("forward(self, a: torch.Tensor, b",
                                                             "forward(self, A: torch.Tensor, b")
    ref = ref.replace("return (a - b) * (a + b) * self.scale + a", "return (A - b) * (A + b) * self.scale + A")
    (tmp_path / "binary_chain.py").write_text(ref)
    task = load_task(tmp_path / "binary_chain.py")
    program = parse_program(CHAIN.replace('"a": (A.f32', '"A_": (A.f32').replace('{"out": "a"}', '{"out": "A_"}')
                            .replace("(a, b, out, t)", "(A_, b, out, t)")
                            .replace("(a, b, hw, scale)", "(A_, b, hw, scale)")
                            .replace("a.", "A_.").replace("a[off:]", "A_[off:]"))
    with ReferenceWorker(task) as worker:
        report = check(program, task, worker=worker)
    assert report.ok, report
