"""The command-line front door: exit codes, startup cost, doctor."""
import json
import subprocess
import sys
from pathlib import Path

from kernelwright.agent.cli import main

KERNEL = r'''
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void twice(GM_ADDR x, GM_ADDR y) {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256);
    AscendC::LocalTensor<float> t = buf.Get<float>();
    AscendC::Muls(t, t, 2.0f, 64);
}
'''


def test_build_exit_codes(tmp_path, capsys):
    good = tmp_path / "twice.cpp"
    good.write_text(KERNEL)
    assert main(["build", str(good)]) == 0
    bad = tmp_path / "bad.cpp"
    bad.write_text(KERNEL.replace("2.0f", "2.0"))
    assert main(["build", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "bad.cpp:8:5" in out and "no matching function for call to 'Muls'" in out
    assert main(["build", str(tmp_path / "nope.cpp")]) == 2
    assert main(["build", str(good), "--soc", "Ascend999"]) == 2


def test_build_json_is_a_build_result(tmp_path, capsys):
    f = tmp_path / "twice.cpp"
    f.write_text(KERNEL)
    assert main(["build", str(f), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "ok" and data["kernels"] == ["twice"]


def test_doctor_json_names_what_each_finding_enables(capsys):
    assert main(["doctor", "--json"]) == 0
    rows = {r["check"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["C++ compiler"]["status"] == "ok"
    assert rows["CANN toolkit"]["enables"] and rows["LLM"]["enables"]


def test_help_does_not_import_heavy_libraries():
    code = ("import sys; from kernelwright.agent.cli import make_parser; make_parser(); "
            "heavy = [m for m in ('torch', 'chromadb', 'sentence_transformers', 'litellm', 'mcp', 'langgraph') if m in sys.modules]; "
            "print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parent)
    assert out.returncode == 0 and out.stdout.strip() == "", out.stdout + out.stderr
