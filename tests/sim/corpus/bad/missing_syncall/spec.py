from kernelwright.tools.sim.corpus import launch
from kernelwright.tools.toolchain import ArgSpec

DESCRIPTION = "PipeBarrier<PIPE_ALL> orders the pipes of one core only: core 0 then reads the other cores'"
EXPECT = {'stage': 'run', 'status': 'rule_violation', 'rule': 'gm.race', 'message_contains': 'reads in the same SyncAll phase', 'file': 'missing_syncall.cpp', 'line': 50}


def cases(rng):
    return [launch(4, ["x", "y", ArgSpec(kind="workspace", bytes=128), 4000, 512], {"x": rng.uniform(-1, 1, 4000).astype("float32")}, {"y": ((1,), "float32")})]
