"""A plain CANN operator project in the msopgen layout, as `msopgen gen` would leave it and
`./build.sh` builds it: op_host/, op_kernel/, CMakeLists.txt (+ op_host/, op_kernel/ ones),
CMakePresets.json (ASCEND_COMPUTE_UNIT, vendor_name), build.sh and the prototype `<op>.json`.

Two flows, because the toolkits' CMake functions differ (`flow`; by default the one the detected
toolkit supports, else CANN 8's):
* `msopgen` (CANN 8): `opbuild()`/`add_kernels_compile()` from msopgen's project template
  (`tools/op_project_templates/ascendc/customize/cmake/func.cmake`); CANN's CMake modules (cmake/) and
  installer scripts (scripts/) are not written: build.sh copies them from the toolkit it builds with;
* `npu_op` (CANN >= 9): `find_package(ASC)` and asc-devkit's `npu_op_code_gen`, `npu_op_library`,
  `npu_op_kernel_sources`/`npu_op_kernel_library`, `npu_op_package`/`npu_op_package_add`
  (`cmake/asc/fwk_modules/func.cmake`, used so by its `examples/.../00_acl_compilation/custom_op`).

The build scaffolding comes from our own templates. Import is `KernelProject.from_dir` (the
scaffolding is regenerated on export, not kept)."""
from __future__ import annotations

import json

from kernelwright.tools.formats.base import Rendered, cannot_export, require_kind
from kernelwright.tools.formats.naming import renamed
from kernelwright.tools.formats.templates import render_template
from kernelwright.tools.project import KernelProject

DEFAULT_UNITS = ["ascend910b"]
FLOWS = ("msopgen", "npu_op")
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


def default_flow() -> str:
    """The operator-package flow of the toolkit on this machine (CANN 8's when there is none)."""
    from kernelwright.tools.cann.detect import detect_cann
    inst = detect_cann()
    return (inst.package_flow.name if inst else None) or "msopgen"


def render(project: KernelProject, name: str | None = None, *, flow: str | None = None) -> Rendered:
    require_kind(project, "cann", "msopgen")
    flow = flow or default_flow()
    if flow not in FLOWS:
        raise ValueError(f"unknown CANN operator-package flow {flow!r} (expected one of {', '.join(FLOWS)})")
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
    kernels = project.kernel_sources()
    values = {"op": project.name, "units": ";".join(units), "flow": flow,
              "kernel_file": kernels[0].removeprefix("op_kernel/") if kernels else f"{project.snake_name}.cpp"}
    prefix = "cann_npu_op_" if flow == "npu_op" else "cann_"
    files |= {"CMakeLists.txt": render_template(f"{prefix}CMakeLists.txt.j2", **values),
              "CMakePresets.json": presets(units, project.cann.vendor),
              "build.sh": render_template("cann_build.sh.j2", **values),
              "op_host/CMakeLists.txt": render_template(f"{prefix}op_host_CMakeLists.txt.j2", **values),
              "op_kernel/CMakeLists.txt": render_template(f"{prefix}op_kernel_CMakeLists.txt.j2", **values)}
    notes.append(f"CMake scaffolding for the {flow} flow ({'CANN >= 9' if flow == 'npu_op' else 'CANN 8'})")
    return Rendered(format="cann", name=project.name, files=dict(sorted(files.items())), notes=notes)
