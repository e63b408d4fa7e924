"""A plain CANN operator project in the msopgen layout, as `msopgen gen` would leave it and
`./build.sh` builds it: op_host/, op_kernel/, CMakeLists.txt (+ op_host/, op_kernel/ ones),
CMakePresets.json (ASCEND_COMPUTE_UNIT, vendor_name), build.sh and the prototype `<op>.json`.

The build scaffolding comes from our own templates; CANN's CMake modules (cmake/) and installer
scripts (scripts/) are not written: build.sh copies them from the CANN toolkit it builds with.
Import is `KernelProject.from_dir` (the scaffolding is regenerated on export, not kept)."""
from __future__ import annotations

import json

from kernelwright.tools.formats.base import Rendered, cannot_export, require_kind
from kernelwright.tools.formats.naming import renamed
from kernelwright.tools.formats.templates import render_template
from kernelwright.tools.project import KernelProject

DEFAULT_UNITS = ["ascend910b"]
SCAFFOLD = ("CMakeLists.txt", "CMakePresets.json", "build.sh", "op_host/CMakeLists.txt", "op_kernel/CMakeLists.txt")


def presets(units: list[str], vendor: str) -> str:
    def var(kind: str, value: str) -> dict[str, str]:
        return {"type": kind, "value": value}
    cache = {
        "CMAKE_BUILD_TYPE": var("STRING", "Release"),
        "ENABLE_SOURCE_PACKAGE": var("BOOL", "True"),
        "ENABLE_BINARY_PACKAGE": var("BOOL", "True"),   # the aclnn API needs the binary package
        "ASCEND_COMPUTE_UNIT": var("STRING", ";".join(units)),
        "ENABLE_TEST": var("BOOL", "False"),
        "vendor_name": var("STRING", vendor),
        "ASCEND_PYTHON_EXECUTABLE": var("STRING", "python3"),
        "CMAKE_INSTALL_PREFIX": var("PATH", "${sourceDir}/build_out"),
        "ENABLE_CROSS_COMPILE": var("BOOL", "False"),
        "ASCEND_PACK_SHARED_LIBRARY": var("BOOL", "False"),
    }
    doc = {"version": 1, "cmakeMinimumRequired": {"major": 3, "minor": 19, "patch": 0},
           "configurePresets": [{"name": "default", "displayName": "Default Config", "generator": "Unix Makefiles",
                                 "binaryDir": "${sourceDir}/build_out", "cacheVariables": cache}]}
    return json.dumps(doc, indent=4) + "\n"


def render(project: KernelProject, name: str | None = None) -> Rendered:
    require_kind(project, "cann", "msopgen")
    project, notes = renamed(project, name)
    missing = [d for d in ("op_host/", "op_kernel/") if not any(p.startswith(d) for p in project.files)]
    if missing:
        raise cannot_export(project, "cann", f"no {' or '.join(missing)} sources",
                            "a kernel-only answer needs the task's op_host template before it can be built")
    clash = sorted(set(SCAFFOLD) & (set(project.files) | set(project.glue)))
    if clash:
        raise cannot_export(project, "cann", f"the project itself holds {', '.join(clash)}",
                            "remove them: the CANN scaffolding is generated")
    units = project.compute_units()
    if not units:
        units = DEFAULT_UNITS
        notes.append(f"no compute unit recorded or in AddConfig; ASCEND_COMPUTE_UNIT={';'.join(units)}")
    files = dict(project.files) | dict(project.glue)
    spec = project.op_spec()
    if spec is not None:
        files[f"{project.snake_name}.json"] = spec.to_msopgen_json(project.name)
    else:
        notes.append("no prototype JSON written: the OpDef could not be read")
    values = {"op": project.name, "units": ";".join(units)}
    files |= {"CMakeLists.txt": render_template("cann_CMakeLists.txt.j2", **values),
              "CMakePresets.json": presets(units, project.cann.vendor),
              "build.sh": render_template("cann_build.sh.j2", **values),
              "op_host/CMakeLists.txt": render_template("cann_op_host_CMakeLists.txt.j2", **values),
              "op_kernel/CMakeLists.txt": render_template("cann_op_kernel_CMakeLists.txt.j2", **values)}
    return Rendered(format="cann", name=project.name, files=dict(sorted(files.items())), notes=notes)
