"""Joining DSL programs into one staged kernel (agent/builtin/patterns/stitch.py) and the reshape rule of the
tail segments (patterns/tail.py): pure text and arithmetic, no torch, no build."""
import pytest

from kernelwright.agent.builtin.chain import Unsupported
from kernelwright.agent.builtin.patterns.stitch import Stage, Stitcher, View
from kernelwright.agent.builtin.patterns.tail import regroup
from kernelwright.tools.dsl.parse_program import parse_program

SCALE = '''"""y = 2 x"""
import adsl as A


@A.tiling
def tiling(x, hw):
    n = x.shape[0] * x.shape[1]
    tile = min(1024, hw.ub_bytes // 16)
    return A.Tiling(block_dim=hw.vector_cores, total=n, tile=tile)


@A.shapes
def shapes(x):
    return {"y": (x.shape[0], x.shape[1])}


@A.kernel(inputs={"x": (A.f32,)}, outputs={"y": "x"})
def scale(x, y, t):
    xin = A.ub(x.dtype, t.tile)
    yout = A.ub(x.dtype, t.tile)
    lo, hi = A.block_span(t.total)
    for off, n in A.tiles(lo, hi, t.tile):
        A.load(xin, x[off:], n)
        A.Muls(yout, xin, 2.0, n)
        A.store(y[off:], yout, n)
'''


def test_two_stages_join_into_one_kernel_with_a_workspace_and_a_barrier():
    st = Stitcher(["x"], "y")
    dims = st.add(Stage(SCALE, [View("x", [], whole=True)]))
    assert dims == ["x.shape[0]", "x.shape[1]"]
    # the second stage reads the first's result as (rows / 2, 2 * cols): a view of the workspace
    st.add(Stage(SCALE, [View("ws_0", [f"({dims[0]}) // 2", f"2 * ({dims[1]})"], workspace=True)]))
    src = st.source("twice", "y = 4 x in two stages")
    program = parse_program(src)                    # the joined program is valid DSL
    assert "ws_0 = A.workspace(x.dtype, t.ws_0)" in src
    assert src.count("A.sync_all()") == 1
    assert "A.store(ws_0[k0_off:], qout_in_0" in src and "A.store(y[k1_off:], qout_in_0" in src
    assert "A.load(qin_in_0, ws_0[k1_off:]" in src
    # the stages run one after the other: their loaded (stored) tiles share one queue, as large as the larger
    assert "qin_in_0 = A.ub(x.dtype, max(t.s0_tile, t.s1_tile))" in src and src.count("A.ub(") == 2
    assert "s1_n = x.shape[0] // 2 * (2 * x.shape[1])" in src      # the view's dims in the second stage's tiling
    assert "s0_tile = min(1024, (hw.ub_bytes - 40960) // 16)" in src     # the later stage's UB share taken out
    assert "s1_tile = min(1024, 40960 // 16)" in src
    assert set(program.workspaces) == {"ws_0"} and set(program.tiles) == {"qin_in_0", "qout_in_0"}


def test_a_stage_reading_a_view_by_name_is_refused():
    bad = SCALE.replace("n = x.shape[0] * x.shape[1]", "n = x.numel\n    m = x")
    st = Stitcher(["x"], "y")
    st.add(Stage(SCALE, [View("x", [], whole=True)]))
    with pytest.raises(Unsupported):
        st.add(Stage(bad, [View("ws_0", ["4", "8"], workspace=True)]))


def test_reshapes_merge_and_add_axes_but_never_split_one():
    assert regroup([4, 6], ["a", "b"], [4, 1, 6]) == ["(a)", "1", "(b)"]
    assert regroup([4, 1, 6], ["a", "1", "b"], [4, 6]) == ["(a)", "(b)"]
    assert regroup([2, 3, 4, 5], list("abcd"), [2, 60]) == ["(a)", "(b) * (c) * (d)"]
    with pytest.raises(Unsupported):
        regroup([2, 60], ["a", "b"], [2, 3, 20])


def test_double_buffered_tiles_keep_their_own_queues_while_a_core_has_slots():
    double = SCALE.replace("A.tiles(lo, hi, t.tile)", "A.tiles(lo, hi, t.tile, stages=2)")
    st = Stitcher(["x"], "y")
    dims = st.add(Stage(SCALE, [View("x", [], whole=True)]))
    st.add(Stage(double, [View("ws_0", dims, workspace=True)]))
    src = st.source("twice", "y = 4 x")
    # the first stage sized its tiles as single ones: a shared queue would take two slots of its largest tile
    assert "qin_in_0 = A.ub(x.dtype, t.s0_tile)" in src and "qin_in_d_0 = A.ub(x.dtype, t.s1_tile)" in src
    parse_program(src)
    # a first stage loading four tiles and a double-buffered one loading three: 4 + 3 x 2 = 10 slots apart,
    # past a core's 8: all share again (as before: 3 queues of two slots, one of one)
    def loads(extra: int, stages: str = "") -> str:
        return SCALE.replace("    yout = A.ub(x.dtype, t.tile)", "    yout = A.ub(x.dtype, t.tile)\n" + "".join(
            f"    x{j} = A.ub(x.dtype, t.tile)\n" for j in range(extra))).replace(
            "        A.Muls(yout, xin, 2.0, n)", "".join(f"        A.load(x{j}, x[off:], n)\n        A.Add(xin, xin, x{j}, n)\n"
                                                     for j in range(extra)) + "        A.Muls(yout, xin, 0.5, n)").replace(
            "A.tiles(lo, hi, t.tile)", f"A.tiles(lo, hi, t.tile{stages})")
    four, three = loads(3), loads(2, ", stages=2")
    st = Stitcher(["x"], "y")
    dims = st.add(Stage(four, [View("x", [], whole=True)]))
    st.add(Stage(three, [View("ws_0", dims, workspace=True)]))
    src = st.source("mixed", "y = 4 x")
    assert "_d_" not in src and src.count("qin_in_") == src.count("qin_in_0") + src.count("qin_in_1") + \
        src.count("qin_in_2") + src.count("qin_in_3")
    parse_program(src)
