"""Load an NPUKernelBench task directory: `tasks/<level>/<Category>/<Op>/` with `api_desc.md`,
`validation/module.py` (Model), `validation/prepare_inputs.py` (`get_inputs(param, device)` per CSV
row, optional `custom_check_precision`), `validation/test_cases.csv` and a golden `answer/0/`."""
from __future__ import annotations

from pathlib import Path

from kernelwright.tools.contained_paths import inside
from kernelwright.tools.task import Task, TaskCase, TaskError, with_dtype_variants
from kernelwright.tools.tasks.csvrows import read_rows
from kernelwright.tools.tasks.names import op_names
from kernelwright.tools.tasks.pyfile import top_level_names


def is_npukb_task(path: Path) -> bool:
    return (path / "validation" / "module.py").is_file()


def load_npukb(path: str | Path, *, dtypes: list[str] | None = None) -> Task:
    root = Path(path)
    val = root / "validation"
    module, prepare, csv_path = val / "module.py", val / "prepare_inputs.py", val / "test_cases.csv"
    missing = [str(p.relative_to(root)) for p in (module, csv_path) if not p.is_file()]
    if missing:
        raise TaskError(f"{root}: not an NPUKernelBench task directory: missing {', '.join(missing)}")
    outside = [str(p.relative_to(root)) for p in (module, prepare, csv_path, root / "api_desc.md", val / "pybind.cpp",
                                                  root / "answer") if p.exists() and not inside(p, root)]
    if outside:   # a task's files are read into prompts and runs: a link must not bring in the rest of the machine
        raise TaskError(f"{root}: {', '.join(outside)} link(s) outside the task directory; copy the files in instead")
    in_module = top_level_names(module)
    if "Model" not in in_module:
        raise TaskError(f"{module}: defines no class Model (the reference)")
    # The benchmark reads inputs from module.py when it defines get_init_inputs, else from prepare_inputs.py.
    inputs_file = module if "get_init_inputs" in in_module else prepare
    if not inputs_file.is_file():
        raise TaskError(f"{root}: module.py has no get_init_inputs and validation/prepare_inputs.py is missing")
    in_inputs = top_level_names(inputs_file)
    if "get_inputs" not in in_inputs:
        raise TaskError(f"{inputs_file}: defines no get_inputs(param, device)")
    try:
        rows = read_rows(csv_path.read_text(errors="replace"), str(csv_path))
    except ValueError as e:
        raise TaskError(str(e)) from None
    cases = []
    for i, row in enumerate(rows):
        label = f"case_id {row['case_id']}" if row.get("case_id") is not None else f"row {i}"
        cases.append(TaskCase(id=label, index=i, params=row))
    op_type, kernel = op_names(root.name)
    desc = root / "api_desc.md"
    golden = root / "answer" / "0"
    binding = val / "pybind.cpp"
    return Task(name=root.name, op_type=op_type, kernel_name=kernel, layout="npukb", source=str(module.resolve()),
                inputs_source=None if inputs_file == module else str(inputs_file.resolve()), input_kind="npukb_rows",
                cases=with_dtype_variants(cases, dtypes), category=root.parent.name, level=root.parent.parent.name,
                description=desc.read_text(errors="replace") if desc.is_file() else None,
                golden=str(golden.resolve()) if (golden / "op_host").is_dir() else None,
                binding=str(binding.resolve()) if binding.is_file() else None,
                custom_check="custom_check_precision" in in_inputs | in_module)
