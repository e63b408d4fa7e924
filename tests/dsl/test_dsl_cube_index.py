"""The cube unit and the index primitives: the interpreter sums a matmul in the emulator's order (bit for
bit, fp16 and fp32), integer index paths are exact, an out-of-range index is reported by the interpreter
and by the emulated kernel with its value, and misuse is caught with the primitive table's usage."""
import numpy as np
import pytest

from kernelwright.tools.dsl import rules
from kernelwright.tools.dsl.errors import DslError
from kernelwright.tools.dsl.examples import ROOT
from kernelwright.tools.dsl.interp.run import interpret
from kernelwright.tools.dsl.lower import lower
from kernelwright.tools.dsl.parse_program import parse_file, parse_program
from kernelwright.tools.dtypes import numpy_dtype
from kernelwright.tools.toolchain import Case

MATMUL = (ROOT / "matmul" / "matmul.dsl.py").read_text()

INDEX = '''"""y[i] = sum over j of table[ids[i, j]] for int32 data: a checked scalar read, a gather and a scatter-add."""
import adsl as A


@A.tiling
def tiling(table, ids, hw):
    return A.Tiling(block_dim=2, V=table.numel, J=ids.shape[1], R=ids.shape[0])


@A.shapes
def shapes(table, ids):
    return {"y": table.shape}


@A.kernel(inputs={"table": (A.i32,), "ids": (A.i32,)}, outputs={"y": (A.i32,)})
def index_mix(table, ids, y, t):
    tab = A.ub(A.i32, t.V)
    idx = A.ub(A.i32, t.J)
    got = A.ub(A.i32, t.J)
    acc = A.ub(A.i32, t.V)
    if A.block_idx() == 0:
        A.load(tab, table, t.V)
        A.Duplicate(acc, 0, t.V)
        for r in A.range(0, t.R):
            A.load(idx, ids[r * t.J:], t.J)
            first = A.get(idx, 0, bound=t.V)
            A.gather(got, tab, idx, t.J, t.V)
            A.scatter_add(acc, idx, got, t.J, t.V)
            A.set(acc, first, 7)
        A.store(y, acc, t.V)
'''


def _program(src: str, name: str):
    return parse_program(src, name)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_matmul_interpreter_and_emulator_agree_bit_for_bit(sim, dtype):
    src = MATMUL if dtype != "bfloat16" else MATMUL.replace('inputs={"a": (A.f32, A.f16), "b": (A.f32, A.f16)}',
                                                            'inputs={"a": (A.bf16,), "b": (A.bf16,)}')
    program = _program(src, "matmul.dsl.py")
    rng = np.random.default_rng(7)
    a = rng.standard_normal((40, 300)).astype(numpy_dtype(dtype))
    b = rng.standard_normal((300, 70)).astype(numpy_dtype(dtype))
    res = interpret(program, {"a": a, "b": b})
    assert res.ok, [d.render() for d in res.diagnostics]
    run = sim.run(sim.build(lower(program, "CubeMm")), Case(inputs={"a": a, "b": b}))
    assert run.status == "ok", [d.render() for d in run.diagnostics]
    got, want = run.outputs["c"], res.outputs["c"]
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))            # same k order, same roundings
    exact = a.astype(np.float64) @ b.astype(np.float64)
    assert np.allclose(want.astype(np.float64), exact, rtol=2e-2, atol=5e-2 if dtype != "bfloat16" else 0.25)
    macs = sum(c["macs"] for blk in run.counters for c in blk.get("cube", []) if c["api"] == "Mmad")
    assert macs == 40 * 300 * 70                                                 # the work ran on the cube


