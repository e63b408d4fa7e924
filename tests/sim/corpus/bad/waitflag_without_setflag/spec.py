from kernelwright.tools.sim.corpus import launch

DESCRIPTION = 'WaitFlag<MTE2_V> with no SetFlag<MTE2_V> before it: the vector pipe would wait forever.'
EXPECT = {'stage': 'run', 'status': 'rule_violation', 'rule': 'flag.wait_without_set', 'message_contains': 'WaitFlag', 'file': 'waitflag_without_setflag.cpp', 'line': 29}


def cases(rng):
    return [launch(2, ["x", "y", 1024, 256], {"x": rng.standard_normal(1024).astype("float32")}, {"y": ((1024,), "float32")})]
