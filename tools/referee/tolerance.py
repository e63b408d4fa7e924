"""Tolerances: our per-dtype table and each public harness's published bar, as named presets.

Every verdict records the preset it was judged by. Integer and bool outputs compare exactly in
every preset except `mere`, which allows int8/int16 one least-significant bit (quantised outputs
that round through fp16 on the NPU).
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from kernelwright.errors import ConfigError

Rule = Literal["allclose", "abs_and_rel", "mere_mare"]


class Tolerance(BaseModel):
    name: str
    rule: Rule
    # allclose: an element fails iff |out-ref| > atol + rtol*|ref|
    # abs_and_rel: an element fails iff |out-ref| > atol AND |out-ref|/(|ref|+1e-7) > rtol
    table: dict[str, tuple[float, float]] = Field(default_factory=dict)   # dtype -> (atol, rtol)
    mere: dict[str, float] = Field(default_factory=dict)                  # dtype -> T (MERE < T, MARE < 10T)
    int_lsb: dict[str, int] = Field(default_factory=dict)                 # integer dtype -> allowed |diff|
    check_dtype: bool = True          # output dtype must equal the reference's
    task_check: bool = False          # use the task's own custom_check_precision when it has one (NPUKernelBench)
    # a kernel that fails only at shrunk shapes the task never uses and passes at the task's own: a benchmark
    # judges its own shapes only, so its preset reports that ("written for the task's shapes only") and passes;
    # ours keeps it a failure (a user's kernel meets other shapes)
    task_shapes_only_passes: bool = True
    # the anti-cheat checks on the C++ binding (ATen compute, no launch) fail the answer: the harness reads the
    # binding. MultiKernelBench's cheating check reads only ModelNew (utils/cheating_detection.py @460a972) and
    # NPUKernelBench/KernelBench have none, so their presets report those findings without failing; ours fails
    # them (an ATen binding means the custom kernel did not compute the whole op, which a user asked it to), and
    # AscendOpGenAgent's rule ("no at:: compute in pybind11.cpp") is the `mere` preset's
    binding_checks_fail: bool = False
    # a kernel that writes past its tensor into free allocator memory (gm.past_allocation) passes on the NPU by
    # luck: in a user's model the allocator puts another tensor there. The benchmarks' harnesses cannot see it
    # (a warning there); ours fails it
    luck_fails: bool = False
    # the cases the benchmark's harness judges by default, by the rows' case_id (None: every case decides).
    # NPUKernelBench's default config (base_config.yaml `n_case: 1`, `static_shape_mode: True`) makes one task
    # object per j in range(n_case), and its precision eval skips each test_cases.csv row whose case_id != j
    # (run_multi_test.py create_task_objects, framework/batch_precision_eval.py @6b84216): only case_id 0 is
    # judged. Our other cases still run under such a preset; a failure there is a run finding, not a failing
    # verdict (verify.py). The default preset keeps failing them: a user's kernel meets every case
    default_case_ids: int | None = None
    default_cases_rule: str = ""
    source: str = ""

    def bar(self, dtype: str) -> tuple[float, float]:
        return self.table.get(dtype, self.table.get("float32", (1e-4, 1e-4)))

    def threshold(self, dtype: str) -> float:
        return self.mere.get(dtype, self.mere.get("float32", 2 ** -13))

    def describe(self) -> str:
        if self.rule == "mere_mare":
            parts = ", ".join(f"{d} T={t:.3g}" for d, t in self.mere.items())
            return f"{self.name}: MERE < T and MARE < 10T ({parts})"
        parts = ", ".join(f"{d} atol={a:g} rtol={r:g}" for d, (a, r) in self.table.items())
        how = "fails iff abs > atol AND rel > rtol" if self.rule == "abs_and_rel" else "|d| <= atol + rtol*|ref|"
        own = "; the task's custom_check_precision replaces it when the task has one" if self.task_check else ""
        return f"{self.name}: {how} ({parts}); integers and bool exact{own}"


PRESETS: dict[str, Tolerance] = {
    "default": Tolerance(
        name="default", rule="allclose", task_shapes_only_passes=False, binding_checks_fail=True, luck_fails=True,
        # about two units in the last place of each format, and fp32 at the field's usual 1e-4
        table={"float32": (1e-4, 1e-4), "float16": (1e-3, 2e-3), "bfloat16": (4e-3, 1.6e-2), "float64": (1e-7, 1e-7)},
        source="kernelwright: per-dtype table"),
    "mkb": Tolerance(
        name="mkb", rule="allclose",
        table={"float32": (1e-4, 1e-4), "float16": (1e-4, 1e-4), "bfloat16": (1e-4, 1e-4), "float64": (1e-4, 1e-4)},
        source="MultiKernelBench utils/correctness.py: torch.allclose(atol=1e-4, rtol=1e-4) for every dtype, since 0555903 "
               "and still at 460a972 (bool outputs torch.equal)"),
    "npukb": Tolerance(
        name="npukb", rule="abs_and_rel", check_dtype=False, task_check=True, default_case_ids=1,
        default_cases_rule="NPUKernelBench's default run judges case_id 0 only (base_config.yaml n_case: 1)",
        table={"float32": (1e-3, 1e-3), "float16": (1e-3, 1e-3), "bfloat16": (1e-3, 1e-3), "float64": (1e-3, 1e-3)},
        source="NPUKernelBench framework/utils.py check_precision: fails iff abs>1e-3 AND rel>1e-3, "
               "or the task's custom_check_precision"),
    "kernelbench": Tolerance(
        name="kernelbench", rule="allclose",
        table={"float32": (1e-4, 1e-4), "float16": (1e-2, 1e-2), "bfloat16": (1e-2, 1e-2), "float64": (1e-4, 1e-4)},
        source="KernelBench get_tolerance_for_precision (also AscendKernelBench)"),
    "mere": Tolerance(
        name="mere", rule="mere_mare", check_dtype=False, binding_checks_fail=True,
        mere={"float16": 2 ** -10, "bfloat16": 2 ** -7, "float32": 2 ** -13, "float64": 2 ** -30},
        int_lsb={"int8": 1, "int16": 1},
        source="AscendOpGenAgent utils/verification_ascendc.py: MERE < T and MARE < 10T"),
}
PRESETS["akb"] = PRESETS["kernelbench"].model_copy(update={"name": "akb", "source": "AscendKernelBench evaluation.md"})


# A task loaded from a known benchmark is judged by that benchmark's own bar unless the caller names a
# preset: Task.layout -> preset. A plain `.py` task has no benchmark and gets ours.
BENCHMARK_PRESETS: dict[str, str] = {"mkb": "mkb", "npukb": "npukb", "kernelbench": "kernelbench", "akb": "akb"}
BENCHMARK_NAMES: dict[str, str] = {"mkb": "MultiKernelBench", "npukb": "NPUKernelBench", "kernelbench": "KernelBench",
                                   "akb": "AscendKernelBench"}


AUTO = "auto"   # the preset name that asks for the task's benchmark's own preset (preset_for), as no name does


def preset_for(layout: str) -> tuple[Tolerance, str]:
    """The preset a task of this layout is judged by when none is named, and a sentence saying why."""
    name = BENCHMARK_PRESETS.get(layout)
    if name is None:
        return PRESETS["default"], "kernelwright's own bar (the task comes from no known benchmark)"
    return PRESETS[name], f"{BENCHMARK_NAMES[layout]}'s own judgement for its tasks (--tolerance overrides)"


class UnknownTolerance(ConfigError):
    pass


def check_name(name: str) -> str:
    """A preset name a setting may hold: one of PRESETS, or `auto` (resolved per task by preset_for)."""
    if name != AUTO and name not in PRESETS:
        raise UnknownTolerance(f"unknown tolerance preset '{name}'; known: {AUTO}, {', '.join(sorted(PRESETS))}")
    return name


def get_tolerance(name: str | Tolerance) -> Tolerance:
    if isinstance(name, Tolerance):
        return name
    if name not in PRESETS:
        raise UnknownTolerance(f"unknown tolerance preset '{name}'; known: {', '.join(sorted(PRESETS))}")
    return PRESETS[name]
