"""Every example program under prompts/examples: lowered once, refereed on the CPU emulation over
every shape case (and dtype variant) of its tasks, and interpreted on the same cases; the
interpreter must match the reference and the emulated kernel, case by case."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dsl_example_harness import SharedWorker, run_example  # noqa: E402
from kernelwright.tools.dsl.examples import by_family, examples  # noqa: E402
from kernelwright.tools.tasks.load import load_task  # noqa: E402

FAMILIES = {"elementwise", "broadcast", "cast", "softmax", "norm", "reduce", "norms", "loss", "optimizer", "scan",
            "pooling", "matmul", "convolution", "index", "resize"}
PAIRS = [(e, t) for e in examples() for t in e.tasks]


@pytest.fixture(scope="session")
def dsl_worker():
    holder: dict = {}
    yield holder
    if "worker" in holder:
        holder["worker"].really_close()


@pytest.fixture(scope="session")
def dsl_projects():
    return {}


def test_every_family_has_an_example():
    assert FAMILIES <= set(by_family()), sorted(FAMILIES - set(by_family()))
    for e in examples():
        assert e.program_path().is_file() and all(e.task_path(t).is_file() for t in e.tasks)


@pytest.mark.parametrize("example,spec", PAIRS, ids=[f"{e.name}:{t.path.split('/')[-1][:-3]}" for e, t in PAIRS])
def test_example_passes_the_referee_and_the_interpreter_agrees(example, spec, sim, dsl_worker, dsl_projects):
    if "worker" not in dsl_worker:
        dsl_worker["worker"] = SharedWorker(load_task(example.task_path(spec)))
    out = run_example(example, spec, sim, dsl_worker["worker"], dsl_projects)
    v = out.verdict
    assert v.status == "pass", v.summary + "\n" + "\n".join(r.reason for r in v.runs if r.status != "pass")
    assert len(out.cases) == len(v.runs) >= 2                 # several shapes (and dtypes) per task
    bad = {c.case: c.problems for c in out.cases if c.problems}
    assert not bad, bad
