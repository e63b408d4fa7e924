"""What the model nodes are shown beyond the task: the API cards of the plan's operations (writer) and of
the failing symbols (debugger), the verdict's work counters and efficiency flags, the lengths a shrunk
verification never ran, and honest progress while the knowledge base opens."""
from types import SimpleNamespace

from kernelwright.agent.nodes.retrieval import failure_cards, plan_cards, retrieve
from kernelwright.agent.nodes.verdict_notes import unrun_lengths, work_notes
from kernelwright.agent.state import Failure, Plan
from kernelwright.knowledge.retriever import IndexRetriever
from kernelwright.tools.referee.verdict import CaseRun, StageReport, Verdict

PLAN = Plan(category="elementwise", math="y = pos + neg: Mins(t, x, 0.0f, n); Exp(t, t, n); Maxs(y, x, 0.0f, n)",
            dtype_strategy="fp32", core_split="flat", tiling="DataCopyPad for the tail", tail_handling="counts")


class CountingRetriever(IndexRetriever):
    """The real catalog; searches are counted and answer nothing (no index is built in a test)."""

    def __init__(self, home):
        super().__init__(home)
        self.searches: list[tuple] = []

    def search(self, query, k=5, kinds=None, soc=None, cann=None):
        self.searches.append((query, kinds))
        return []


def deps(tmp_path):
    return SimpleNamespace(retriever=CountingRetriever(tmp_path),
                           config=SimpleNamespace(retriever=SimpleNamespace(k=3), toolchain=SimpleNamespace(soc=None)))


def test_the_writer_gets_the_cards_of_the_operations_its_plan_names(tmp_path):
    from kernelwright.agent.models import ScriptedModel
    from kernelwright.agent.writers import LlmWriter, WriteRequest
    from kernelwright.tools.task import Task
    cards = plan_cards(deps(tmp_path), PLAN)
    assert [c["cite"].split(":")[0].rsplit("/", 1)[-1] for c in cards] == ["Mins.md", "Exp.md", "Maxs.md",
                                                                              "DataCopyPad.md"]
    task = Task(name="selu", op_type="Selu", kernel_name="selu", layout="py", source="selu.py")
    user = LlmWriter(ScriptedModel([])).messages(WriteRequest(task=task, source="...", plan=PLAN, trace=None,
                                                              passages=cards))[1]["content"]
    assert "AscendC API cards of the operations the plan names" in user and "# Mins" in user


def test_the_debugger_gets_cards_of_the_failing_symbol_and_no_similarity_pages_for_a_dsl_failure(tmp_path):
    d = deps(tmp_path)
    dsl = Failure(subject="dsl", stage="interpret", summary="the interpreter stopped", details=["error [ub.uninit]"])
    assert failure_cards(d, dsl) == [] and d.retriever.searches == []
    kernel = Failure(subject="kernel", stage="build", summary="does not build",
                     details=["kernel.cpp:12: error: no matching function for call to 'DataCopyPad'"])
    cards = failure_cards(d, kernel)
    assert [c["cite"].split(":")[0].rsplit("/", 1)[-1] for c in cards] == ["DataCopyPad.md"]
    assert [kinds for _, kinds in d.retriever.searches] == [["fix"]]      # past fixes only, never unrelated pages


def verdict(per_case, runs=()):
    return Verdict(task="t", op_type="T", project="p", backend="sim", tolerance="default", status="pass",
                   stages=[StageReport(name="measure", status="pass", metrics={"per_case": per_case})], runs=list(runs))


def counters(vi, ve, ci=0):
    return {"block_dim": 48, "vector_instructions": vi, "vector_elements": ve, "cube_instructions": ci,
            "cube_macs": 0, "copy_bytes": {"gm_to_ub": 4096}}


def test_work_counters_reach_the_model_and_wasteful_patterns_are_flagged():
    notes = work_notes(verdict({"case0": counters(8_400_000, 8_400_000)}), "resize")
    assert notes[0].startswith("work counters (case0): 48 blocks, 8400000 vector instructions")
    assert "element by element" in notes[1]
    notes = work_notes(verdict({"case0": counters(20_000, 1_280_000)}), "matmul")
    assert [n.split(":")[0] for n in notes] == ["work counters (case0)", "efficiency"]
    assert "on the vector unit (0 cube instructions)" in notes[1]
    assert len(work_notes(verdict({"case0": counters(200, 12_800, ci=64)}), "matmul")) == 1   # cube work: no flag


