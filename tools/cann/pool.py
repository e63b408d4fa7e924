"""Multi-NPU batches: one worker per device, each case handed to a free device's worker. A device
whose worker did not come back after a fault (`NpuWorker.lost`) leaves the pool; the batch goes on
on the others."""
from __future__ import annotations

import os
import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Callable, Iterable, Iterator, TypeVar

from kernelwright.tools.cann.client import NpuWorker
from kernelwright.tools.cann.devices import npu_smi_chips

T = TypeVar("T")
R = TypeVar("R")


class NoDevice(RuntimeError):
    pass


def visible_devices(env: dict[str, str] | None = None, count: int | None = None) -> list[int]:
    """Device ids to use: ASCEND_RT_VISIBLE_DEVICES when set (`0,2,3`), else 0..count-1 (count from
    npu-smi when not given)."""
    env = dict(os.environ if env is None else env)
    given = env.get("ASCEND_RT_VISIBLE_DEVICES", "").strip()
    if given:
        try:
            return [int(x) for x in given.split(",") if x.strip()]
        except ValueError:
            raise NoDevice(f"ASCEND_RT_VISIBLE_DEVICES={given!r} is not a comma-separated list of device ids") from None
    if count is None:
        count = len(npu_smi_chips()[0])
    return list(range(count))


class DevicePool:
    def __init__(self, devices: list[int], env: dict[str, str], *, command: list[str] | None = None,
                 factory: Callable[..., NpuWorker] = NpuWorker):
        if not devices:
            raise NoDevice("no NPU device to run on (none visible; check `npu-smi info` and ASCEND_RT_VISIBLE_DEVICES)")
        self.workers = {d: factory(d, env, command=command) for d in devices}
        self._free: queue.Queue[int] = queue.Queue()
        for d in devices:
            self._free.put(d)
        self._lock = threading.Lock()
        self.lost: list[int] = []

    @property
    def usable(self) -> list[int]:
        return [d for d in self.workers if d not in self.lost]

    @contextmanager
    def acquire(self) -> Iterator[NpuWorker]:
        while True:
            with self._lock:
                if not self.usable:
                    raise NoDevice(f"every device of the pool was lost ({', '.join(map(str, self.lost))})")
            try:
                d = self._free.get(timeout=1.0)
                break
            except queue.Empty:
                continue
        worker = self.workers[d]
        try:
            yield worker
        finally:
            if worker.lost:
                with self._lock:
                    self.lost.append(d)
                worker.close()
            else:
                self._free.put(d)

    def map(self, fn: Callable[[NpuWorker, T], R], items: Iterable[T]) -> list[R]:
        """fn(worker, item) for every item, one item per free device at a time; results in item order."""
        def one(item: T) -> R:
            with self.acquire() as worker:
                return fn(worker, item)

        with ThreadPoolExecutor(max_workers=len(self.workers)) as ex:
            return list(ex.map(one, items))

    def close(self) -> None:
        for w in self.workers.values():
            w.close()

    def __enter__(self) -> "DevicePool":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
