from kernelwright.tools.sim.corpus import launch

DESCRIPTION = 'Every core takes ceil(n / blocks) rounded up to 16 elements, so the last core reads and writes past the end of x and y.'
EXPECT = {'stage': 'run', 'status': 'rule_violation', 'rule': 'gm.out_of_bounds', 'message_contains': 'outside', 'file': 'gm_out_of_bounds_last_core.cpp', 'line': 20}


def cases(rng):
    return [launch(4, ["x", "y", 1000], {"x": rng.standard_normal(1000).astype("float16")}, {"y": ((1000,), "float16")})]
