"""The compiler's temporary files land in the build's own directory and are removed with it: a
compile sees TMPDIR inside the build dir, and nothing it leaves there survives the build."""
from pathlib import Path

from kernelwright.tools.dsl.lower import lower
from kernelwright.tools.dsl.parse_program import parse_file
from kernelwright.tools.buildkit import compiler

DSL = Path(__file__).resolve().parents[2] / "prompts" / "examples" / "elementwise" / "relu.dsl.py"


def test_compiles_use_a_private_tmpdir_that_is_removed(tmp_path, monkeypatch, sim):
    real = compiler.find_compiler()
    # says its TMPDIR on stderr (the build log): a sandboxed step writes nowhere else; its "installation"
    # (<prefix>/bin/cxx -> <prefix>, which the compile's view mounts) is a directory of its own
    fake = tmp_path / "prefix" / "bin" / "cxx"
    fake.parent.mkdir(parents=True)
    fake.write_text(f'#!/bin/sh\necho "KWTMP=$TMPDIR" >&2\n[ -n "$TMPDIR" ] && echo x > "$TMPDIR/leftover"\n'
                    f'exec {real.path} "$@"\n')
    fake.chmod(0o755)
    monkeypatch.setattr(compiler, "find_compiler", lambda: real.__class__(path=str(fake), family=real.family,
                                                                          version=real.version, major=real.major))
    import kernelwright.tools.sim.toolchain as toolchain
    monkeypatch.setattr(toolchain, "find_compiler", compiler.find_compiler)
    project = lower(parse_file(DSL))
    kernel = next(k for k in project.files if k.startswith("op_kernel/"))
    project.files[kernel] += f"\n// unique build {tmp_path.name}\n"      # miss the build cache
    result = sim.build(project)
    assert result.ok, result.errors()
    dirs = [Path(line.removeprefix("KWTMP=")) for line in result.log.split() if line.startswith("KWTMP=")]
    assert dirs, "the compiler was not called"
    from kernelwright.tools.buildkit import cache
    from kernelwright.tools.sim.build import build_key
    from kernelwright.tools.sim.runtime_lib import ensure_runtime
    entry = cache.entry(build_key(ensure_runtime(compiler.find_compiler(), sim.soc.cce_aicore), project))
    for d in dirs:       # the log names paths in the build relative to it: an absolute one would be outside
        assert d.name.startswith(".tmp-") and not d.is_absolute(), d
        assert entry.is_dir() and not (entry / d).exists()


def test_a_host_code_hang_is_reported_and_not_cached(monkeypatch, sim):
    from kernelwright.tools.buildkit import cache, sandbox
    from kernelwright.tools.sim import build as sim_build
    from kernelwright.tools.sim.runtime_lib import ensure_runtime

    monkeypatch.setattr(sim_build, "DESCRIBE_LIMITS", sandbox.Limits(wall_s=3, cpu_s=3))
    project = lower(parse_file(DSL))
    host = next(k for k in project.files if k.startswith("op_host/") and k.endswith(".cpp"))
    project.files[host] += "\nstatic int kwHang = [] { volatile long x = 0; for (;;) { x = x + 1; } return 0; }();\n"
    result = sim.build(project)
    assert not result.ok and any("did not finish" in d.message for d in result.diagnostics), result.diagnostics
    key = sim_build.build_key(ensure_runtime(compiler.find_compiler(), sim.soc.cce_aicore), project)
    assert not cache.entry(key).exists()
