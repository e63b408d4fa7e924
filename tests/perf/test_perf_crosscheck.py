"""The msKPP cross-check compares like with like: the stream it costs for us is what msKPP replayed
(no msKPP needed here; the eval itself runs against a local build)."""
from __future__ import annotations

from kernelwright.evals.mskpp_crosscheck import _same_stream
from kernelwright.tools.perf.trace import ACQ, BARRIER, SCALAR, SYNCALL, VEC, TraceBuilder


def test_same_stream_drops_what_mskpp_cannot_replay_and_keeps_the_rest():
    t = TraceBuilder()
    t.copy("GM", "UB", 4096).flag("MTE2", "V")
    t.vec("Exp", "float", 16).vec("Sort32", "float", 4)
    s_tok = t.release("V")
    t.acquire("S", s_tok)                   # the scalar unit waits for the vector pipe: no msKPP pair
    t.scalar("local_read").barrier().sync_all()
    t.flag("V", "MTE3").copy("UB", "GM", 4096)
    block = t.build()
    same = _same_stream(block, {("Sort32", "float")})
    kinds = same.records["kind"].tolist()
    assert SCALAR not in kinds and BARRIER not in kinds and SYNCALL not in kinds
    acquires = same.records[same.records["kind"] == ACQ]
    assert len(acquires) == 2               # MTE2->V and V->MTE3 stay; V->S is gone
    vec_names = [same.names[i] for i in same.records[same.records["kind"] == VEC]["name"]]
    assert vec_names == ["Exp", "Add"]      # the instruction msKPP replayed as VADD is costed as Add
    assert len(block.records) > len(same.records)   # the original block is untouched
