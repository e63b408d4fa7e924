"""The reference runs PyTorch's deterministic algorithms: an op whose CPU kernel is parallel and order-dependent
(index_copy with repeated indices) gives one answer, the serial one, instead of whichever thread wrote last."""
import numpy as np

from kernelwright.tools.tasks import load_task
from kernelwright.tools.tasks.reference import ReferenceWorker, RefRun

TASK = '''import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x, indices, src):
        return x.index_copy(0, indices, src)

def get_inputs():
    return [torch.zeros(512, 256), torch.randint(0, 512, (4096,)), torch.rand(4096, 256)]

def get_init_inputs():
    return []
'''


def test_repeated_indices_keep_the_last_source_row(tmp_path):
    path = tmp_path / "index_copy_repeated.py"
    path.write_text(TASK, encoding="utf-8")
    task = load_task(path)
    with ReferenceWorker(task, timeout_s=120) as w:
        runs = [w.run(task.cases[0], seed) for seed in (1, 1, 2)]
    assert all(isinstance(r, RefRun) for r in runs)
    for r in runs:
        x, idx, src = (a.array for a in r.args)
        expected = x.copy()
        for i, row in enumerate(idx):      # the serial order: a later index overwrites an earlier one
            expected[row] = src[i]
        np.testing.assert_array_equal(r.outputs[0].array, expected)
