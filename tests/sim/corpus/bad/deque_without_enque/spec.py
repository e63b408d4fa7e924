from kernelwright.tools.sim.corpus import launch

DESCRIPTION = "DeQue on a queue nothing was EnQue'd to: the consumer waits forever on the NPU."
EXPECT = {'stage': 'run', 'status': 'rule_violation', 'rule': 'queue.deque_empty', 'message_contains': 'DeQue', 'file': 'deque_without_enque.cpp', 'line': 20}


def cases(rng):
    return [launch(1, ["x", "y", 256], {"x": rng.standard_normal(256).astype("float16")}, {"y": ((256,), "float16")})]
