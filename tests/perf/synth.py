"""Synthetic instruction traces with the synchronisation the AscendC queues produce, for the cost
model's tests: a copy-in / compute / copy-out pipeline over tiles, with BUFFER_NUM = 1 or 2."""
from __future__ import annotations

from kernelwright.tools.perf.trace import BlockTrace, KernelTrace, LaunchTrace, TraceBuilder


class Queue:
    """TQue's protocol as the emulator records it: AllocTensor waits for the slot's FreeTensor, DeQue
    waits for its EnQue."""

    def __init__(self, t: TraceBuilder, producer: str, consumer: str, buffers: int):
        self.t, self.producer, self.consumer = t, producer, consumer
        self.free_tokens: list[int | None] = [None] * buffers
        self.next = 0
        self.enq: list[int] = []

    def alloc(self) -> int:
        slot = self.next
        self.next = (self.next + 1) % len(self.free_tokens)
        if self.free_tokens[slot] is not None:
            self.t.acquire(self.producer, self.free_tokens[slot])  # type: ignore[arg-type]
        return slot

    def enque(self) -> None:
        self.enq.append(self.t.release(self.producer))

    def deque(self) -> None:
        self.t.acquire(self.consumer, self.enq.pop(0))

    def free(self, slot: int) -> None:
        self.free_tokens[slot] = self.t.release(self.consumer)


def elementwise_block(tiles: int, tile_bytes: int, buffers: int, op: str = "Add", dtype: str = "float",
                      inputs: int = 2, addressed: bool = False) -> BlockTrace:
    """CopyIn(inputs) -> Compute -> CopyOut per tile, through VECIN/VECOUT queues; `addressed`: each copy records
    its GM address (tensor i at i GiB, tile after tile), as the emulator does."""
    t = TraceBuilder()
    qin = [Queue(t, "MTE2", "V", buffers) for _ in range(inputs)]
    qout = Queue(t, "V", "MTE3", buffers)
    repeats = max(1, tile_bytes // 256)
    at = (lambda i, k: (i << 30) + k * tile_bytes) if addressed else (lambda i, k: None)
    for k in range(tiles):
        slots = []
        for i, q in enumerate(qin):
            slots.append(q.alloc())
            t.copy("GM", "UB", tile_bytes, gm_addr=at(i + 1, k))
            q.enque()
        for q in qin:
            q.deque()
        s_out = qout.alloc()
        t.vec(op, dtype, repeats)
        qout.enque()
        for q, s in zip(qin, slots):
            q.free(s)
        qout.deque()
        t.copy("UB", "GM", tile_bytes, gm_addr=at(inputs + 1, k))
        qout.free(s_out)
    return t.build()


def kernel(blocks: list[BlockTrace]) -> KernelTrace:
    for i, b in enumerate(blocks):
        b.block = i
    return KernelTrace(launches=[LaunchTrace(block_dim=len(blocks), blocks=blocks)])


def elementwise_kernel(blocks: int, tiles: int, tile_bytes: int, buffers: int = 2, **kw) -> KernelTrace:
    return kernel([elementwise_block(tiles, tile_bytes, buffers, **kw) for _ in range(blocks)])


def rows_block(first_row: int, rows: int, row_bytes: int, chunk: int, passes: int = 1, buffers: int = 2,
               base: int | None = 1 << 32, out_base: int = 1 << 40) -> BlockTrace:
    """A row kernel whose rows do not fit in UB: each of `rows` rows (from `first_row`) read `passes` times in
    chunks from GM (at their addresses, for the L2 model: base + row * row_bytes), a vector pass per chunk,
    one 32-byte result written per row. `base` None: no addresses recorded."""
    t = TraceBuilder()
    q = Queue(t, "MTE2", "V", buffers)
    for row in range(first_row, first_row + rows):
        for _ in range(passes):
            for off in range(0, row_bytes, chunk):
                slot = q.alloc()
                t.copy("GM", "UB", chunk, gm_addr=None if base is None else base + row * row_bytes + off)
                q.enque()
                q.deque()
                t.vec("Add", "float", max(1, chunk // 256))
                q.free(slot)
        t.flag("V", "MTE3").copy("UB", "GM", 32, gm_addr=None if base is None else out_base + row * 32)
    return t.build()
