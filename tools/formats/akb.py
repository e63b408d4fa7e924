"""AscendKernelBench answers: `custom_op.asc` + `model_new.py` (a directory holding both, the
`.asc` alone with `model_new.py` beside it, or a model reply with ```custom_op.asc and
```model_new.py blocks).

`custom_op.asc` holds device kernels above one marker line and torch glue below it:
      // ==================== ASCEND_HOST_SECTION ====================
The kernels become the kernel-launch file `custom_op.asc` (what a toolchain compiles; its lines
keep their numbers), the host section the glue `bind/custom_op_host.cpp`, the model `model_new.py`."""
from __future__ import annotations

import re
from pathlib import Path

from kernelwright.tools.formats.base import FormatError, Rendered, cannot_export, read_text, require_kind, tidy
from kernelwright.tools.project import SOURCE_SUFFIXES, KernelProject, ProjectError

ASC = "custom_op.asc"
HOST_GLUE = "bind/custom_op_host.cpp"
MODEL = "model_new.py"
MARKER = "// ==================== ASCEND_HOST_SECTION ===================="
_MARKER = re.compile(r"^[ \t]*//[ \t]*=+[ \t]*ASCEND_HOST_SECTION[ \t]*=+[ \t]*$", re.M)
_TAGGED = re.compile(r"^```[ \t]*(custom_op\.asc|model_new\.py)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)


def looks_like_asc(text: str) -> bool:
    return _MARKER.search(text) is not None


def looks_like_reply(text: str) -> bool:
    return len({m.group(1) for m in _TAGGED.finditer(text)}) == 2


def load_dir(root: Path) -> KernelProject:
    asc = root / ASC if root.is_dir() else root
    model = asc.with_name(MODEL)
    return parse(read_text(asc), read_text(model) if model.is_file() else None, str(root),
                 asc.name if asc.suffix in SOURCE_SUFFIXES else ASC)


def parse_reply(text: str, where: str) -> KernelProject:
    blocks = {m.group(1): m.group(2) for m in _TAGGED.finditer(text)}
    return parse(blocks[ASC], blocks[MODEL], where)


def parse(asc: str, model: str | None, where: str, asc_name: str = ASC) -> KernelProject:
    marks = list(_MARKER.finditer(asc))
    if len(marks) > 1:
        lines = [asc.count("\n", 0, m.start()) + 1 for m in marks]
        raise FormatError(f"{where}: {ASC} has {len(marks)} ASCEND_HOST_SECTION markers (lines {lines}); "
                          "expected exactly one between the kernels and the torch glue")
    kernels, host = (asc[:marks[0].start()], asc[marks[0].end():]) if marks else (asc, "")
    try:
        project = KernelProject._kernel_launch({asc_name: kernels.rstrip() + "\n"}, asc_name.rsplit(".", 1)[0], where)
    except ProjectError as e:
        raise FormatError(f"{e} above the ASCEND_HOST_SECTION marker (AscendKernelBench kernels are "
                          "`__global__ __vector__ void name(...)`)") from None
    if host.strip():
        project.glue[HOST_GLUE] = tidy(host)
    if model is not None and model.strip():
        project.glue[MODEL] = tidy(model)
    return project


def render(project: KernelProject, name: str | None = None) -> Rendered:
    require_kind(project, "akb", "kernel_launch")
    units = project.kernel_sources()
    extra = sorted(set(project.files) - set(units[:1]))
    if len(units) != 1 or extra:
        raise cannot_export(project, "akb", f"AscendKernelBench takes one source file; the project has "
                            f"{', '.join(sorted(project.files))}", f"inline {', '.join(extra) or 'the sources'} into one kernel file")
    host = [t for t in project.binding_sources().values() if "TORCH_LIBRARY" in t]
    if len(host) != 1:
        raise cannot_export(project, "akb", f"{'no' if not host else len(host)} torch.library host section(s) "
                            "(glue with TORCH_LIBRARY / TORCH_LIBRARY_IMPL); expected one",
                            f"add the host wrapper and registration as {HOST_GLUE}")
    model = project.model_source()
    if model is None:
        raise cannot_export(project, "akb", f"no {MODEL} (class ModelNew)", f"add {MODEL} calling torch.ops.custom_op")
    asc = f"{project.files[units[0]].rstrip()}\n\n{MARKER}\n\n{tidy(host[0])}"   # halves as import will read them
    return Rendered(format="akb", name=project.name, files={ASC: asc, MODEL: tidy(model)})
