"""A fake CANN-side tool for kernelwright's contract tests: `cmake` or a C++ compiler, chosen by the
name it is run as (cann_fakes.fake_tool writes the wrappers). It records what it was asked (argv, cwd,
environment) to $KW_FAKE_LOG and answers with canned output.

The fake cmake checks what a real configure would reject, in CMake's own words:
* `include()` of a file that is not there ("include could not find requested file");
* `find_package(ASC)` without asc-config.cmake / ASCConfig.cmake in ASC_DIR or CMAKE_PREFIX_PATH
  ("Could not find a package configuration file provided by "ASC"");
* a command the project's CMake files call that neither CMake nor the modules they include (the
  toolkit's func.cmake, function.cmake, asc-config.cmake and what it includes) define
  ("Unknown CMake command "opbuild""). `if()` branches are not evaluated: every call counts.
Its build fails as 8.1's ascendc_library post-build step does (recompile_binary.py reads
CMakeFiles/<target>.dir/link.txt) when the project was configured with a generator other than
Unix Makefiles (-G, else $CMAKE_GENERATOR).
Source lines marked `KW_FAKE_ERROR(<name>)` make a build or compile report CANNED[<name>]."""
import json
import os
import re
import sys
from pathlib import Path

# Canned compiler output; {path}/{line} are the marked source line, {cann} the fake install root.
CANNED = {
    "no_member": "{path}:{line}:5: error: no member named 'FooBar' in namespace 'AscendC'\n1 error generated.\n",
    "adds": ("{path}:{line}:5: error: no matching function for call to 'Adds'\n"
             "{cann}/compiler/tikcpp/tikcfw/interface/kernel_operator_vec_binary_scalar_intf.h:40:24: note: candidate "
             "template ignored: deduced conflicting types for parameter 'T' ('half' vs. 'float')\n"
             "{cann}/compiler/tikcpp/tikcfw/interface/kernel_operator_vec_binary_scalar_intf.h:52:24: note: candidate "
             "function template not viable: requires 6 arguments, but 4 were provided\n1 error generated.\n"),
    "tbuf": ("{cann}/compiler/tikcpp/tikcfw/impl/kernel_tpipe_impl.h:210:5: error: static_assert failed due to "
             "requirement 'AscendC::TPipe::isTQue' \"TPipe::InitBuffer(T& que, uint8_t num, uint32_t len) not supports "
             "T as TBuf\"\n{path}:{line}:10: note: in instantiation of function template specialization "
             "'AscendC::TPipe::InitBuffer<AscendC::TBuf<AscendC::TPosition::VECCALC>>' requested here\n"
             "1 error generated.\n"),
    "narrowing": ("{path}:{line}:32: error: non-constant-expression cannot be narrowed from type 'int' to 'uint8_t' "
                  "(aka 'unsigned char') in initializer list [-Wc++11-narrowing]\n1 error generated.\n"),
    "deprecated": ("{path}:{line}:9: warning: 'DataCopyPadUB2GMImpl<float>' is deprecated: NOTICE: DataCopyPad is not "
                   "deprecated. Currently, DataCopyPad is an unsupported API on current device. Please check your code! "
                   "[-Wdeprecated-declarations]\n"),
}
ENV_KEYS = ("ASCEND", "ASC_DIR", "CMAKE_PREFIX_PATH", "CMAKE_GENERATOR", "PATH", "LD_LIBRARY_PATH", "KW_FAKE")
BUILTINS = {
    "add_compile_options", "add_custom_command", "add_custom_target", "add_dependencies", "add_executable", "add_library",
    "add_subdirectory", "aux_source_directory", "cmake_minimum_required", "cmake_parse_arguments", "configure_file",
    "else", "elseif", "endforeach", "endfunction", "endif", "endmacro", "execute_process", "file", "find_library",
    "find_package", "find_program", "foreach", "function", "get_filename_component", "get_property", "if", "include",
    "include_directories", "install", "link_directories", "link_libraries", "list", "macro", "math", "message", "option",
    "project", "return", "set", "set_property", "set_source_files_properties", "set_target_properties", "string",
    "target_compile_definitions", "target_compile_options", "target_include_directories", "target_link_directories",
    "target_link_libraries", "target_sources", "unset",
}


def log_call(tool: str) -> None:
    log = os.environ.get("KW_FAKE_LOG")
    if log:
        with open(log, "a") as fh:
            fh.write(json.dumps({"tool": tool, "argv": sys.argv[1:], "cwd": os.getcwd(),
                                 "env": {k: v for k, v in os.environ.items() if k.startswith(ENV_KEYS)}}) + "\n")


