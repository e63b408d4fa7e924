from kernelwright.tools.sim.corpus import launch

DESCRIPTION = 'A view t[3] of a half tensor starts 6 bytes past a 32-byte boundary: vector operands must be aligned.'
EXPECT = {'stage': 'run', 'status': 'rule_violation', 'rule': 'ub.align', 'message_contains': 'not 32-byte aligned', 'file': 'unaligned_view.cpp', 'line': 24}


def cases(rng):
    return [launch(1, ["x", "y", 256], {"x": rng.standard_normal(256).astype("float16")}, {"y": ((256,), "float16")})]
