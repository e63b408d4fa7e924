"""The chat's slash commands: /help, /save, /resume, /sessions, /export, /quit."""
from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kernelwright.agent.chat.app import ChatApp

UNFINISHED = ("waiting", "running", "interrupted")


def help_(app: "ChatApp", arg: str, reviewing: bool) -> None:
    from kernelwright.agent.chat.app import HELP
    app.say(HELP)


def save(app: "ChatApp", arg: str, reviewing: bool) -> None:
    if app.current is None:
        app.say("nothing to save yet: start a run first")
        return
    if arg and any(s.name == arg and s.id != app.current.id for s in app.index.all()):
        app.say(f"note: {arg!r} named another session before; it now finds this one")
    app.current = app.index.put(app.current.model_copy(update={"name": arg or app.current.name}))
    key = app.current.name or app.current.id
    app.say(f"saved session {app.current.id}" + (f" as {app.current.name!r}" if app.current.name else "") +
            f" ({app.current.status}); continue it with /resume {key} or `kernelwright chat --resume {key}`")


def resume(app: "ChatApp", arg: str, reviewing: bool) -> None:
    if reviewing:
        app.say("answer this review first (or p to pause it), then /resume another session")
        return
    if not arg:
        app.say("/resume ID|NAME (see /sessions)")
        return
    s = app.index.find(arg)
    if s is None:
        app.say(f"no session {arg!r}; /sessions lists them")
        return
    app.current = s
    app.say(f"session {s.id}: {s.task_name} ({s.status}" + (f" at the {s.waiting_at} review)" if s.waiting_at else ")"))
    if s.status == "waiting" and s.pending:
        answer = app.review(s.pending)
        if answer is None:
            app.say(f"still paused at the {s.waiting_at} review")
            return
        app.drive(app._resume_call(s, answer))
    elif s.status in ("running", "interrupted"):
        app.drive(app._resume_call(s, None))         # from its last checkpoint
    else:
        kernel = Path(s.artifacts) / "kernel"
        app.say(f"finished: {s.status}" + (f"; kernel project: {kernel}" if kernel.is_dir() else ""))


def sessions(app: "ChatApp", arg: str, reviewing: bool) -> None:
    found = app.index.all()
    if not found:
        app.say("no saved sessions")
    for s in found[-30:]:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(s.updated))
        app.say(f"{s.id}  {s.name or '-'}  {s.task_name}  {s.status}" + (f" ({s.waiting_at})" if s.waiting_at else "")
                + f"  {when}")


def export(app: "ChatApp", arg: str, reviewing: bool) -> None:
    from kernelwright.agent.chat.app import FORMATS
    fmt, _, dest = arg.partition(" ")
    if fmt not in FORMATS:
        app.say(f"/export FORMAT [PATH] with FORMAT one of {', '.join(FORMATS)}")
        return
    if app.current is None:
        app.say("no session yet: start or /resume one")
        return
    art = Path(app.current.artifacts)
    src = art / "edited" if (art / "edited").is_dir() else art / "kernel"
    if not src.is_dir():
        app.say("this session has no kernel project yet")
        return
    from kernelwright.tools.formats import export as write, load
    from kernelwright.tools.project import ProjectError
    out = Path(dest.strip()).expanduser() if dest.strip() else art / "export" / fmt
    if not dest.strip():
        out.mkdir(parents=True, exist_ok=True)
    try:
        result = write(load(src), fmt, out, name=app.current.task_name, generate_glue=True)
    except (ProjectError, OSError) as e:
        app.say(f"export failed: {e}", "red")
        return
    for note in result.notes:
        app.say(f"note: {note}")
    app.say(f"wrote {fmt} ({result.name}) from {src.name}/: {', '.join(result.paths[:4])}"
            + (f" and {len(result.paths) - 4} more" if len(result.paths) > 4 else ""))


def quit_(app: "ChatApp", arg: str, reviewing: bool) -> None:
    app.quitting = True


HANDLERS = {"help": help_, "h": help_, "?": help_, "save": save, "resume": resume, "sessions": sessions,
            "export": export, "quit": quit_, "exit": quit_, "q": quit_}
