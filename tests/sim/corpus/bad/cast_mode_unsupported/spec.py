from kernelwright.tools.sim.corpus import launch

DESCRIPTION = 'fp16 -> fp32 only supports CAST_NONE; CAST_RINT is rejected at run time (the CPU twin aborts).'
EXPECT = {'stage': 'run', 'status': 'rule_violation', 'rule': 'cast.mode', 'message_contains': 'CAST_RINT from half to float not supported', 'file': 'cast_mode_unsupported.cpp', 'line': 25}


def cases(rng):
    return [launch(1, ["x", "y", 256], {"x": rng.standard_normal(256).astype("float16")}, {"y": ((256,), "float16")})]
