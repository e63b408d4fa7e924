"""Ways to a false PASS (issue 13), each one a kernel that passed before: writing nothing where the
reference is NaN, copying a reference that never varies, and running the reference itself after finding
the task through /proc."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kernelwright.tools.buildkit import sandbox
from kernelwright.tools.project import KernelProject, LaunchSpec
from kernelwright.tools.referee import verify
from kernelwright.tools.tasks import load_task

TASK = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return {expr}


def get_inputs():
    return [torch.randn(4, 256)]


def get_init_inputs():
    return []
'''

KERNEL = r'''
#include "kernel_operator.h"
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>
{helpers}
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y, uint32_t n) {{
    {body}
}}
'''

LAUNCH = {"kernel": "k", "block_dim": "1", "args": [{"kind": "input", "name": "x"}, {"kind": "output", "name": "y"},
                                                     {"kind": "scalar", "ctype": "uint32_t", "expr": "numel(x)"}]}

# finds `--task PATH` on an ancestor's command line, runs that task's Model with the ancestor's interpreter
# on this kernel's own input, and copies the result into its output
SNOOP = r'''
static std::vector<std::string> args_of(long pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
    std::string all((std::istreambuf_iterator<char>(f)), {}), cur;
    std::vector<std::string> out;
    for (char c : all) { if (c) cur += c; else { out.push_back(cur); cur.clear(); } }
    return out;
}
static long parent_of(long pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string s((std::istreambuf_iterator<char>(f)), {});
    size_t close = s.rfind(')');
    return close == std::string::npos ? 0 : std::atol(s.c_str() + close + 4);
}
'''
SNOOP_BODY = r'''
    std::string task, python;
    for (long pid = getppid(), depth = 0; pid > 1 && depth < 12 && task.empty(); pid = parent_of(pid), ++depth) {
        std::vector<std::string> a = args_of(pid);
        for (size_t i = 0; i + 1 < a.size(); ++i)
            if (a[i] == "--task") { task = a[i + 1]; python = a[0]; }
    }
    if (task.empty()) return;
    std::ofstream("x.bin", std::ios::binary).write((const char*)x, n * sizeof(float));
    std::ofstream("ref.py") << "import importlib.util, sys, numpy as np, torch\n"
        "spec = importlib.util.spec_from_file_location('t', sys.argv[1]); m = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(m)\n"
        "x = torch.from_numpy(np.fromfile('x.bin', dtype=np.float32))\n"
        "m.Model(*m.get_init_inputs())(x).numpy().astype(np.float32).tofile('y.bin')\n";
    if (std::system((python + " ref.py " + task).c_str()) != 0) return;
    std::ifstream("y.bin", std::ios::binary).read((char*)y, n * sizeof(float));
'''


def project(body: str, helpers: str = "") -> KernelProject:
    p = KernelProject(name="k", kind="kernel_launch", files={"k.cpp": KERNEL.format(helpers=helpers, body=body)})
    p.launch = LaunchSpec.model_validate(LAUNCH)
    return p


def task_file(tmp_path: Path, expr: str) -> Path:
    f = tmp_path / "task.py"
    f.write_text(TASK.format(expr=expr))
    return f


def test_a_kernel_that_writes_nothing_fails_where_the_reference_is_nan(sim, tmp_path):
    task = load_task(task_file(tmp_path, "x * float('nan')"))
    v = verify(task, project("return;"), sim, trials=1, recheck=False, api_lint=False)
    assert v.status == "fail", v.summary
    assert v.first_mismatch().rule == "unwritten" and v.first_mismatch().count == 1024


@pytest.mark.parametrize("expr,body", [("x * float('nan')", "for (uint32_t i = 0; i < n; ++i) ((__gm__ float*)y)[i] = NAN;"),
                                       ("x * 0", "for (uint32_t i = 0; i < n; ++i) ((__gm__ float*)y)[i] = 0.0f;")],
                         ids=["all_nan", "all_zero"])
def test_a_reference_that_never_varies_is_unjudgeable(sim, tmp_path, expr, body):
    task = load_task(task_file(tmp_path, expr))
    v = verify(task, project(body), sim, trials=2, api_lint=False)
    assert v.status == "error" and v.summary.startswith("unjudgeable"), v.summary
    assert v.stage("compare").status == "error" and any("unjudgeable" in f for f in v.stage("compare").findings)


def test_a_varying_reference_still_passes(sim, tmp_path):
    task = load_task(task_file(tmp_path, "x * 2"))
    v = verify(task, project("for (uint32_t i = 0; i < n; ++i) ((__gm__ float*)y)[i] = ((__gm__ float*)x)[i] * 2.0f;"),
               sim, trials=1, api_lint=False)
    assert v.status == "pass", v.summary
    assert not any("unjudgeable" in f for f in v.stage("compare").findings)


@pytest.mark.skipif(not sandbox.status().contained, reason=f"no sandbox here: {sandbox.status().detail}")
def test_a_kernel_cannot_find_and_run_the_reference_through_proc(tmp_path):
    task = task_file(tmp_path, "torch.tanh(x) * 3 + 1")
    src = tmp_path / "k.cpp"
    src.write_text(KERNEL.format(helpers=SNOOP, body=SNOOP_BODY))
    (tmp_path / "launch.json").write_text(json.dumps(LAUNCH))
    r = subprocess.run([sys.executable, "-c", "from kernelwright.agent.cli import main; raise SystemExit(main())",
                        "verify", str(src), "--task", str(task), "--launch", str(tmp_path / "launch.json"),
                        "--trials", "1", "--json"], capture_output=True, text=True, timeout=900)
    verdict = json.loads(r.stdout)
    assert r.returncode == 1 and verdict["status"] == "fail", r.stdout[-3000:] + r.stderr[-2000:]
    assert verdict["runs"][0]["mismatches"][-1]["rule"] == "unwritten"
