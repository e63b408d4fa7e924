"""NPUKernelBench answers (weich97/NPUKernelBench `framework/kernel_parser.py`), two forms:

  three sections, each a header line followed by a ```cpp block:
      ================== op_host/<k>_tiling.h ==================
      ================== op_host/<k>.cpp ==================
      ================== op_kernel/<k>.cpp ==================
  kernel-only: <kernel_impl> ```cpp ...``` </kernel_impl>, the op_kernel source with a local
      tiling struct (no GET_TILING_DATA); the task's own op_host template supplies the host.

`<k>` is the snake_case of the op type. A kernel-only answer imports as an msopgen project
holding just op_kernel/<k>.cpp; exporting picks the kernel-only form for such projects."""
from __future__ import annotations

import re

from kernelwright.tools.formats.base import FormatError, Rendered, cannot_export, fence_safe, only_files, require_kind, tidy
from kernelwright.tools.formats.inline import inline_headers
from kernelwright.tools.formats.mkb import _adopt_tiling_header
from kernelwright.tools.formats.naming import rename_op, renamed
from kernelwright.tools.project import _GLOBAL_KERNEL, KernelProject, camel_case, op_type_name

BAR = "=================="
_SECTION = re.compile(r"^={5,}[ \t]*((?:op_host|op_kernel)/[\w.\-]+)[ \t]*={5,}[ \t]*$", re.M)
_BLOCK = re.compile(r"\s*```[ \t]*(?:cpp|c\+\+|cc|c)?[ \t]*\n(.*?)^[ \t]*```", re.S | re.M)
_KERNEL_IMPL = re.compile(r"<kernel_impl>(.*?)</kernel_impl>", re.S)
_ANY_BLOCK = re.compile(r"```[ \t]*(?:cpp|c\+\+|cc|c)?[ \t]*\n(.*?)\n[ \t]*```", re.S)


def looks_like(text: str) -> bool:
    return "<kernel_impl>" in text or _SECTION.search(text) is not None


def parse(text: str, where: str) -> KernelProject:
    if _SECTION.search(text) is None:
        return _parse_kernel_impl(text, where)
    heads = list(_SECTION.finditer(text))
    files: dict[str, str] = {}
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        block = _BLOCK.match(text, head.end(), end)
        if not block or not block.group(1).strip():
            line = text.count("\n", 0, head.start()) + 1
            raise FormatError(f"{where}:{line}: section {head.group(1)} has no ```cpp block after its header line\n"
                              "  hint: follow each `=== path ===` line with ```cpp, the source, and a closing ```")
        files[head.group(1)] = tidy(block.group(1))
    stems = {re.sub(r"_tiling$", "", p.rsplit("/", 1)[1].rsplit(".", 1)[0]) for p in files}
    k = next((s for s in stems if f"op_kernel/{s}.cpp" in files), None)
    expected = [f"op_host/{k}_tiling.h", f"op_host/{k}.cpp", f"op_kernel/{k}.cpp"] if k else []
    missing = [p for p in expected if p not in files] or ([] if k else ["op_kernel/<k>.cpp"])
    if missing:
        raise FormatError(f"{where}: missing section(s) {', '.join(missing)} (found {', '.join(files)})\n"
                          f"  hint: an NPUKernelBench answer has three sections, each introduced by a line "
                          f"`{BAR} op_host/<k>_tiling.h {BAR}` (then op_host/<k>.cpp, op_kernel/<k>.cpp)")
    project = KernelProject._msopgen(files, k, where)
    return _sanitised(project)


def _parse_kernel_impl(text: str, where: str) -> KernelProject:
    m = _KERNEL_IMPL.search(text)
    if not m:
        raise FormatError(f"{where}: no NPUKernelBench answer found: expected `<kernel_impl>` ... `</kernel_impl>` "
                          f"or sections introduced by `{BAR} op_host/<k>_tiling.h {BAR}` lines")
    inner = m.group(1)
    block = _ANY_BLOCK.search(inner)
    source = tidy(block.group(1) if block else inner)
    kernels = _GLOBAL_KERNEL.findall(source)
    if not kernels:
        raise FormatError(f"{where}: the <kernel_impl> block defines no kernel: expected "
                          "`extern \"C\" __global__ __aicore__ void <k>(GM_ADDR ..., GM_ADDR workspace, ...)`")
    k = kernels[0]
    project = KernelProject(name=camel_case(k), kind="msopgen", files={f"op_kernel/{k}.cpp": source}, origin=where)
    return _sanitised(project)


def _sanitised(project: KernelProject) -> KernelProject:
    name = op_type_name(project.name)
    return rename_op(project, name) if name != project.name else project


def render(project: KernelProject, name: str | None = None) -> Rendered:
    require_kind(project, "npukb", "msopgen")
    project, notes = renamed(project, name)
    k = project.snake_name
    tiling, host, kernel = f"op_host/{k}_tiling.h", f"op_host/{k}.cpp", f"op_kernel/{k}.cpp"
    project = _adopt_tiling_header(project, tiling)
    project, inlined = inline_headers(project, {tiling, host, kernel})
    notes += inlined
    if kernel not in project.files:
        raise cannot_export(project, "npukb", f"no {kernel}", f"NPUKernelBench names the kernel file after the op ({k})")
    if not any(p.startswith("op_host/") for p in project.files):
        only_files(project, "npukb", {kernel}, "inline extra headers into the kernel source")
        fence_safe(project, "npukb", kernel, project.files[kernel])
        text = f"<kernel_impl>\n```cpp\n{tidy(project.files[kernel])}```\n</kernel_impl>\n"
        return Rendered(format="npukb", name=project.name, files={f"{k}.md": text}, single_file=True,
                        notes=notes + ["kernel-only form (<kernel_impl>): the project has no op_host sources"])
    only_files(project, "npukb", {tiling, host, kernel}, "inline extra headers into the three sources")
    missing = [p for p in (tiling, host) if p not in project.files]
    if missing:
        raise cannot_export(project, "npukb", f"no {', '.join(missing)}", "the three-section form needs "
                            "op_host/<k>_tiling.h, op_host/<k>.cpp and op_kernel/<k>.cpp")
    parts = []
    for path in (tiling, host, kernel):
        fence_safe(project, "npukb", path, project.files[path])
        parts.append(f"{BAR} {path} {BAR}\n```cpp\n{tidy(project.files[path])}```\n")   # as import will read it
    dropped = sorted(project.glue)
    if dropped:
        notes.append(f"not carried (NPUKernelBench supplies its own binding): {', '.join(dropped)}")
    return Rendered(format="npukb", name=project.name, files={f"{k}.md": "\n".join(parts)}, single_file=True, notes=notes)
