"""A transposed 1-d convolution whose rows are wider than A.move's staging tile (16384 fp32 elements): the
im2col copies a row in pieces (MultiKernelBench's conv_transposed_1d keeps its 65536-long rows when shrunk;
one copy of a whole row ran past the staging tile: ub.bounds)."""
import textwrap

from kernelwright.agent import dslkit
from kernelwright.agent.builtin import recognise
from kernelwright.agent.builtin.trace import trace_tasks
from kernelwright.tools.tasks import load_task
from kernelwright.tools.tasks.reference import ReferenceWorker

REFERENCE = textwrap.dedent("""
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.ConvTranspose1d(2, 3, 3, bias=False)

        def forward(self, x):
            return self.conv(x)

    def get_inputs():
        return [torch.rand(1, 2, 20000)]

    def get_init_inputs():
        return []
""")


def test_a_row_wider_than_the_staging_tile_is_copied_in_pieces(tmp_path):
    path = tmp_path / "conv_transposed_1d_wide.py"
    path.write_text(REFERENCE)
    task = load_task(path)
    emitted, why = recognise(trace_tasks([task])[0], task.name)
    assert emitted is not None, why
    assert "for w_ in A.range(lo_o, hi_o, wn):" in emitted.source
    with ReferenceWorker(task) as worker:
        check = dslkit.check(emitted.source, task, worker)
    assert check.ok, f"{check.stage}: {check.summary}\n" + "\n".join(check.diagnostics[:3])