def test_integer_index_paths_are_exact_and_out_of_range_indices_are_reported(sim):
    program = _program(INDEX, "index_mix.dsl.py")
    rng = np.random.default_rng(3)
    table = rng.integers(-1000, 1000, 40).astype(np.int32)
    ids = rng.integers(0, 40, (3, 24)).astype(np.int32)
    res = interpret(program, {"table": table, "ids": ids})
    assert res.ok, [d.render() for d in res.diagnostics]
    want = np.zeros(40, np.int64)
    for row in ids:
        np.add.at(want, row, table[row])
        want[row[0]] = 7
    assert np.array_equal(res.outputs["y"], want.astype(np.int32))
    build = sim.build(lower(program, "IndexMix"))
    run = sim.run(build, Case(inputs={"table": table, "ids": ids}))
    assert run.status == "ok" and np.array_equal(run.outputs["y"], res.outputs["y"])

    bad = ids.copy()
    bad[1, 0] = 41                              # the checked read of the first index of row 1
    res = interpret(program, {"table": table, "ids": bad})
    (d,) = res.errors()
    assert d.rule == "index.range" and "idx[0] = 41 is outside [0, 40)" in d.message and d.line == 26
    run = sim.run(build, Case(inputs={"table": table, "ids": bad}))
    assert run.status != "ok"
    trap = next(x for x in run.diagnostics if x.rule == "kernel.trap")
    assert "index 41 is outside [0, 40) at DSL line 26" in trap.message

    bad = ids.copy()
    bad[2, 5] = 40                              # caught by the gather: its source is sized to the bound
    (d,) = interpret(program, {"table": table, "ids": bad}).errors()
    assert d.rule == "index.range" and "A.gather: idx[5] = 40" in d.message
    run = sim.run(build, Case(inputs={"table": table, "ids": bad}))
    assert any(x.rule == "ub.out_of_bounds" and "element 40" in x.message for x in run.diagnostics)


def test_calls_are_bound_through_the_primitive_table():
    bad = INDEX.replace("A.gather(got, tab, idx, t.J, t.V)", "A.gather(got, tab, idx, t.J)")
    with pytest.raises(DslError) as e:
        _program(bad, "x.dsl.py")
    assert e.value.diag.rule == "call.args" and "A.gather(dst, src, idx, n, bound)" in e.value.diag.hint
    bad = INDEX.replace("bound=t.V)", "limit=t.V)")
    with pytest.raises(DslError) as e:
        _program(bad, "x.dsl.py")
    assert "has no keyword `limit`" in e.value.diag.message


def test_cube_misuse_is_caught_before_lowering():
    program = parse_file(ROOT / "matmul" / "matmul.dsl.py")
    x = np.zeros((20, 30), np.float32)
    res = interpret(program, {"a": x, "b": np.zeros((30, 10), np.float16)})
    assert res.errors()[0].rule == "case.dtype"                       # no dtype column takes f32 x f16
    wide = MATMUL.replace("bm = min(128, M)", "bm = 128")
    (d,) = interpret(_program(wide, "m.dsl.py"), {"a": x, "b": np.zeros((30, 10), np.float32)}).errors()
    assert d.rule == "cube.tiling" and "(128, 10, 30)" in d.message   # a tile beyond the 20 rows of A
    swapped = MATMUL.replace("A.matmul(mm, c[m0 * t.N + n0:], a[m0 * t.K:], b[n0:]",
                             "A.matmul(mm, c[m0 * t.N + n0:], b[m0 * t.K:], a[n0:]")
    found = rules.check(_program(swapped, "m.dsl.py"))
    assert [f.rule for f in found].count("cube.operand") == 2


def test_mix_kernels_run_vector_cores_in_pairs():
    program = parse_file(ROOT / "matmul" / "linear_gelu.dsl.py")
    rng = np.random.default_rng(1)
    res = interpret(program, {"x": rng.standard_normal((70, 16)).astype(np.float32),
                              "weight": rng.standard_normal((16, 16)).astype(np.float32),
                              "bias": rng.standard_normal(16).astype(np.float32)})
    assert res.ok, [d.render() for d in res.diagnostics]
    assert res.tiling.block_dim == 2 and res.block_dim == 2       # two tiles: one cube core, two vector cores
    kernel = lower(program, "LinearGelu").files["op_kernel/linear_gelu.cpp"]
    assert "KERNEL_TYPE_MIX_AIC_1_2" in kernel and "REGIST_MATMUL_OBJ(&op.pipe" in kernel
    assert "mm.IterateAll(acc);" in kernel and "GetBlockNum() * GetTaskRation()" in kernel


