"""Seeded DSL bugs: each is caught by the static rules or by the interpreter, with the right rule
id and the DSL line, before anything is lowered."""
import numpy as np
import pytest

from kernelwright.tools.dsl import rules
from kernelwright.tools.dsl.interp.run import interpret
from kernelwright.tools.dsl.parse_program import parse_program

ROWSUM = '''"""Row sums: y[r] = sum(x[r, :]) (the base program the bugs are seeded into)."""
import adsl as A


@A.tiling
def tiling(x, hw):
    cols = x.shape[-1]
    rows = x.numel // cols
    nb = max(1, min(hw.vector_cores, rows))
    chunk = min(A.align_down((hw.ub_bytes - 8192) // (2 * x.dtype.size + 8), 64), A.align_up(cols, 64))
    return A.Tiling(block_dim=nb, rows=rows, cols=cols, chunk=chunk, lanes=min(chunk, cols))


@A.shapes
def shapes(x):
    return {"y": x.shape[:-1]}


@A.kernel(inputs={"x": (A.f32,)}, outputs={"y": (A.f32,)})
def row_sum(x, y, t):
    xin = A.ub(A.f32, t.chunk)
    acc = A.ub(A.f32, t.chunk)
    w = A.ub(A.f32, t.chunk)
    res = A.ub(A.f32, 8)
    r0, r1 = A.block_span(t.rows)
    for r in A.range(r0, r1):
        A.Duplicate(acc, 0.0, t.chunk)
        for c, n in A.tiles(0, t.cols, t.chunk, stages=2):
            A.load(xin, x[r * t.cols + c:], n)
            A.Add(acc, acc, xin, n)
        s = A.reduce_sum(acc, t.lanes)
        A.Duplicate(res, s, 1)
        A.store(y[r:], res, 1)
'''

SCALE = '''"""y = 2 * x, elementwise (the base for the copy bugs)."""
import adsl as A


@A.tiling
def tiling(x, hw):
    nb = max(1, min(hw.vector_cores, A.ceil_div(x.numel, 256)))
    return A.Tiling(block_dim=nb, total=x.numel, tile=256)


@A.kernel(inputs={"x": (A.f32, A.f16)}, outputs={"y": "x"})
def scale(x, y, t):
    xin = A.ub(x.dtype, t.tile)
    yout = A.ub(y.dtype, t.tile)
    lo, hi = A.block_span(t.total, A.elems_per_block(x.dtype))
    for off, n in A.tiles(lo, hi, t.tile, stages=2):
        A.load(xin, x[off:], n)
        A.Muls(yout, xin, 2.0, n)
        A.store(y[off:], yout, n)
'''

X = np.random.default_rng(0).standard_normal((6, 700)).astype(np.float32)


def line_of(src: str, text: str) -> int:
    return next(i for i, line in enumerate(src.splitlines(), 1) if text in line)


def seed(base: str, old: str, new: str) -> str:
    assert old in base, old
    return base.replace(old, new)


def findings(src: str, x=X, attrs=None):
    """Static findings, else the interpreter's: every finding is reported before lowering."""
    program = parse_program(src, "bug.dsl.py")
    static = [d for d in rules.check(program) if d.severity == "error"]
    if static:
        return program, static
    return program, interpret(program, {"x": x}, attrs or {}).errors()


def test_the_base_programs_are_clean():
    for base, ref in ((ROWSUM, X.sum(-1)), (SCALE, 2 * X)):
        program, found = findings(base)
        assert found == []
        res = interpret(program, {"x": X})
        np.testing.assert_allclose(res.outputs["y"], ref, rtol=1e-5, atol=1e-4)


BUGS = {
    # UB overflow: the tiling forgets the accumulator and the scratch tile in its per-element budget.
    "ub_overflow": (ROWSUM, "chunk = min(A.align_down((hw.ub_bytes - 8192) // (2 * x.dtype.size + 8), 64), "
                            "A.align_up(cols, 64))",
                    "chunk = A.align_down(hw.ub_bytes // (2 * x.dtype.size), 64)", "ub.capacity", "xin = A.ub"),
    # A view that is not 32-byte aligned as a vector operand.
    "misaligned_view": (SCALE, "A.Muls(yout, xin, 2.0, n)", "A.Muls(yout, xin[3:], 2.0, n - 3)", "ub.align",
                        "A.Muls(yout, xin[3:]"),
    # The last, shorter tile is dropped: the loop stops at the last whole tile.
    "tail_lost": (SCALE, "for off, n in A.tiles(lo, hi, t.tile, stages=2):",
                  "for off, n in A.tiles(lo, lo + (hi - lo) // t.tile * t.tile, t.tile, stages=2):", "gm.unwritten",
                  "def scale"),
    # The accumulator is never zeroed.
    "uninitialised_accumulator": (ROWSUM, "        A.Duplicate(acc, 0.0, t.chunk)\n", "", "ub.uninit",
                                  "A.Add(acc, acc, xin, n)"),
    # Every block writes the whole output: a race between blocks.
    "race_between_blocks": (SCALE, "A.store(y[off:], yout, n)", "A.store(y[off - lo:], yout, n)", "gm.race",
                            "A.store(y[off - lo:]"),
    # A loaded tile read after its loop ended (its queue slot was released).
    "stale_queue_tile": (ROWSUM, "        s = A.reduce_sum(acc, t.lanes)\n",
                         "        s = A.reduce_sum(xin, t.lanes)\n", "queue.lifetime", "A.reduce_sum(xin"),
    # Reading beyond what the load defined (lanes past n up to the tile's end).
    "read_past_the_load": (ROWSUM, "A.Add(acc, acc, xin, n)", "A.Add(acc, acc, xin, t.chunk)", "ub.uninit",
                           "A.Add(acc, acc, xin, t.chunk)"),
    # A copy past the end of the input tensor.
    "gm_out_of_bounds": (SCALE, "A.load(xin, x[off:], n)", "A.load(xin, x[off + 8:], n)", "gm.bounds",
                         "A.load(xin, x[off + 8:]"),
    # One tile is both loaded and stored.
    "queue_role": (SCALE, "A.store(y[off:], yout, n)", "A.store(y[off:], xin, n)", "queue.role",
                   "A.store(y[off:], xin"),
    # bf16 has no vector arithmetic on A2/A3.
    "bf16_arithmetic": (SCALE, '@A.kernel(inputs={"x": (A.f32, A.f16)}', '@A.kernel(inputs={"x": (A.f32, A.bf16)}',
                        "dtype.op", "A.Muls(yout"),
    # A tile declared inside the loop.
    "declaration_in_loop": (ROWSUM, "        A.Duplicate(acc, 0.0, t.chunk)\n",
                            "        tmp = A.ub(A.f32, 64)\n        A.Duplicate(acc, 0.0, t.chunk)\n", "decl.top",
                            "tmp = A.ub"),
}


