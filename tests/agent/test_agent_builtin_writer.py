"""The builtin writer (no model): torch.fx trace -> recognised pattern -> DSL program, which passes its
DSL check, lowers without holes and passes the referee on the CPU emulation, for our own
KernelBench-style references of every family (tests/agent/builtin_tasks/<family>_<name>.py)."""
import math
import os
from itertools import groupby
from pathlib import Path

import pytest

from kernelwright.agent import dslkit
from kernelwright.agent.builtin import recognise
from kernelwright.tools.referee import verify
from kernelwright.tools.tasks import load_task
from kernelwright.tools.tasks.reference import ReferenceWorker

HERE = Path(__file__).parent
TASKS = sorted((HERE / "builtin_tasks").glob("*.py"))


def _spread(tasks: list[Path], per_family: int = 2) -> list[Path]:
    """Up to `per_family` tasks of each file prefix, spread over the family's sorted list: the suite's time budget
    (the whole list runs with KERNELWRIGHT_TEST_ALL_BUILTIN=1, and in `python -m kernelwright.evals.builtin_coverage`)."""
    if os.environ.get("KERNELWRIGHT_TEST_ALL_BUILTIN") == "1":
        return tasks
    picked = []
    for _, group in groupby(tasks, key=lambda p: p.stem.split("_")[0]):
        group = list(group)
        picked += group[::math.ceil(len(group) / per_family)]
    return picked


END_TO_END = _spread(TASKS)
FAMILY = {"act": "elementwise", "ew": "elementwise", "red": "reduce", "norms": "norms", "norm": "norm",
          "softmax": "softmax", "loss": "loss", "opt": "optimizer", "scan": "scan", "pool": "pooling",
          "bcast": "broadcast", "cast": "cast", "idx": "index", "mm": "matmul", "conv": "convolution",
          "attn": "attention", "resize": "resize"}


@pytest.fixture(scope="session")
def traces():
    """Every task traced in one subprocess (one torch import)."""
    from kernelwright.agent.builtin.trace import trace_tasks
    tasks = [load_task(p) for p in TASKS]
    return {t.name: tr for t, tr in zip(tasks, trace_tasks(tasks))}


def test_the_suite_covers_every_family():
    assert len(TASKS) >= 30
    assert {FAMILY[p.stem.split("_")[0]] for p in TASKS} == set(FAMILY.values())


def _written_and_refereed(path, traces, sim):
    task = load_task(path)
    emitted, why = recognise(traces[task.name], task.name)
    assert emitted is not None, why
    assert emitted.family == FAMILY[path.stem.split("_")[0]]
    with ReferenceWorker(task) as worker:
        check = dslkit.check(emitted.source, task, worker)
        assert check.ok, f"{check.stage}: {check.summary}\n" + "\n".join(check.diagnostics[:3]) + "\n" + emitted.source
        project, holes = dslkit.lower(emitted.source, task)
        assert holes == []
        v = verify(task, project, sim, worker=worker, trials=1, recheck=False)
    assert v.status == "pass", v.summary
    return v


@pytest.mark.slow
@pytest.mark.parametrize("path", END_TO_END, ids=[p.stem for p in END_TO_END])
def test_builtin_writer_kernel_passes_the_referee(path, traces, sim):
    v = _written_and_refereed(path, traces, sim)
    if path.stem.startswith(("mm_", "conv_", "attn_")):   # matrix products run on the cube unit, in every case
        cases = v.stage("measure").metrics["per_case"].values()
        assert len(cases) >= 2 and all(c["cube_instructions"] > 0 and c["cube_macs"] > 0 for c in cases)


@pytest.mark.slow
def test_matmul_epilogue_vector_work_does_not_grow_with_k(traces, sim):
    """Same M x N, K = 32 and 512: the cube's multiply-adds grow 16x, the vector instructions not at all."""
    v = _written_and_refereed(HERE / "builtin_tasks" / "mm_relu_long_k.py", traces, sim)
    short, long_ = v.stage("measure").metrics["per_case"].values()
    assert long_["cube_macs"] == 16 * short["cube_macs"] > 0
    assert long_["vector_instructions"] == short["vector_instructions"] > 0


