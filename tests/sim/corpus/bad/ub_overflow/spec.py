from kernelwright.tools.sim.corpus import launch

DESCRIPTION = 'Two 128 KiB queue buffers on a 192 KiB UB: the second InitBuffer does not fit.'
EXPECT = {'stage': 'run', 'status': 'rule_violation', 'rule': 'ub.capacity', 'message_contains': 'InitBuffer needs', 'file': 'ub_overflow.cpp', 'line': 14}


def cases(rng):
    return [launch(1, ["x", "y", 65536], {"x": rng.standard_normal(65536).astype("float16")}, {"y": ((65536,), "float16")})]
