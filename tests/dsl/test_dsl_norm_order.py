"""The layer and group norm examples' order at MultiKernelBench's own shapes: a block reads a row slice
(layer norm) or a segment's channel slice (group norm) a second time after all blocks together moved
little enough to fit L2 (group norm: the smallest 910B L2, 96 MiB; layer norm: three quarters of the
910B2's), so on the chip the second read can come from L2 (tools/perf/l2.py's rule). Only the tiling and
the UB ledger run here (no emulation); the split paths' results are judged by the examples' own tasks
(norm/layer_norm_long.py's 2, 3 and 10 rows, norm/group_norm.py's last case)."""
import math

from kernelwright.tools.dsl.dtypes import DTYPES
from kernelwright.tools.dsl.examples import examples
from kernelwright.tools.dsl.host_eval import TensorSpec, run_tiling
from kernelwright.tools.dsl.interp.values import KernelExprEval
from kernelwright.tools.dsl.layout import ledger, total_bytes
from kernelwright.tools.dsl.parse_program import parse_file
from kernelwright.tools.dsl.roles import analyse
from kernelwright.tools.hardware import load_soc

SOC = load_soc("Ascend910B2")
SMALLEST_L2 = 96 << 20


def _tiling(name: str, shapes: dict, attrs: dict):
    """The example's tiling at these fp32 shapes, after checking its UB ledger fits the SoC there."""
    program = parse_file(next(e for e in examples() if e.name == name).program_path())
    t = run_tiling(program, {n: TensorSpec(s, DTYPES["f32"]) for n, s in shapes.items()}, attrs, SOC)
    used = total_bytes(ledger(program, analyse(program), KernelExprEval(program, t.fields, lambda g: DTYPES["f32"])))
    assert used <= SOC.ub_bytes
    return t


def test_layer_norm_of_16_mb_rows_goes_a_few_rows_a_round_over_every_block():
    t = _tiling("layer_norm", {"x": (64, 64, 256, 256), "weight": (64, 256, 256), "bias": (64, 256, 256)},
                {"eps": 1e-5})
    f = t.fields
    assert f["fits"] == 2 and t.block_dim == SOC.vector_cores
    assert f["slice"] * t.block_dim >= f["N"] and f["chunk"] <= f["slice"]
    # a round of R rows: a block reads R slices, re-reads them with one weight and bias slice, writes R slices;
    # R > 1 shares the weight and bias reads, and the round stays within three quarters of the 910B2's L2
    assert f["R"] >= 2 and f["rounds"] == math.ceil(64 / f["R"])
    assert (3 * f["R"] + 2) * f["slice"] * 4 * t.block_dim <= SOC.l2_bytes * 3 // 4


def test_group_norm_of_8_mb_segments_splits_them_by_channels_in_rounds():
    t = _tiling("group_norm", {"x": (128, 64, 512, 512), "weight": (64,), "bias": (64,)},
                {"num_groups": 8, "eps": 1e-5})
    f = t.fields
    assert f["fits"] == 2 and f["k"] == 8 and f["cpk"] == 1 and t.block_dim == SOC.vector_cores
    assert f["gpr"] == 6 and f["rounds"] == math.ceil(1024 / 6)
    # whole segments on one block each: 2 x 8 MiB between the reads of a segment's last tile, over 48 cores
    # past even the 910B2's 192 MiB; a channel slice each: within the smallest L2
    assert 2 * f["L"] * 4 * SOC.vector_cores > 2 * SMALLEST_L2
    assert 2 * f["cpk"] * f["S"] * 4 * t.block_dim <= SMALLEST_L2


def test_group_norm_keeps_small_segments_whole_on_one_block():
    """128 KiB segments over 48 cores already fit L2 between their reads: no split, no SyncAll per round."""
    t = _tiling("group_norm", {"x": (128, 64, 64, 64), "weight": (64,), "bias": (64,)},
                {"num_groups": 8, "eps": 1e-5})
    assert t.fields["fits"] == 0 and t.fields["k"] == 1 and t.block_dim == SOC.vector_cores
