from kernelwright.tools.sim.corpus import launch

DESCRIPTION = "The input tensor is EnQue'd and never DeQue'd: its event flag is still set when the kernel ends."
EXPECT = {'stage': 'run', 'status': 'rule_violation', 'rule': 'queue.leak', 'message_contains': 'never', 'file': 'leaked_queue_slot.cpp', 'line': 19}


def cases(rng):
    return [launch(1, ["x", "y", 256], {"x": rng.standard_normal(256).astype("float16")}, {"y": ((256,), "float16")})]