@pytest.mark.parametrize("name", sorted(BUGS))
def test_seeded_bug_is_caught_with_its_rule_and_line(name):
    base, old, new, rule, where = BUGS[name]
    src = seed(base, old, new)
    program, found = findings(src)
    assert found, f"{name}: nothing caught"
    assert found[0].rule == rule, [d.render(src) for d in found]
    assert found[0].line == line_of(src, where), found[0].render(src)
    text = found[0].render(src)
    assert f"at line {found[0].line}" in text and found[0].hint


def test_sync_all_needs_every_block_and_fits_the_cores():
    src = seed(SCALE, "        A.store(y[off:], yout, n)\n",
               "        A.store(y[off:], yout, n)\n    if A.block_idx() == 0:\n        A.sync_all()\n")
    program, found = findings(src, x=np.ones(4096, np.float32))
    assert [d.rule for d in found] == ["sync_all.mismatch"] and found[0].line == line_of(src, "A.sync_all()")
    many = seed(src, "if A.block_idx() == 0:\n        A.sync_all()", "A.sync_all()")
    many = seed(many, "nb = max(1, min(hw.vector_cores, A.ceil_div(x.numel, 256)))", "nb = A.ceil_div(x.numel, 256)")
    program, found = findings(many, x=np.ones(256 * 60, np.float32))
    assert found[0].rule == "launch.sync_all" and "60 > 48" in found[0].message


def test_reading_another_blocks_output_without_sync_all_is_a_race():
    src = seed(SCALE, "        A.store(y[off:], yout, n)\n",
               "        A.store(y[off:], yout, n)\n    A.load(xin, y, 8)\n")
    program, found = findings(src, x=np.ones(4096, np.float32))
    assert found[0].rule == "gm.race" and "A.sync_all" in found[0].message and found[0].block == 1


def test_padding_reaches_only_the_next_32_byte_boundary():
    ok = seed(ROWSUM, "A.load(xin, x[r * t.cols + c:], n)", "A.load(xin, x[r * t.cols + c:], n, pad=0.0)")
    ok = seed(ok, "A.Add(acc, acc, xin, n)", "A.Add(acc, acc, xin, A.align_up(n, 8))")
    program, found = findings(ok, x=X[:, :690])       # 690 -> padded to 696 (eight floats per block)
    assert found == []
    too_far = seed(ok, "A.Add(acc, acc, xin, A.align_up(n, 8))", "A.Add(acc, acc, xin, A.align_up(n, 16))")
    program, found = findings(too_far, x=X[:, :690])
    assert found[0].rule == "ub.uninit" and "xin[696]" in found[0].message


def test_cast_pair_and_mode_are_checked_per_dtype_column():
    src = seed(SCALE, "A.Muls(yout, xin, 2.0, n)", 'A.Cast(yout, xin, "floor", n)')
    program = parse_program(src, "bug.dsl.py")
    found = [d for d in rules.check(program) if d.severity == "error"]
    assert [d.rule for d in found] == ["cast.pair"] and "f16 to f16" in found[0].message   # f32 -> f32 may floor
    assert "dtype column 1" in found[0].message
    to_bf16 = seed(seed(src, 'outputs={"y": "x"}', 'outputs={"y": (A.bf16, A.bf16)}'), '"floor"', '"none"')
    found = [d for d in rules.check(parse_program(to_bf16, "bug.dsl.py")) if d.severity == "error"]
    assert sorted(d.rule for d in found) == ["cast.mode", "cast.pair"]    # f32 -> bf16 has no CAST_NONE; no f16 -> bf16


def test_negative_integer_division_is_rejected():
    src = seed(SCALE, "A.load(xin, x[off:], n)", "A.load(xin, x[off + (lo - 8) // 8 * 0:], n)")
    program, found = findings(src)
    assert found[0].rule == "index.negative_div" and found[0].line == line_of(src, "(lo - 8) // 8")
