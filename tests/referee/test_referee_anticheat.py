"""The checked-in cheat corpus is rejected, each file for the reason its `expect:` line states, and
the clean examples pass. Every check flags only what it claims to."""
import re
from pathlib import Path

import pytest

from kernelwright.tools.referee import anticheat

CORPUS = Path(__file__).parent / "corpus" / "cheats"
FILES = sorted(CORPUS.iterdir())


def _expected(src: str) -> set[str]:
    line = re.search(r"expect:\s*(.+)", src).group(1)
    return set() if line.strip() == "clean" else {c.strip() for c in line.split(",")}


def _flagged(path: Path, src: str) -> dict[str, str]:
    checks = anticheat.STRICT_PY + anticheat.WARN_PY if path.suffix == ".py" else anticheat.STRICT_CPP
    found = {}
    for check in checks:
        flagged, reason = check(src)
        if flagged:
            found[check.__name__] = reason
    return found


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_corpus_file_is_judged_as_stated(path):
    src = path.read_text()
    found = _flagged(path, src)
    assert set(found) == _expected(src), found
    for reason in found.values():
        assert reason, "a flag always says why"


def test_corpus_covers_every_check():
    stated = set().union(*(_expected(p.read_text()) for p in FILES))
    every = {c.__name__ for c in anticheat.STRICT_PY + anticheat.WARN_PY + anticheat.STRICT_CPP}
    assert stated == every
    assert any(not _expected(p.read_text()) for p in FILES if p.suffix == ".py")
    assert any(not _expected(p.read_text()) for p in FILES if p.suffix == ".cpp")


def test_reasons_point_at_the_line():
    src = (CORPUS / "torch_fallback_relu.py").read_text()
    flagged, reason = anticheat.check_torch_compute(src)
    line = next(i for i, t in enumerate(src.splitlines(), 1) if "torch.relu(x)" in t)
    assert flagged and reason.startswith(f"line {line}:") and "torch.relu" in reason


def test_run_checks_splits_strict_and_warnings():
    strict, warn = anticheat.run_checks((CORPUS / "result_cache.py").read_text(),
                                        {"bind/op.cpp": (CORPUS / "no_launch_binding.cpp").read_text()})
    assert warn == ["ModelNew: check_result_cache: " + anticheat.check_result_cache(
        (CORPUS / "result_cache.py").read_text())[1] +
                    f" [rule: {anticheat.RULES['check_result_cache']}]"]
    assert len(strict) == 1 and strict[0].startswith("bind/op.cpp: check_binding_launches")


def test_unparsable_python_is_not_a_crash():
    assert anticheat.check_torch_compute("class ModelNew(:\n") == (False, "")


def test_every_check_names_the_harness_rule_it_follows():
    every = anticheat.STRICT_PY + anticheat.WARN_PY + anticheat.STRICT_CPP
    assert {c.__name__ for c in every} == set(anticheat.RULES)
    strict, _ = anticheat.run_checks((CORPUS / "layer_forward_call.py").read_text(), {})
    assert strict and strict[0].endswith(f"[rule: {anticheat.RULES['check_nn_layers']}]")


def test_a_held_layer_is_named_with_the_line_that_built_it():
    src = (CORPUS / "layer_forward_call.py").read_text()
    flagged, reason = anticheat.check_nn_layers(src)
    built = next(i for i, t in enumerate(src.splitlines(), 1) if "nn.Conv2d(" in t)
    assert flagged and "`self.conv`" in reason and f"built on line {built}" in reason


def test_parameter_containers_pass_every_python_check():
    src = (CORPUS / "clean_param_container.py").read_text()
    assert anticheat.run_checks(src, {}) == ([], [])


def test_binding_findings_follow_the_presets_harness():
    """MultiKernelBench's cheating check reads only ModelNew: under its preset an ATen binding is reported
    (the kernel did not compute the whole op) without failing; our preset and AscendOpGenAgent's fail it."""
    from kernelwright.tools.referee.tolerance import PRESETS
    binding = {"bind/op.cpp": (CORPUS / "at_matmul_binding.cpp").read_text()}
    strict, warn = anticheat.run_checks(None, binding, bindings_strict=PRESETS["mkb"].binding_checks_fail,
                                        harness="MultiKernelBench")
    assert strict == [] and len(warn) == 1
    assert "check_at_compute" in warn[0] and "at::matmul" in warn[0] and "MultiKernelBench reads only ModelNew" in warn[0]
    for preset in ("default", "mere"):
        strict, warn = anticheat.run_checks(None, binding, bindings_strict=PRESETS[preset].binding_checks_fail)
        assert len(strict) == 1 and strict[0].startswith("bind/op.cpp: check_at_compute") and warn == []
    # ModelNew's own checks stay strict under every preset (the harness reads ModelNew)
    strict, _ = anticheat.run_checks((CORPUS / "torch_fallback_relu.py").read_text(), {}, bindings_strict=False)
    assert strict and strict[0].startswith("ModelNew: check_torch_compute")


def test_an_aten_binding_is_prepared_for_a_cpu_build():
    """The binding compiled as written: NPU headers stubbed, the PrivateUse1 registration dropped, the
    pybind module kept (referee/aten_binding.py)."""
    from kernelwright.tools.referee.aten_binding import prepare, wants_native
    src = ('#include <torch/library.h>\n#include "pytorch_npu_helper.hpp"\n#include <torch/extension.h>\n'
           'at::Tensor f(const at::Tensor& x) { at::Tensor y = at::empty_like(x); EXEC_NPU_CMD(aclnnF, x, y); '
           'return at::relu(y); }\n'
           'TORCH_LIBRARY_IMPL(myops, PrivateUse1, m) { m.impl("f", &f); }\n'
           'PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("f", &f, "f"); }\n')
    out = prepare(src)
    assert out.startswith('#include "kw_npu_helper.hpp"')
    assert '// (NPU header, stubbed) #include "pytorch_npu_helper.hpp"' in out
    assert "#include <torch/extension.h>" in out and "TORCH_LIBRARY_IMPL" not in out and "PYBIND11_MODULE" in out
    assert wants_native({"bind/op.cpp": src}) and not wants_native({"bind/op.cpp": src.replace("at::relu(y)", "y")})
