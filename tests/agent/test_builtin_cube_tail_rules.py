"""Which program a GEMM's tail gets (agent/builtin/patterns/cube_tail.py, tail.py, tail_ops.py): narrow groups and
short pooling windows (of any axis) become gathered stages, wide groups stay composer segments, and a reduction over a kept
axis of size 1 is no reduction at all. Structure only (the stage programs' numbers are checked in
test_builtin_tail_group_rows.py); traced small tasks, no build."""
import pytest

from kernelwright.agent.builtin.graphview import OpGraph
from kernelwright.agent.builtin.patterns import cube_tail
from kernelwright.tools.dsl.parse_program import parse_program
from kernelwright.tools.tasks import load_task

TASK = """import torch
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(32, 256)
        self.gn = torch.nn.GroupNorm({groups}, 256)
        self.pool = torch.nn.MaxPool1d(2)
    def forward(self, x):
        return {body}
def get_inputs():
    return [torch.randn(8, 32)]
def get_init_inputs():
    return []
"""
CASES = {
    "narrow_groups": (64, "torch.relu(self.gn(self.fc(x)))"),
    "wide_groups": (2, "torch.relu(self.gn(self.fc(x)))"),
    "pooled": (2, "self.pool(self.fc(x).unsqueeze(1)).squeeze(1) * 2.0"),
    "lse_of_mean": (2, "torch.logsumexp(self.fc(x).mean(dim=1, keepdim=True), dim=1, keepdim=True) + x"),
}
CONV = """import torch
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv{d}d(3, 8, 3)
        self.pool = {pool}
    def forward(self, x):
        return torch.sigmoid(self.pool(self.conv(x)))
def get_inputs():
    return [torch.randn(2, 3, {size})]
def get_init_inputs():
    return []
"""
CONV_CASES = {
    "conv_pool2d": (2, "torch.nn.MaxPool2d(2)", "18, 18"),
    "conv_pool3d": (3, "torch.nn.AvgPool3d(2)", "10, 11, 12"),
    "conv_pool2d_overlapping": (2, "torch.nn.MaxPool2d(3, stride=2)", "18, 18"),
}


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    from kernelwright.agent.builtin.trace import trace_tasks
    d = tmp_path_factory.mktemp("cube_tail")
    tasks = []
    for name, (groups, body) in CASES.items():
        (d / f"{name}.py").write_text(TASK.format(groups=groups, body=body))
        tasks.append(load_task(d / f"{name}.py"))
    for name, (dims, pool, size) in CONV_CASES.items():
        (d / f"{name}.py").write_text(CONV.format(d=dims, pool=pool, size=size))
        tasks.append(load_task(d / f"{name}.py"))
    out = {}
    for t, tr in zip(tasks, trace_tasks(tasks)):
        em = cube_tail.match(OpGraph(tr), t.name)
        assert em is not None, t.name
        parse_program(em.source)
        out[t.name] = em.source
    return out


def test_narrow_groups_and_short_windows_are_gathered_stages(sources):
    assert sources["narrow_groups"].count("A.gather(") == 2          # into rows of groups and back
    assert "A.gather(" not in sources["wide_groups"]                 # 128 channels a group: the composer's rows
    assert sources["pooled"].count("A.gather(") == 1 and "A.Max(" in sources["pooled"]


def test_a_reduction_over_a_kept_axis_of_size_one_is_its_input(sources):
    src = sources["lse_of_mean"]
    assert "A.Ln(" not in src and "A.Exp(" not in src              # logsumexp of one value: the value


def test_pooled_axes_before_the_last_are_gathered_stages_after_a_conv(sources):
    """Windows of k taps k apart: the last axis and every axis before it a gathered stage (D and H of a 3-d pool
    with rows the windows do not tile); overlapping windows stay the composer's strided views."""
    assert sources["conv_pool2d"].count("A.gather(") == 2
    assert sources["conv_pool3d"].count("A.gather(") == 3
    assert "A.gather(" not in sources["conv_pool2d_overlapping"]
