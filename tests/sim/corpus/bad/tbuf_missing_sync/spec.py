from kernelwright.tools.sim.corpus import launch

DESCRIPTION = 'Copy-in to a TBuf, then a vector op on it with no MTE2->V flag: the vector unit may read before the data lands.'
EXPECT = {'stage': 'run', 'status': 'rule_violation', 'rule': 'pipe.hazard.raw', 'message_contains': 'no synchronisation', 'file': 'tbuf_missing_sync.cpp', 'line': 21}


def cases(rng):
    return [launch(1, ["x", "y", 256], {"x": rng.standard_normal(256).astype("float16")}, {"y": ((256,), "float16")})]