# ---- the CMake language, as far as the checks need it ----
def commands(path: Path) -> list[tuple[int, str, str]]:
    """(line, command, raw arguments) of a CMake file."""
    text = re.sub(r"#[^\n]*", "", path.read_text())
    out = []
    for m in re.finditer(r"^[ \t]*([A-Za-z_]\w*)[ \t]*\(", text, re.M):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        out.append((text.count("\n", 0, m.start()) + 1, m.group(1), text[m.end():i - 1]))
    return out


class Configure:
    def __init__(self, src: Path, cache: dict[str, str]):
        self.src, self.cache = src, cache
        self.defined: set[str] = set()
        self.calls: list[tuple[Path, int, str]] = []
        self.error = ""

    def expand(self, text: str, variables: dict[str, str]) -> list[str]:
        text = re.sub(r"\$ENV\{(\w+)\}", lambda m: os.environ.get(m.group(1), ""), text)
        text = re.sub(r"\$\{(\w+)\}", lambda m: variables.get(m.group(1), self.cache.get(m.group(1), "")), text)
        return [a.strip('"') for a in re.findall(r'"[^"]*"|\S+', text)]

    def fail(self, path: Path, line: int, command: str, message: str) -> None:
        if not self.error:
            where = path.relative_to(self.src) if path.is_relative_to(self.src) else path
            self.error = f"CMake Error at {where}:{line} ({command}):\n  {message}\n"

    def walk(self, path: Path, source_dir: Path, own: bool) -> None:
        variables = {"CMAKE_SOURCE_DIR": str(self.src), "CMAKE_CURRENT_SOURCE_DIR": str(source_dir),
                     "CMAKE_CURRENT_LIST_DIR": str(path.parent)}
        for line, name, raw in commands(path):
            args, lname = self.expand(raw, variables), name.lower()
            if own:
                self.calls.append((path, line, lname))
            if lname in ("function", "macro") and args:
                self.defined.add(args[0].lower())
            elif lname == "set" and args:
                variables[args[0]] = args[1] if len(args) > 1 else ""
            elif lname == "get_filename_component" and len(args) > 1:
                variables[args[0]] = str(Path(args[1]).resolve())
            elif lname == "include" and args and ("/" in args[0] or args[0].endswith(".cmake")):   # not a CMake module
                target = Path(args[0]) if os.path.isabs(args[0]) else source_dir / args[0]
                if not target.is_file():
                    self.fail(path, line, name, f"include could not find requested file:\n\n    {target}")
                    return
                self.walk(target, source_dir, own=False)
            elif lname == "find_package" and args and args[0] == "ASC":
                config = self.find_asc()
                if config is None:
                    self.fail(path, line, name, 'Could not find a package configuration file provided by "ASC" with '
                                                "any of the following names:\n\n    ASCConfig.cmake\n    asc-config.cmake")
                    return
                self.walk(config, source_dir, own=False)
            elif lname == "add_subdirectory" and args:
                sub = source_dir / args[0]
                self.walk(sub / "CMakeLists.txt", sub, own=True)

    def find_asc(self) -> Path | None:
        dirs = [self.cache.get("ASC_DIR", ""), os.environ.get("ASC_DIR", "")]
        dirs += os.environ.get("CMAKE_PREFIX_PATH", "").split(os.pathsep)
        for d in filter(None, dirs):
            for name in ("ASCConfig.cmake", "asc-config.cmake"):
                if (Path(d) / name).is_file():
                    return Path(d) / name
        return None

    def check_calls(self) -> None:
        for path, line, name in self.calls:
            if name not in BUILTINS and name not in self.defined:
                self.fail(path, line, name, f'Unknown CMake command "{name}".')
                return


# ---- cmake ----
def sources_of(paths: list[str]) -> list[tuple[str, str]]:
    """The files and the absolute #includes they pull in (one level), as (path, text)."""
    out = []
    for p in paths:
        try:
            text = Path(p).read_text()
        except OSError:
            continue
        out.append((p, text))
        for inc in re.findall(r'#include "(/[^"]+)"', text):
            try:
                out.append((inc, Path(inc).read_text()))
            except OSError:
                pass
    return out


