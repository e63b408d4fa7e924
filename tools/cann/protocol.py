"""Frames between the parent and its NPU worker: an 8-byte little-endian length, then a pickle.
Both ends are our own code (the worker is `python -m kernelwright.tools.cann.worker`)."""
from __future__ import annotations

import pickle
from typing import Any, BinaryIO

MAX_FRAME = 16 << 30


def send(fh: BinaryIO, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    fh.write(len(data).to_bytes(8, "little"))
    fh.write(data)
    fh.flush()


def _read_exact(fh: BinaryIO, n: int) -> bytes | None:
    chunks, left = [], n
    while left:
        chunk = fh.read(left)
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def recv(fh: BinaryIO) -> Any | None:
    """The next frame, or None at end of stream (the other side is gone, or sent half a frame)."""
    head = _read_exact(fh, 8)
    if head is None:
        return None
    n = int.from_bytes(head, "little")
    if n > MAX_FRAME:
        raise ValueError(f"frame of {n} bytes exceeds {MAX_FRAME}")
    data = _read_exact(fh, n)
    return None if data is None else pickle.loads(data)
