from kernelwright.tools.sim.corpus import launch

DESCRIPTION = 'A uint16_t loop counter never reaches a bound above 65535: the core spins until the watchdog fires.'
EXPECT = {'stage': 'run', 'status': 'timeout', 'rule': 'kernel.timeout', 'message_contains': 'did not finish', 'file': 'infinite_loop_u16_counter.cpp', 'line': 25}


def cases(rng):
    return [launch(1, ["x", "y", 256], {"x": rng.standard_normal(256).astype("float16")}, {"y": ((256,), "float16")}, timeout_s=3)]
