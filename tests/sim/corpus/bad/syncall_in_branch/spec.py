from kernelwright.tools.sim.corpus import launch
from kernelwright.tools.toolchain import ArgSpec

DESCRIPTION = 'SyncAll skipped by the last core (a block-dependent condition): the other cores wait forever.'
EXPECT = {'stage': 'run', 'status': 'rule_violation', 'rule': 'syncall.mismatch', 'message_contains': 'SyncAll', 'file': 'syncall_in_branch.cpp', 'line': 53}


def cases(rng):
    return [launch(4, ["x", "y", ArgSpec(kind="workspace", bytes=128), 4000, 512], {"x": rng.uniform(-1, 1, 4000).astype("float32")}, {"y": ((1,), "float32")})]