@pytest.mark.slow
def test_convolution_vector_work_does_not_grow_with_cin(traces, sim):
    """Same output, C_in = 4 and 32: the cube's multiply-adds grow 8x, the vector instructions not at all (the
    im2col is A.move copies)."""
    v = _written_and_refereed(HERE / "builtin_tasks" / "conv_2d_two_cin.py", traces, sim)
    small, large = v.stage("measure").metrics["per_case"].values()
    assert large["cube_macs"] == 8 * small["cube_macs"] > 0
    assert large["vector_instructions"] == small["vector_instructions"] > 0


def test_what_it_cannot_write_is_named(tmp_path, traces):
    from kernelwright.agent.builtin.trace import trace_tasks
    (tmp_path / "product_tril.py").write_text(
        "import torch\nclass Model(torch.nn.Module):\n    def forward(self, a, b):\n"
        "        return torch.tril(a * b)\n"
        "def get_inputs():\n    return [torch.randn(4, 8), torch.randn(4, 8)]\ndef get_init_inputs():\n    return []\n")
    (tmp_path / "unfold.py").write_text(
        "import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
        "        return torch.nn.functional.unfold(x, 2)\n"
        "def get_inputs():\n    return [torch.randn(1, 3, 8, 8)]\ndef get_init_inputs():\n    return []\n")
    (tmp_path / "softmax_dim0.py").write_text(
        "import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return torch.softmax(x, dim=0)\n"
        "def get_inputs():\n    return [torch.randn(4, 8)]\ndef get_init_inputs():\n    return []\n")
    (tmp_path / "two_axes.py").write_text(
        "import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
        "        return x - x.sum(dim=0, keepdim=True) * x.amax(dim=1, keepdim=True)\n"
        "def get_inputs():\n    return [torch.randn(4, 8)]\ndef get_init_inputs():\n    return []\n")
    names = ("product_tril.py", "unfold.py", "softmax_dim0.py", "two_axes.py")
    tasks = [load_task(tmp_path / f) for f in names]
    found = [recognise(tr, t.name) for t, tr in zip(tasks, trace_tasks(tasks))]
    assert "(the general composer: softmax is neither elementwise nor a reduction)" in found[2][1]
    assert found[3][0] is None and "reductions over different or non-consecutive axes ([0] and [1])" in found[3][1]
    assert found[0][0] is None and "knows each op of product_tril (mul, tril) but not this combination" in found[0][1]
    assert found[1][0] is None and "cannot handle unfold" in found[1][1]
    assert found[2][0] is None and "knows each op of softmax_dim0 (softmax) but not this combination" in found[2][1]
    assert all("--model" in why for _, why in found)


@pytest.mark.parametrize("stem, stages", [("mm_gemm_groupnorm_logsumexp", 3), ("conv_maxpool_softmax", 4),
                                          ("conv_separable", 2)])
def test_a_cube_op_with_a_tail_is_written_in_stages(stem, stages, traces):
    """What the matmul/conv epilogue cannot hold (group norm, a reduction of a reduction, pooling, a second
    convolution) goes to stages after the cube stage, one kernel with a barrier between stages."""
    emitted, why = recognise(traces[stem], stem)
    assert emitted is not None, why
    assert f"then {stages - 1} more stage(s)" in emitted.summary
    assert emitted.source.count("A.sync_all()") >= stages - 1 and emitted.source.count("A.workspace(") >= stages - 1


def test_l1_over_the_mean_is_the_l1_program_with_the_mean_numerator(traces):
    emitted, why = recognise(traces["norms_l1_mean_narrow"], "norms_l1_mean_narrow")
    assert emitted is not None and emitted.family == "norms", why
    assert "mean = True" in emitted.source and "t.num / total" in emitted.source
    plain, _ = recognise(traces["norms_l1"], "norms_l1")
    assert plain is not None and "mean = False" in plain.source
