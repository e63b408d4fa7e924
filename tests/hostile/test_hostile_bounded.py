"""Bounded work: nested tiling loops (each under the per-loop cap) and kernels whose blocks each stay
under the per-block cap end with a clear verdict naming the rule, not a hang."""
import time

import numpy as np

from kernelwright.tools.dsl import host_eval
from kernelwright.tools.dsl.errors import DslError
from kernelwright.tools.dsl.host_eval import TensorSpec, run_tiling
from kernelwright.tools.dsl.interp import machine
from kernelwright.tools.dsl.interp.run import interpret
from kernelwright.tools.dsl.dtypes import DTYPES
from kernelwright.tools.dsl.parse_program import parse_program
from kernelwright.tools.hardware import load_soc

NESTED = '''import adsl as A


@A.tiling
def tiling(x, hw):
    acc = 0
    for i in range(1000000):
        for j in range(1000000):
            for k in range(1000000):
                acc += 1
    return A.Tiling(block_dim=1, total=x.numel, tile=256, acc=acc)


@A.kernel(inputs={"x": (A.f32,)}, outputs={"y": "x"})
def copy(x, y, t):
    xin = A.ub(x.dtype, t.tile)
    yout = A.ub(y.dtype, t.tile)
    lo, hi = A.block_span(t.total)
    for off, n in A.tiles(lo, hi, t.tile):
        A.load(xin, x[off:], n)
        A.Muls(yout, xin, 1.0, n)
        A.store(y[off:], yout, n)
'''


def test_nested_tiling_loops_end_with_a_verdict(monkeypatch):
    monkeypatch.setattr(host_eval, "MAX_STEPS", 20_000)   # the same rule, reached sooner
    program = parse_program(NESTED, "nested.dsl.py")
    start = time.monotonic()
    try:
        run_tiling(program, {"x": TensorSpec((64,), DTYPES["f32"])}, {}, load_soc(None))
    except DslError as e:
        assert e.diag.rule == "tiling.steps" and e.diag.line is not None and "20000" in str(e)
    else:
        raise AssertionError("the nested loops ran to the end")
    assert time.monotonic() - start < 30


SPIN = NESTED.replace('''    acc = 0
    for i in range(1000000):
        for j in range(1000000):
            for k in range(1000000):
                acc += 1
    return A.Tiling(block_dim=1, total=x.numel, tile=256, acc=acc)''', '''    return A.Tiling(block_dim=8, total=x.numel, tile=256, spin=20000)''').replace('''        A.store(y[off:], yout, n)''', '''        for s in A.range(t.spin):
            pass
        A.store(y[off:], yout, n)''')


def test_blocks_under_their_own_cap_share_one_budget(monkeypatch):
    monkeypatch.setattr(machine, "MAX_STEPS", 40_000)
    monkeypatch.setattr(machine, "MAX_TOTAL_STEPS", 80_000)
    from kernelwright.tools.dsl.interp import run as interp_run
    monkeypatch.setattr(interp_run, "MAX_STEPS", 40_000)
    monkeypatch.setattr(interp_run, "MAX_TOTAL_STEPS", 80_000)
    res = interpret(parse_program(SPIN, "spin.dsl.py"), {"x": np.ones(8 * 256, np.float32)})
    assert [d.rule for d in res.errors()] == ["kernel.steps"], [d.render() for d in res.errors()]


def test_a_huge_search_query_is_refused_at_the_tool_boundary():
    from kernelwright.agent.plugins.langchain_tools import kernelwright_tools
    search = {t.name: t for t in kernelwright_tools()}["search_docs"]
    msg = search.invoke({"name": "search_docs", "id": "q", "type": "tool_call", "args": {"query": "DataCopy " * 120_000}})
    assert msg.status == "error" and msg.content.startswith("invalid arguments:") and "2000" in msg.content


def test_the_retriever_searches_only_the_head_of_a_long_query(monkeypatch):
    import kernelwright.knowledge.retriever as r
    seen = []

    class Probe(r.IndexRetriever):
        catalog = None
        cann = None

        def __init__(self):
            pass

        def _stamp(self):
            return ()

        def _fused(self, query, *args):
            seen.append(query)
            return []

    monkeypatch.setattr(r, "symbol_passages", lambda q, catalog, k: seen.append(q) or [])
    monkeypatch.setattr(r, "soc_passages", lambda q: seen.append(q) or [])
    Probe().search("x" * 1_000_000)
    Probe().search("x" * 1_000_000, cann="8.x")          # a target CANN version keeps the cap
    assert len(seen) == 6 and all(len(q) == r.MAX_QUERY_CHARS for q in seen)
