"""IR -> AscendC msopgen project (op_host tiling header, TilingFunc, OpDef; op_kernel class)."""
