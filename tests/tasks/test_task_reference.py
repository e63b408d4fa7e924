"""The reference worker: NPU-flavoured tasks run on the CPU, seeded; failures, hangs and memory
blow-ups come back as data; shrunk inputs stay consistent (indices stay inside shrunk dims)."""
from pathlib import Path

import numpy as np
import pytest

from kernelwright.tools.tasks import load_task
from kernelwright.tools.tasks.reference import ReferenceWorker, RefFailure, RefRun
from kernelwright.tools.tasks.shrink import Shape, plan_shrink

FIX = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def quirks():
    task = load_task(FIX / "quirks")
    # A generous answer limit: under a loaded machine a slow answer is not what these tests judge;
    # the hang test below brings its own short-limit worker.
    with ReferenceWorker(task, timeout_s=60) as w:
        yield task, w


def _case(task, i):
    return task.cases[i]


def test_signature_names(quirks):
    task, w = quirks
    assert w.params() == {"forward_params": ["x", "idx"], "init_params": ["mode"]}


def test_seeded_runs_on_the_cpu_through_the_npu_shim(quirks):
    task, w = quirks
    a, b, c = (w.run(_case(task, 0), s) for s in (3, 3, 4))
    assert isinstance(a, RefRun) and isinstance(c, RefRun)
    x, idx = a.args[0].array, a.args[1].array
    assert x.shape == (6, 4096) and x.dtype == np.float32 and idx.dtype == np.int64
    assert np.array_equal(x, b.args[0].array) and not np.array_equal(x, c.args[0].array)
    np.testing.assert_array_equal(a.outputs[0].array, np.take_along_axis(x, idx, axis=-1))
    assert a.init[0].value == "gather" and not a.post


def test_describe_allocates_nothing_and_shrunk_inputs_stay_consistent(quirks):
    task, w = quirks
    shapes = w.describe(_case(task, 5))          # 100000 x 393216 fp32: 157 GB if it were real
    assert not isinstance(shapes, RefFailure), shapes
    assert shapes.args[0].shape == [100000, 393216] and shapes.outputs[0].shape == [100000, 3]
    plan = plan_shrink([Shape(dims=a.shape, dtype=a.dtype) for a in shapes.args], budget=1 << 16, cores=48)
    run = w.run(_case(task, 5), 0, plan.mapping)
    rows, cols = plan.apply([100000, 393216])
    assert run.args[0].shape == [rows, cols] and run.args[1].shape == [rows, 3]
    assert run.args[1].array.max() < cols      # randint(0, cols) followed the mapping
    np.testing.assert_array_equal(run.outputs[0].array, np.take_along_axis(run.args[0].array, run.args[1].array, -1))


def test_out_of_memory_is_a_failure_not_a_crash(quirks):
    task, w = quirks
    r = w.run(_case(task, 5), 0)                 # the task's own size, under the worker's memory limit
    assert isinstance(r, RefFailure) and r.where in ("memory", "get_inputs")
    assert isinstance(w.run(_case(task, 0), 0), RefRun)   # the worker still serves


def test_task_exceptions_name_the_task_line(quirks):
    task, w = quirks
    r = w.run(_case(task, 1), 0)
    assert isinstance(r, RefFailure) and r.where == "forward" and "RuntimeError" in r.error
    assert any("module.py" in f and "x.view(-1, 7)" in f for f in r.frames)


def test_in_place_reference_reports_the_final_input(quirks):
    task, w = quirks
    r = w.run(_case(task, 2), 1)
    assert r.outputs == [] and list(r.post) == [0]
    np.testing.assert_array_equal(r.post[0].array, 2 * r.args[0].array)


def test_nested_outputs_are_flattened(quirks):
    task, w = quirks
    r = w.run(_case(task, 3), 1)
    x, idx = r.args[0].array, r.args[1].array
    assert r.outputs_seq and [o.shape for o in r.outputs] == [[3], [3], [3, 3]]
    np.testing.assert_allclose(r.outputs[0].array, x.sum(-1), rtol=1e-5)
    np.testing.assert_array_equal(r.outputs[2].array, idx + 1)


def test_npu_only_ops_fail_clearly(quirks):
    task, w = quirks
    r = w.run(_case(task, 4), 0)
    assert isinstance(r, RefFailure) and "torch_npu.npu_rms_norm runs only on an Ascend NPU" in r.error


def test_a_hanging_reference_times_out_and_the_worker_restarts(quirks):
    task, _ = quirks
    with ReferenceWorker(task, timeout_s=5) as w:
        r = w.run(_case(task, 7), 0)
        assert isinstance(r, RefFailure) and r.where == "timeout"
        assert isinstance(w.run(_case(task, 0), 0), RefRun)


