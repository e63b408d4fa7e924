from kernelwright.tools.sim.corpus import launch

DESCRIPTION = 'DataCopy of 100 halves = 200 bytes: the NPU silently drops the last 8 bytes (use DataCopyPad).'
EXPECT = {'stage': 'run', 'status': 'rule_violation', 'rule': 'datacopy.truncate', 'message_contains': 'is not a multiple of 32 bytes', 'file': 'datacopy_truncate.cpp', 'line': 19}


def cases(rng):
    return [launch(1, ["x", "y", 100], {"x": rng.standard_normal(100).astype("float16")}, {"y": ((100,), "float16")})]
