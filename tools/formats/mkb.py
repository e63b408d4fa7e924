"""MultiKernelBench's msopgen answer: one Python file assigning six strings.

  project_json_src   msopgen prototype JSON        -> KernelProject.op
  host_tiling_src    op_host/<op>_tiling.h
  host_operator_src  op_host/<op>.cpp
  kernel_src         op_kernel/<op>.cpp
  python_bind_src    CppExtension/csrc/op.cpp      -> glue `bind/op.cpp`
  model_src          ModelNew module               -> glue `model_new.py`

The harness names everything after the task: op type `<Op>Custom`, kernel and files
`<op>_custom`; the exporter renames the project to match."""
from __future__ import annotations

from kernelwright.tools.formats.base import FormatError, Rendered, cannot_export, only_files, require_kind, tidy
from kernelwright.tools.formats.inline import inline_headers
from kernelwright.tools.formats.naming import mkb_name, rename_op, renamed
from kernelwright.tools.formats.pystrings import literal, read_assignments, strip_fence
from kernelwright.tools.opspec import OpSpec, OpSpecError
from kernelwright.tools.project import KernelProject, is_op_type_name, op_type_name, snake_case

OP_STRINGS = ("project_json_src", "host_tiling_src", "host_operator_src", "kernel_src")
GLUE_STRINGS = {"python_bind_src": "bind/op.cpp", "model_src": "model_new.py"}
NAMES = (*OP_STRINGS, *GLUE_STRINGS)


def looks_like(text: str) -> bool:
    return sum(name in text for name in NAMES) >= 3


def parse(text: str, where: str) -> KernelProject:
    strings = read_assignments(strip_fence(text), where)
    missing = [n for n in OP_STRINGS if not strings.get(n, "").strip()]
    if missing:
        raise FormatError(f"{where}: missing or empty {', '.join(missing)}: a MultiKernelBench answer assigns "
                          f"{', '.join(NAMES)} (the last two may be omitted here)")
    try:
        op_type, spec = OpSpec.from_msopgen_json(strings["project_json_src"], f"{where}: project_json_src")
    except OpSpecError as e:
        raise FormatError(str(e)) from None
    snake = snake_case(op_type)
    project = KernelProject(
        name=op_type, kind="msopgen", origin=where, op=spec,
        files={f"op_host/{snake}_tiling.h": tidy(strings["host_tiling_src"]),
               f"op_host/{snake}.cpp": tidy(strings["host_operator_src"]),
               f"op_kernel/{snake}.cpp": tidy(strings["kernel_src"])},
        glue={key: tidy(strings[n]) for n, key in GLUE_STRINGS.items() if strings.get(n, "").strip()})
    project.cann.module_name = "custom_ops_lib"
    if not is_op_type_name(op_type):   # e.g. "10ReluCustom" from a digit-leading task name
        project = rename_op(project, op_type_name(op_type))
    return project


def render(project: KernelProject, name: str | None = None) -> Rendered:
    require_kind(project, "mkb", "msopgen")
    source = project.name   # errors name the project as the user knows it
    project, notes = renamed(project, name, mkb_name)
    notes = [f"{n} (MultiKernelBench names ops <Op>Custom)" for n in notes]
    snake = project.snake_name
    tiling, host, kernel = f"op_host/{snake}_tiling.h", f"op_host/{snake}.cpp", f"op_kernel/{snake}.cpp"
    project = _adopt_tiling_header(project, tiling)
    project, inlined = inline_headers(project, {tiling, host, kernel})
    notes += inlined
    only_files(project, "mkb", {tiling, host, kernel},
               "inline extra headers into the three sources (the harness writes only these files)", source)
    for path in (tiling, host, kernel):
        if path not in project.files:
            raise cannot_export(source, "mkb", f"no {path}", "an msopgen project needs the tiling header, "
                                "the host source and the kernel source, named after the operator")
    spec = project.op_spec()
    if spec is None or not spec.inputs and not spec.outputs:
        raise cannot_export(source, "mkb", "no operator prototype for project_json_src (no op.json, and no OpDef "
                            f"could be read from {host})", "add the msopgen JSON (<op>.json) to the project")
    untyped = [p.name for p in spec.inputs + spec.outputs if not p.dtypes]
    if untyped:
        raise cannot_export(source, "mkb", f"the dtypes of {', '.join(untyped)} could not be read from the OpDef",
                            "write DataType({ge::DT_...}) lists inline, or add the msopgen JSON (<op>.json)")
    glue = {n: project.glue.get(key) for n, key in GLUE_STRINGS.items()}
    glue["python_bind_src"] = glue["python_bind_src"] or next(iter(project.binding_sources().values()), None)
    glue["model_src"] = glue["model_src"] or project.model_source()
    missing = [n for n, t in glue.items() if not t]
    if missing:
        raise cannot_export(source, "mkb", f"no {' or '.join(missing)} (the binding and ModelNew glue)",
                            "add bind/op.cpp and model_new.py to the project, or pass --generate-glue")
    values = {"project_json_src": spec.to_msopgen_json(project.name), "host_tiling_src": project.files[tiling],
              "host_operator_src": project.files[host], "kernel_src": project.files[kernel], **glue}
    text = "".join(f"{n} = {literal(chr(10) + tidy(values[n]))}\n\n" for n in NAMES)   # tidy: as import will read it.rstrip("\n") + "\n"
    return Rendered(format="mkb", name=project.name, files={f"{snake}.py": text}, single_file=True, notes=notes)


def _adopt_tiling_header(project: KernelProject, tiling: str) -> KernelProject:
    """A project whose only op_host header has another name (`abs_tiling.h` for op `abs_math`) gets it
    renamed to `<op>_tiling.h`, includes included."""
    headers = [p for p in project.files if p.startswith("op_host/") and p.endswith(".h")]
    if tiling in project.files or len(headers) != 1:
        return project
    old = headers[0].rsplit("/", 1)[1]
    new = tiling.rsplit("/", 1)[1]
    files = {(tiling if p == headers[0] else p): t.replace(f'"{old}"', f'"{new}"') for p, t in project.files.items()}
    return project.model_copy(update={"files": files})
