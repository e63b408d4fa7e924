"""Every example program under prompts/examples: lowered once, refereed on the CPU emulation over
every shape case (and dtype variant) of its tasks, and interpreted on the same cases; the
interpreter must match the reference and the emulated kernel, case by case."""
import math
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


def _in_suite(pairs: list, per_family: int = 2) -> list:
    """Every pair, the first `per_family` of each family spread over its list in the default suite and the rest
    marked slow (`pytest -m slow` runs them): the suite's time budget; every example still runs on demand."""
    out, seen = [], {}
    for e, t in pairs:
        seen.setdefault(e.family, []).append((e, t))
    for group in seen.values():
        step = math.ceil(len(group) / per_family)
        out += [pytest.param(e, t, id=f"{e.name}:{t.path.split('/')[-1][:-3]}",
                             marks=() if i % step == 0 else pytest.mark.slow) for i, (e, t) in enumerate(group)]
    return out


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


@pytest.mark.parametrize("example,spec", _in_suite(PAIRS))
def test_example_passes_the_referee_and_the_interpreter_agrees(example, spec, sim, dsl_worker, dsl_projects):
    if "worker" not in dsl_worker:
        dsl_worker["worker"] = SharedWorker(load_task(example.task_path(spec)))
    out = run_example(example, spec, sim, dsl_worker["worker"], dsl_projects)
    v = out.verdict
    assert v.status == "pass", v.summary + "\n" + "\n".join(r.reason for r in v.runs if r.status != "pass")
    assert len(out.cases) == len(v.runs) >= 2                 # several shapes (and dtypes) per task
    bad = {c.case: c.problems for c in out.cases if c.problems}
    assert not bad, bad
