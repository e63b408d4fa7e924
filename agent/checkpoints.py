"""The runs' SQLite checkpoints: a saver whose serializer revives exactly the state's pydantic types
(a type it does not know would come back as a plain dict), and the saved values of a run to resume."""
from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, get_args, get_type_hints

from pydantic import BaseModel

from kernelwright.agent.state import RunState
from kernelwright.errors import UserError


class NoSuchRun(UserError):
    """`resume` names a run the checkpoint file does not hold."""


def state_types() -> set[tuple[str, str]]:
    """(module, class) of every pydantic model the state holds, nested ones included."""
    found: set[type[BaseModel]] = set()

    def walk(tp: Any) -> None:
        if isinstance(tp, type) and issubclass(tp, BaseModel) and tp not in found:
            found.add(tp)
            for f in tp.model_fields.values():
                walk(f.annotation)
        for arg in get_args(tp):
            walk(arg)
    for tp in get_type_hints(RunState).values():
        walk(tp)
    return {(t.__module__, t.__name__) for t in found}


def serializer() -> Any:
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    return JsonPlusSerializer(allowed_msgpack_modules=sorted(state_types()))


@contextmanager
def open_saver(path: Path) -> Iterator[Any]:
    """A LangGraph SqliteSaver on `path` (created with its folder when missing)."""
    from langgraph.checkpoint.sqlite import SqliteSaver
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(str(path), check_same_thread=False)) as conn:
        yield SqliteSaver(conn, serde=serializer())


def saved_values(saver: Any, run_id: str, path: Path) -> dict[str, Any]:
    """The state a run was checkpointed with last."""
    found = saver.get_tuple({"configurable": {"thread_id": run_id}})
    if found is None:
        raise NoSuchRun(f"no checkpoint for run {run_id!r} in {path}; run ids are the artifact directory names")
    return found.checkpoint["channel_values"]