SPLIT_K = '''"""C = A @ B with K in two halves: the second adds into C (atomic) after the first wrote it."""
import adsl as A


@A.tiling
def tiling(a, b, hw):
    M, K = a.shape
    N = b.shape[1]
    return A.Tiling(block_dim=1, M=M, N=N, K=K, half=K // 2)


@A.shapes
def shapes(a, b):
    return {"c": (a.shape[0], b.shape[1])}


@A.kernel(inputs={"a": (A.f32,), "b": (A.f32,)}, outputs={"c": "a"})
def split_k(a, b, c, t):
    mm = A.cube(a, b, c, tile=(t.M, t.N, t.K - t.half), shape=(t.M, t.N, t.K))
    A.matmul(mm, c, a, b, t.M, t.N, t.half)
    A.matmul(mm, c, a[t.half:], b[t.half * t.N:], t.M, t.N, t.K - t.half, atomic="add")
'''


def test_split_k_accumulates_with_atomic_adds(sim):
    program = _program(SPLIT_K, "split_k.dsl.py")
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((20, 90)).astype(np.float32), rng.standard_normal((90, 30)).astype(np.float32)
    res = interpret(program, {"a": a, "b": b})
    assert res.ok, [d.render() for d in res.diagnostics]
    run = sim.run(sim.build(lower(program, "SplitK")), Case(inputs={"a": a, "b": b}))
    assert run.status == "ok", [d.render() for d in run.diagnostics]
    assert np.array_equal(run.outputs["c"], res.outputs["c"])
    assert np.allclose(res.outputs["c"], a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)
    unordered = _program(SPLIT_K.replace(", t.half)\n    A.matmul(", ", t.half, atomic=\"add\")\n    A.matmul("), "s.dsl.py")
    (d,) = interpret(unordered, {"a": a, "b": b}).errors()
    assert d.rule == "gm.uninit" and "atomic add" in d.message          # adding into an output nobody wrote


def test_every_primitive_has_an_example_and_a_reference_entry():
    from kernelwright.tools.dsl.examples import examples
    from kernelwright.tools.dsl.primitives import prims
    sources = "\n".join(e.program_path().read_text() for e in examples())
    reference = (ROOT.parents[1] / "knowledge" / "corpus" / "dsl" / "reference.md").read_text()
    for name in prims():
        assert f"A.{name}(" in sources, f"no example program calls A.{name}"
        assert f"A.{name}(" in reference, f"the DSL reference does not show A.{name}"


@pytest.mark.parametrize("shape", [(1, 2, 131, 173), (2, 1, 45, 50)])
def test_bilinear_taps_in_integers_match_pytorch_at_uneven_ratios(shape):
    import torch
    import torch.nn.functional as F
    program = parse_file(ROOT.parents[1] / "evals" / "cube_programs" / "mkb" / "bilinear_size.dsl.py")   # 60 x 80 out
    x = np.random.default_rng(2).random(shape, dtype=np.float32)
    res = interpret(program, {"x": x})
    assert res.ok, [d.render() for d in res.diagnostics]
    want = F.interpolate(torch.from_numpy(x), size=(60, 80), mode="bilinear", align_corners=False).numpy()
    assert np.allclose(res.outputs["y"], want, rtol=1e-5, atol=1e-5)


def test_a_value_an_integer_tile_cannot_hold_is_a_finding():
    src = (ROOT / "resize" / "bilinear.dsl.py").read_text().replace("A.set(x0, ox, c0)", "A.set(x0, ox, c0 + 3000000000)")
    x = np.zeros((1, 1, 4, 4), np.float32)
    (d,) = interpret(_program(src, "b.dsl.py"), {"x": x}).errors()
    assert d.rule == "value.range" and "A.set into the tile x0: 3000000000 does not fit i32" in d.message
    src = INDEX.replace("A.Duplicate(acc, 0, t.V)", "A.Duplicate(acc, 3e9, t.V)")
    ids = np.zeros((1, 4), np.int32)
    (d,) = interpret(_program(src, "i.dsl.py"), {"table": np.zeros(8, np.int32), "ids": ids}).errors()
    assert d.rule == "value.range" and "A.Duplicate: 3000000000.0 does not fit i32" in d.message
