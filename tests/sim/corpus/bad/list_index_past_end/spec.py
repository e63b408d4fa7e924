import numpy as np

from kernelwright.tools.toolchain import Case, OutputSpec

DESCRIPTION = ("A loop over a tensor list runs i <= GetSize(): GetDataPtr(GetSize()) asks for a tensor past the end "
               "(the NPU reads a garbage pointer from past the descriptor).")
EXPECT = {'stage': 'run', 'status': 'rule_violation', 'rule': 'list.index', 'message_contains': 'past the end of a list of 2',
          'file': 'op_kernel/list_index_past_end.cpp', 'line': 13}


def cases(rng):
    return [Case(inputs={"x[0]": rng.standard_normal(8).astype(np.float32),
                         "x[1]": rng.standard_normal(5).astype(np.float32)},
                 outputs={"y[0]": OutputSpec(shape=(8,), dtype="float32"), "y[1]": OutputSpec(shape=(5,), dtype="float32")})]
