"""State across calls through verify: a host keeps the statics of its TilingFunc from one call to the next,
so each case is tiled again in the same process (the emulation's host runner); a TilingFunc that keeps a
static which changes its result is rejected with the finding, not passed because every case ran fresh."""
from pathlib import Path

from kernelwright.tools.project import KernelProject
from kernelwright.tools.referee import verify
from kernelwright.tools.tasks import load_task

FIX = Path(__file__).parent / "fixtures"
HOST = "op_host/add_scale.cpp"


def test_a_tiling_func_keeping_a_static_is_rejected(sim):
    project = KernelProject.from_path(FIX / "add_scale")
    host = project.files[HOST]
    assert host.count("    tiling.set_tile(1024);") == 1
    stateful = host.replace("    tiling.set_tile(1024);",
                            "    static uint32_t calls = 0;      // a cache of the first call, as a host keeps it\n"
                            "    calls++;\n"
                            "    tiling.set_tile(calls == 1 ? 1024 : 512);")
    project = project.model_copy(update={"files": {**project.files, HOST: stateful}})
    v = verify(load_task(FIX / "tasks/add_scale_tiny.py"), project, sim, api_lint=False, recheck=False, trials=1)
    assert v.status == "fail", v.summary
    rules = [d.rule for r in v.runs for d in r.diagnostics]
    assert "host.state_across_calls" in rules, (v.summary, rules)
    assert "a second time with the same inputs in one process" in v.runs[0].reason