def test_a_shrunk_reduction_length_that_never_ran_is_named():
    def run(case, orig, got):
        return CaseRun(case=case, trial=0, seed=0, original_shapes=orig, run_shapes=got, shrunk=orig != got)
    shrunk_k = [run("c0", [[1024, 8192], [8192, 1024]], [[64, 128], [128, 64]])]
    notes = unrun_lengths(verdict({}, shrunk_k))
    assert len(notes) == 1 and notes[0].startswith("not covered:") and "input 0 dim 1 8192 (ran 128)" in notes[0]
    kept_k = [run("c0", [[1024, 8192], [8192, 1024]], [[64, 8192], [8192, 64]])]
    assert not any("8192" in n for n in unrun_lengths(verdict({}, kept_k)))
    assert unrun_lengths(verdict({}, [run("c0", [[4, 4]], [[4, 4]])])) == []


def test_the_first_search_says_it_is_opening_the_knowledge_base(tmp_path):
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    class S(TypedDict, total=False):
        n: int

    d = deps(tmp_path)
    g = StateGraph(S)
    g.add_node("planner", lambda s: (retrieve(d, "Exp"), {"n": 1})[1])
    g.add_edge(START, "planner")
    g.add_edge("planner", END)
    said = [chunk["message"] for chunk in g.compile().stream({}, stream_mode="custom")]
    assert said == ["building the knowledge index (first run of this KERNELWRIGHT_HOME: minutes)"]


def test_the_knowledge_base_opens_while_the_reference_is_traced(tmp_path):
    import threading
    from kernelwright.agent.nodes import retrieval

    class Slow(SimpleNamespace):
        _synced = None

        def is_current(self):
            return True

        def build(self):
            opened.wait(5)
            self._synced = ("stamp",)

        def search(self, query, k=5, kinds=None, soc=None):
            return []
    opened = threading.Event()
    d = SimpleNamespace(retriever=Slow(), config=SimpleNamespace(retriever=SimpleNamespace(k=3),
                                                                 toolchain=SimpleNamespace(soc=None)))
    retrieval.warm(d)
    assert retrieval._WARMING[id(d.retriever)].is_alive()      # started, not waited for
    opened.set()
    assert retrieval.retrieve(d, "Exp") == [] and d.retriever._synced == ("stamp",)
    assert id(d.retriever) not in retrieval._WARMING


def test_the_planner_is_not_shown_compiler_error_notes_or_cli_commands():
    def passage(heading):
        return SimpleNamespace(cite=lambda: f"knowledge/corpus/api/X.md:1-2 ({heading})", text=heading)

    class Fixed(SimpleNamespace):
        def search(self, query, k=5, kinds=None, soc=None):
            return [passage(h) for h in ("FusedMulAddRelu > Common misuses > Missing an operand", "Silu",
                                         "The kernel DSL (`adsl`) > Commands", "Exp", "Relu", "Muls")][:k]
    d = SimpleNamespace(retriever=Fixed(), config=SimpleNamespace(retriever=SimpleNamespace(k=3),
                                                                  toolchain=SimpleNamespace(soc=None)))
    assert [p["text"] for p in retrieve(d, "selu")] == ["Silu", "Exp", "Relu"]
    assert len(retrieve(d, "Abss", node="debugger")) == 3


def test_a_cube_requirement_is_checked_on_both_routes():
    from kernelwright.agent.nodes.verdict_notes import unhonoured
    vector_only, on_cube = verdict({"case0": counters(20_000, 1_280_000)}), verdict({"case0": counters(200, 12_800, ci=64)})
    dsl, direct = PLAN.model_copy(update={"cube": True}), PLAN.model_copy(update={"cube": True, "route": "ascendc"})
    assert "A.cube + A.matmul" in unhonoured(vector_only, dsl) and "Mmad" in unhonoured(vector_only, direct)
    assert unhonoured(on_cube, dsl) is None and unhonoured(vector_only, PLAN) is None    # honoured / not asked
    assert unhonoured(verdict({}), dsl) is None                                          # nothing measured: no claim
