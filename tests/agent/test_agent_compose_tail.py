"""The composer on an intermediate (agent/builtin/compose_tail.py): the tail after a GEMM composes exactly as
the same math written as its own task over that value, and a tail the composer cannot write says why."""
import pytest

from kernelwright.agent.builtin.chain import Unsupported
from kernelwright.agent.builtin.compose_plan import plan
from kernelwright.agent.builtin.compose_tail import compose_tail, tail_trace
from kernelwright.agent.builtin.graphview import OpGraph
from kernelwright.agent.builtin.patterns.compose import compose_parts, program
from kernelwright.tools.tasks import load_task

HEAD = "import torch\nclass Model(torch.nn.Module):\n"
FUSED = HEAD + """    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 24)
    def forward(self, x, r):
        h = self.fc(x)
        return torch.relu(h - h.mean(dim=1, keepdim=True)) * r
def get_inputs():
    return [torch.randn(8, 16), torch.randn(8, 24)]
def get_init_inputs():
    return []
"""
ALONE = HEAD + """    def forward(self, fc, r):
        return torch.relu(fc - fc.mean(dim=1, keepdim=True)) * r
def get_inputs():
    return [torch.randn(8, 24), torch.randn(8, 24)]
def get_init_inputs():
    return []
"""
SOFTMAX = HEAD + """    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 24)
    def forward(self, x):
        return torch.softmax(self.fc(x), dim=0)
def get_inputs():
    return [torch.randn(8, 16)]
def get_init_inputs():
    return []
"""


MIN_BIAS = HEAD + """    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 1)
    def forward(self, x, bias):
        return self.fc(x) + bias
def get_inputs():
    return [torch.randn(8, 16), torch.randn(1, 24, 1, 1)]
def get_init_inputs():
    return []
"""
SPREAD = HEAD + """    def forward(self, m, bias):
        return m + bias
def get_inputs():
    return [torch.randn(8, 1), torch.randn(1, 24, 1, 1)]
def get_init_inputs():
    return []
"""


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    from kernelwright.agent.builtin.trace import trace_tasks
    d = tmp_path_factory.mktemp("tail")
    tasks = []
    for name, text in (("fused", FUSED), ("alone", ALONE), ("softmax_tail", SOFTMAX),
                       ("min_bias", MIN_BIAS), ("spread", SPREAD)):
        (d / f"{name}.py").write_text(text)
        tasks.append(load_task(d / f"{name}.py"))
    return {t.name: OpGraph(tr) for t, tr in zip(tasks, trace_tasks(tasks))}


def test_the_tail_after_a_gemm_composes_as_its_own_task(graphs):
    parts = compose_tail(graphs["fused"], "fc", "tail")
    assert parts.names["fc"] in parts.inputs and parts.names["r"] in parts.inputs
    assert any(f"{parts.names['fc']}[" in line for line in parts.body)
    alone = compose_parts(OpGraph(graphs["alone"].trace), "tail")
    assert program(parts, "tail").source == program(alone, "tail").source


def test_a_tail_the_composer_cannot_write_says_why(graphs):
    with pytest.raises(Unsupported, match="softmax is neither elementwise nor a reduction"):
        compose_tail(graphs["softmax_tail"], "fc", "tail")
    with pytest.raises(Unsupported, match="no tensor value"):
        compose_tail(graphs["fused"], "nope", "tail")



def test_the_frame_is_the_inputs_broadcast_shape(graphs):
    """As in gemm_group_norm_min_bias_add's last segment: a (B, 1) value plus a (1, C, 1, 1) bias fills (1, C, B, 1),
    a frame neither input has (the largest input's shape was the frame, and the (B, 1) value did not fit it)."""
    assert compose_tail(graphs["min_bias"], "fc", "tail").body
    assert plan(OpGraph(tail_trace(graphs["min_bias"].trace, "fc"))).frame == [1, 24, 8, 1]



def test_trailing_size_one_axes_join_the_lanes(graphs):
    """(8, 1) + (1, 24, 1, 1) fills (1, 24, 8, 1): 24 rows of 8 lanes, not 192 rows of one lane (the last stage of
    gemm_group_norm_min_bias_add ran C * B rows of one element)."""
    import numpy as np
    from kernelwright.tools.dsl.interp.run import interpret
    from kernelwright.tools.dsl.parse_program import parse_program
    g = OpGraph(graphs["spread"].trace)
    assert plan(g).lanes == [2, 3]
    parts = compose_parts(OpGraph(graphs["spread"].trace), "spread")
    rng = np.random.default_rng(1)
    m, bias = rng.standard_normal((8, 1)).astype(np.float32), rng.standard_normal((1, 24, 1, 1)).astype(np.float32)
    res = interpret(parse_program(program(parts, "spread").source), {parts.names["m"]: m, parts.names["bias"]: bias})
    assert res.ok, [d.render() for d in res.diagnostics]
    assert res.tiling.fields["rows"] == 24 and res.tiling.fields["L"] == 8
    assert np.allclose(res.outputs[parts.y], m + bias)