def compile_errors(paths: list[str]) -> bool:
    """Canned diagnostics for KW_FAKE_ERROR markers; True when one of them is an error."""
    failed = False
    for path, text in sources_of(paths):
        for no, line in enumerate(text.splitlines(), 1):
            m = re.search(r"KW_FAKE_ERROR\((\w+)\)", line)
            if m:
                msg = CANNED[m.group(1)].format(path=path, line=no, cann=os.environ.get("ASCEND_HOME_PATH", "/cann"))
                sys.stderr.write(msg)
                failed = failed or " error: " in msg
    return failed


def configure(args: list[str]) -> int:
    src, build = Path(args[args.index("-S") + 1]), Path(args[args.index("-B") + 1])
    build.mkdir(parents=True, exist_ok=True)
    cache = dict(a[2:].split("=", 1) for a in args if a.startswith("-D") and "=" in a)
    check = Configure(src, cache)
    check.walk(src / "CMakeLists.txt", src, own=True)
    if not check.error:
        check.check_calls()
    if check.error:
        sys.stderr.write(check.error)
        return 1
    text = (src / "CMakeLists.txt").read_text()
    targets = re.findall(r"(?:ascendc_library|add_library)\((\w+)\s+(SHARED|STATIC)", text)
    files = re.findall(r'"(/[^"]+\.(?:cpp|asc|cc))"', text)
    generator = args[args.index("-G") + 1] if "-G" in args else os.environ.get("CMAKE_GENERATOR") or "Unix Makefiles"
    (build / "fake_state.json").write_text(json.dumps({"src": str(src), "targets": targets, "files": files,
                                                       "cache": cache, "generator": generator,
                                                       "ascendc_library": "ascendc_library(" in text}))
    print("-- Configuring done\n-- Generating done")
    return 0


INSTALLER = """#!/bin/bash
path=""
for a in "$@"; do case "$a" in --install-path=*) path="${a#--install-path=}";; esac; done
if [ -n "$KW_FAKE_LOG" ]; then printf '{"tool": "installer", "argv": "%s", "cwd": "%s"}\\n' "$*" "$PWD" >> "$KW_FAKE_LOG"; fi
case "$path" in /*|"") ;; *) echo "[ERROR] use absolute path for --install-path argument"; exit 1;; esac
[ -n "$path" ] || path="$ASCEND_OPP_PATH"
v="$path/vendors/__VENDOR__"
mkdir -p "$v/op_api/lib" "$v/op_api/include" "$v/bin"
echo FAKE > "$v/op_api/lib/libcust_opapi.so"
echo '// aclnn___OP__' > "$v/op_api/include/aclnn___OP__.h"
echo "export ASCEND_CUSTOM_OPP_PATH=$v" > "$v/bin/set_env.bash"
"""


def build(args: list[str]) -> int:
    build_dir = Path(args[args.index("--build") + 1])
    state = json.loads((build_dir / "fake_state.json").read_text())
    target = args[args.index("--target") + 1] if "--target" in args else "all"
    src = Path(state["src"])
    if target == "package":
        vendor = state["cache"].get("vendor_name", "customize")
        op = next(p.stem for p in src.glob("*.json") if p.name != "CMakePresets.json")
        run = Path(state["cache"].get("CMAKE_INSTALL_PREFIX", str(build_dir))) / "custom_opp_linux_x86_64.run"
        run.parent.mkdir(parents=True, exist_ok=True)
        run.write_text(INSTALLER.replace("__VENDOR__", vendor).replace("__OP__", op))
        return 0
    if state["ascendc_library"] and state["generator"] != "Unix Makefiles":
        sys.stderr.write(f"FileNotFoundError: link.txt file does not exist: {build_dir}/CMakeFiles/kw_kernels.dir/link.txt\n")
        return 2
    kernels = state["files"] or [str(p) for p in src.rglob("*.cpp")]
    if compile_errors(kernels):
        sys.stderr.write("make[2]: *** [CMakeFiles/kw.dir/build.make:76] Error 1\n")
        return 2
    for name, kind in state["targets"]:
        if kind == "SHARED":
            (build_dir / "lib").mkdir(exist_ok=True)
            (build_dir / "lib" / f"lib{name}.so").write_bytes(b"FAKE")
    print("[100%] Built target")
    return 0


def main(tool: str) -> int:
    log_call(tool)
    args = sys.argv[1:]
    if tool == "cmake":
        return configure(args) if "-S" in args else build(args)
    # a C++ compiler (the cann-syntax check)
    units = [a for a in args if a.endswith((".cpp", ".asc", ".cc")) and not a.startswith("-")]
    return 1 if compile_errors(units) else 0
