from kernelwright.tools.sim.corpus import launch

DESCRIPTION = 'Every core takes ceil(n / blocks) rounded up to 256 elements, so the last core reads and writes past the end of x and y (beyond their 512-byte allocations): the write lands in z, allocated next.'
EXPECT = {'stage': 'run', 'status': 'rule_violation', 'rule': 'gm.out_of_bounds', 'message_contains': "the next tensor, 'z'", 'file': 'gm_out_of_bounds_last_core.cpp', 'line': 30}


def cases(rng):
    return [launch(4, ["x", "y", "z", 600], {"x": rng.standard_normal(600).astype("float16")},
                   {"y": ((600,), "float16"), "z": ((600,), "float16")})]
