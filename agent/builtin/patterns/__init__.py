"""The builtin writer's recognisers, tried in order. Each is a module with `match(g, name) -> Emitted |
None` and `KNOWN` (the op names it can handle, for the message when nothing matches); a new pattern
is one module appended to PATTERNS."""
from __future__ import annotations

from dataclasses import dataclass


COVERS = ("elementwise chains and activations, broadcasting elementwise ops, casts, optimizer steps, softmax and "
          "log-softmax over the last axis, reductions over one axis or consecutive axes, scans, norms and "
          "normalisations, pooling, losses to a scalar, argmax/argmin over the last axis, matrix products on the cube unit (matmul, bmm, linear, addmm, transposed operands) with elementwise epilogues, gather/take_along_dim/scatter/scatter_add along the "
          "last axis, embedding and index_select of rows, masked_fill with a constant, where; "
          "index_copy/index_add of rows; argmax/argmin over any axis; interpolate (nearest, linear, bilinear, trilinear, "
          "bicubic); convolutions and transposed convolutions (1-3d, any stride/padding/dilation/groups) by im2col + "
          "GEMM on the cube with elementwise and norm epilogues; scaled_dot_product_attention and multi-head attention "
          "(cube GEMMs, online softmax; bool mask buffers, Linear-projected inputs), attention written with q/k/v "
          "Linear and einsum (multi-head, grouped- and multi-query), linear attention; grid_sample (bilinear, zeros "
          "padding) with a grid or affine_grid; and, composed op by op, any graph of broadcasting elementwise ops, "
          "reductions "
          "over one set of consecutive axes (sum, mean, max, min, norms, cosine similarity, pairwise distance) and totals")


@dataclass
class Emitted:
    family: str          # the example family it follows (elementwise, softmax, reduction, ...)
    summary: str         # what the program computes, in words (the plan's math)
    source: str          # the DSL program


def patterns() -> list:
    from kernelwright.agent.builtin.patterns import (argmax, attention, attention_mha, broadcast, broadcast_chain,
                                                    compose, conv, elementwise, index, index_rows, loss, matmul, norm,
                                                    norms, pooling, reduce, resize, scan_chain, softmax,
                                                    softmax_loss)
    from kernelwright.agent.builtin.patterns import cube_tail
    from kernelwright.agent.builtin.patterns import attention_gqa
    from kernelwright.agent.builtin.patterns import resize_grid
    from kernelwright.agent.builtin.patterns import attention_linear
    # compose is the general fallback: last
    return [elementwise, softmax, reduce, norms, norm, pooling, broadcast, broadcast_chain, loss, softmax_loss, argmax,
            matmul, index, conv, attention, attention_mha, attention_gqa, attention_linear, resize, resize_grid,
            index_rows, scan_chain, cube_tail, compose]