def test_json_groups_hand_the_task_only_its_own_group():
    task = load_task(FIX / "mkb/reference/npukernelbench_level0/3_scale_rows.py")
    with ReferenceWorker(task, timeout_s=30) as w:
        big = w.describe(task.cases[2])          # 100000 x 3000 bf16, described without allocating
        assert [a.shape for a in big.args[:2]] == [[100000, 3000], [3000]] and big.args[2].value == 1.0
        small = w.run(task.cases[1], 0)
        assert [a.shape for a in small.args[:2]] == [[2, 3, 5], [5]] and small.args[0].dtype == "float32"
        x, wt = small.args[0].array, small.args[1].array
        np.testing.assert_allclose(small.outputs[0].array, x * wt / 1.25, rtol=1e-6)
        half = w.run(task.cases[0], 0)
        assert half.args[0].dtype == "float16" and half.outputs[0].array.dtype == np.float16


def test_model_parameters_and_init_ints_follow_the_shrink():
    task = load_task(FIX / "kernelbench/level1/2_Linear_bias.py", dtypes=["float16"])
    with ReferenceWorker(task, timeout_s=30) as w:
        r = w.run(task.cases[0], 0, {4096: 64})
        assert r.args[0].shape == [8, 64] and r.init[0].value == 64 and r.args[0].dtype == "float16"
        params = {p.name: p for p in r.params}
        assert params["linear.weight"].shape == [96, 64] and params["linear.weight"].dtype == "float16"
        x, wt, bias = (a.astype(np.float32) for a in (r.args[0].array, params["linear.weight"].array,
                                                        params["linear.bias"].array))
        np.testing.assert_allclose(r.outputs[0].array.astype(np.float32), x @ wt.T + bias, rtol=2e-2, atol=2e-2)


def test_groups_without_a_json_sidecar_are_counted_by_the_worker(tmp_path):
    f = tmp_path / "two_groups.py"
    f.write_text("import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n"
                 "def get_input_groups():\n    return [[torch.ones(3)], [torch.arange(4.0)]]\n")
    task = load_task(f)
    assert task.cases == [] and task.input_kind == "input_groups"
    with ReferenceWorker(task, timeout_s=30) as w:
        assert w.count_groups() == 2
        from kernelwright.tools.task import TaskCase
        r = w.run(TaskCase(id="group 1", index=1), 0)
        assert r.outputs[0].array.tolist() == [0.0, 2.0, 4.0, 6.0]


def test_repeated_index_writes_hard_coded_model_sizes_and_window_floors(tmp_path):
    f = tmp_path / "index_put.py"
    f.write_text("import torch\nclass Model(torch.nn.Module):\n"
                 "    def __init__(self):\n        super().__init__()\n        self.emb = torch.nn.Embedding(1000, 96)\n"
                 "        self.conv = torch.nn.Conv1d(1, 1, 9)\n"
                 "    def forward(self, x, idx, value, ids):\n        x[idx] = value\n"
                 "        return x, self.emb(ids), self.conv(x[:1, None, :])\n"
                 "def get_inputs():\n    return [torch.zeros(16, 256), torch.randint(0, 16, (2048,)), "
                 "torch.rand(2048, 256), torch.randint(0, 1000, (4, 8))]\n")
    task = load_task(f)
    with ReferenceWorker(task, timeout_s=60) as w:
        case = task.cases[0]
        shapes = w.describe(case)
        assert shapes.floors == {256: 9}          # Conv1d's 9-wide window over x's 256 columns
        r = w.run(case, 0, {96: 8})
        x, idx, value, _ = (a.array for a in r.args)
        want = x.copy()
        for i, row in enumerate(idx):             # a repeated index: the last write wins, as a serial loop
            want[row] = value[i]
        np.testing.assert_array_equal(r.outputs[0].array, want)
        assert r.outputs[1].shape == [4, 8, 8]   # the Embedding's hard-coded 96 shrank with the case


def test_a_constructor_that_fails_at_shrunk_sizes_is_built_at_its_own(tmp_path):
    """sparse_attention: `torch.ones(L, L)` shrinks with the case, its `for i in range(L)` does not."""
    f = tmp_path / "window_mask.py"
    f.write_text("import torch\nclass Model(torch.nn.Module):\n"
                 "    def __init__(self, L=256):\n        super().__init__()\n        mask = torch.ones(L, L)\n"
                 "        for i in range(L):\n            mask[i, max(0, i - 2):i + 3] = 0\n"
                 "        self.register_buffer('mask', mask)\n"
                 "    def forward(self, x):\n        n = x.size(1)\n        return x @ self.mask[:n, :n]\n"
                 "def get_inputs():\n    return [torch.rand(4, 256)]\n")
    task = load_task(f)
    with ReferenceWorker(task, timeout_s=60) as w:
        r = w.run(task.cases[0], 0, {256: 32})
        x = r.args[0].array
        assert x.shape == (4, 32) and r.outputs[0].shape == [4, 32]
        band = np.abs(np.arange(32)[:, None] - np.arange(32)[None, :]) > 2
        np.testing.assert_allclose(r.outputs[0].array, x @ band.astype(np.float32), rtol=1e-5)
