from kernelwright.tools.sim.corpus import launch

DESCRIPTION = 'A queue with one buffer hands out a second tensor before the first is freed: the NPU waits forever.'
EXPECT = {'stage': 'run', 'status': 'rule_violation', 'rule': 'queue.no_free_slot', 'message_contains': 'AllocTensor', 'file': 'alloc_no_free_slot.cpp', 'line': 19}


def cases(rng):
    return [launch(1, ["x", "y", 256], {"x": rng.standard_normal(256).astype("float16")}, {"y": ((256,), "float16")})]
