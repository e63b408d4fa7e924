"""The wording of the emulation's important findings, on the broken kernels of the corpus:
compile errors read like bisheng/clang on real CANN 8.x (ascendc-api.md §15.1), run-time
findings name the rule, carry the values and give a hint."""
from __future__ import annotations

import functools

import pytest

from kernelwright.tools.sim import corpus

BAD = {e.name: e for e in corpus.load(kind="bad")}


@functools.lru_cache(maxsize=None)
def _results(sim, name: str):
    entry = BAD[name]
    build = sim.build(entry.project())
    run = sim.run(build, entry.cases()[0]) if entry.expect.stage != "build" else None
    return build, run


def _finding(sim, name: str):
    """The error the corpus entry expects (at its file:line)."""
    build, run = _results(sim, name)
    e = BAD[name].expect
    result = run if run is not None else build
    hits = [d for d in result.errors() if d.file == e.file and d.line == e.line]
    assert hits, "\n".join(d.render() for d in result.diagnostics)
    return hits[0]


# ---- compile time: clang's words, the offending symbol, and the notes that explain ----
COMPILE = [
    ("adds_float_literal_half", "no matching function for call to 'Adds'", "Adds",
     "deduced conflicting types for parameter 'T' ('half' vs. 'float')"),
    ("free_rvalue_deque", "no matching member function for call to 'FreeTensor'", "FreeTensor", "expects an lvalue"),
    ("datacopyparams_two_args", "no matching constructor for initialization of 'DataCopyParams'", "DataCopyParams",
     "requires 4 arguments, but 2 were provided"),
    ("cast_without_roundmode", "no matching function for call to 'Cast'", "Cast", "but 3 were provided"),
    ("pipebarrier_hardevent", "no matching function for call to 'PipeBarrier'", "PipeBarrier",
     "invalid explicitly-specified argument for template parameter 'pipe'"),
    ("setglobalbuffer_gm_addr", "no matching member function for call to 'SetGlobalBuffer'", "SetGlobalBuffer",
     "no known conversion from"),
]


@pytest.mark.parametrize("name, message, symbol, note", COMPILE, ids=[c[0] for c in COMPILE])
def test_compile_error_reads_like_clang(sim, name, message, symbol, note):
    d = _finding(sim, name)
    assert d.stage == "build" and message in d.message
    assert d.symbol == symbol
    assert any(note in n for n in d.notes), d.notes
    assert not any("/kw/" in n and "<kernelwright>" not in n for n in d.notes), "our header paths are shown as <kernelwright>/..."


@pytest.mark.parametrize("name, message", [
    ("assign_through_index", "no viable overloaded '='"),
    ("tque_missing_depth", "too few template arguments for class template 'TQue'"),
    ("softmax_lowercase_three_args", "no member named 'Softmax' in namespace 'AscendC'"),
    ("exp2_missing", "no member named 'Exp2' in namespace 'AscendC'"),
    ("subs_cann9_only", "use of undeclared identifier 'Subs'"),
    ("narrowing_repeat_params", "non-constant-expression cannot be narrowed from type 'int' to 'uint8_t'"),
    ("deque_wrong_type", "no viable conversion from 'LocalTensor<half>' to 'LocalTensor<float>'"),
    ("initbuffer_tbuf_with_num", "TPipe::InitBuffer(T& que, uint8_t num, uint32_t len) not supports T as TBuf"),
])
def test_compile_error_message(sim, name, message):
    assert message in _finding(sim, name).message


def test_narrowing_is_an_error_not_a_warning(sim):
    build, _ = _results(sim, "narrowing_repeat_params")
    assert build.status == "compile_error"
    assert _finding(sim, "narrowing_repeat_params").severity == "error"


# ---- run time: rule, values, hint ----

def test_ub_overflow_names_the_sizes(sim):
    d = _finding(sim, "ub_overflow")
    assert d.values["requested"] == 131072 and d.values["capacity"] == 196608
    assert "Ascend910B2" in d.message and "Ledger" in d.message
    assert "tile length" in d.hint


def test_unaligned_view_gives_the_offset(sim):
    d = _finding(sim, "unaligned_view")
    assert d.values["alignment"] == 32 and d.values["address"] % 32 == 6
    assert "6 bytes past a boundary" in d.message and "k*sizeof(T)" in d.hint


def test_truncating_copy_says_what_is_lost(sim):
    d = _finding(sim, "datacopy_truncate")
    assert d.values["count"] == 100 and d.values["bytes"] == 200
    assert "copies only 192 bytes and the last 8 are lost" in d.message
    assert "DataCopyPad" in d.hint


def test_gm_out_of_bounds_names_the_buffer_and_block(sim):
    d = _finding(sim, "gm_out_of_bounds_last_core")
    assert d.block == 3 and "of 'y'" in d.message and "the next tensor, 'z'" in d.message
    assert d.hint


def test_leak_points_at_the_allocation(sim):
    d = _finding(sim, "leaked_queue_slot")      # EnQue'd and never DeQue'd: an error (allocated-only is a warning)
    assert "never DeQue'd" in d.message and d.npu_check == "ErrorLeak" and d.hint
    assert any(n.startswith("detected at") for n in d.notes)


@pytest.mark.parametrize("name, rule, words", [
    ("alloc_no_free_slot", "queue.no_free_slot", "507014"),
    ("deque_without_enque", "queue.deque_empty", "waits forever"),
    ("waitflag_without_setflag", "flag.wait_without_set", "WaitFlag<HardEvent::MTE2_V>(0)"),
    ("tbuf_missing_sync", "pipe.hazard.raw", "Muls (V pipe) reads data that an earlier MTE2 instruction writes"),
    ("cast_mode_unsupported", "cast.mode", "CAST_RINT from half to float not supported on current device"),
])
def test_runtime_rule_message_and_hint(sim, name, rule, words):
    d = _finding(sim, name)
    assert d.rule == rule and words in d.message and d.hint


def test_hazard_hint_says_how_to_synchronise(sim):
    assert "SetFlag<HardEvent::MTE2_V>" in _finding(sim, "tbuf_missing_sync").hint


def test_cross_core_findings(sim):
    race = _finding(sim, "missing_syncall")
    assert race.rule == "gm.race" and "buffer 'workspace'" in race.message
    mismatch = _finding(sim, "syncall_in_branch")
    assert "blocks [0,1,2] wait in SyncAll while blocks [3] already returned" in mismatch.message
    assert "GetBlockIdx()" in mismatch.hint


def test_timeout_is_located_in_the_loop(sim):
    _, run = _results(sim, "infinite_loop_u16_counter")
    assert run.status == "timeout"
    d = _finding(sim, "infinite_loop_u16_counter")
    assert d.rule == "kernel.timeout" and "507014" in d.hint
