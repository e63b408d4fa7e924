"""The interactive session: a line editor over the agent. Point it at a reference file (or describe
the operator in words, when a model is configured), watch plan -> DSL -> AscendC -> verdicts stream in,
and answer at each review point. Every run is checkpointed; a session paused at a review point, or
cut off when the terminal closed, continues with /resume (also from a new terminal)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from kernelwright.agent.chat import review
from kernelwright.agent.chat.io import LineReader
from kernelwright.agent.chat.sessions import Session, SessionIndex
from kernelwright.agent.chat.view import View

HELP = """Give the path of a reference .py (Model, get_inputs, get_init_inputs) or an NPUKernelBench task
directory to start a run; or describe the operator in words (a model drafts the reference).
  /save [NAME]            name the current session (sessions are always saved; the name finds it again)
  /resume ID|NAME         continue a session: at its review point, or where it was cut off
  /sessions               list saved sessions
  /export FORMAT [PATH]   write the current kernel as mkb, mkb-direct, npukb, akb or cann
  /help                   this text
  /quit                   leave (paused sessions wait for /resume)
At a review point: a(pprove), e(dit) in $EDITOR, h(int) TEXT, r(etry), p(ause); k edits the kernel at accept."""
FORMATS = ("mkb", "mkb-direct", "npukb", "akb", "cann")
QUIT = "quit"


class ChatApp:
    def __init__(self, cfg: Any, *, home: Path, interrupts: list[str], view: View, reader: LineReader,
                 changes: dict[str, Any] | None = None):
        self.cfg, self.home, self.interrupts, self.view, self.reader = cfg, home, interrupts, view, reader
        self.changes = dict(changes or {})   # settings `--resume` changes (--set), for that session only
        self.index = SessionIndex(home)
        self.runs = home / "runs"
        self.current: Session | None = None
        self.quitting = False

    def say(self, text: str, style: str | None = None) -> None:
        self.view.say(text, style)

    def loop(self, resume: str | None = None) -> int:
        model = self.cfg.models.default.name or "builtin"
        self.say(f"kernelwright chat (model {model}, backend {self.cfg.toolchain.backend}, review at "
                 f"{', '.join(self.interrupts) or 'no point'}). A reference path or a description; /help for more.")
        if resume:
            self.command(f"/resume {resume}")
        while not self.quitting:
            line = self.reader.read("kernelwright> ")
            if line is None:
                break
            line = line.strip()
            if line.startswith("/") and "/" not in line.split()[0][1:]:   # /save, not /home/me/task.py
                self.command(line)
            elif line:
                self.request(line)
        self.say("bye" + (f"; /resume {self.current.name or self.current.id} continues this session"
                          if self.current and self.current.status in ("waiting", "running", "interrupted") else ""))
        return 0

    # starting runs
    def request(self, text: str) -> None:
        path = Path(text).expanduser()
        if path.exists():
            self.start(path)
        else:
            self.describe(text)

    def describe(self, text: str) -> None:
        from kernelwright.agent.models import models_for
        model = models_for(self.cfg.models).get("planner")
        if model is None:
            self.say(f"{text!r} is not a file. Drafting a reference from a description needs a model, and none is "
                     "configured (--model NAME or $KERNELWRIGHT_MODEL). Give the path of a reference .py (Model, "
                     "get_inputs, get_init_inputs) instead.", "yellow")
            return
        from kernelwright.agent.drafting import draft_reference
        from kernelwright.agent.models.base import ModelError
        from kernelwright.agent.replies import FormatError
        try:
            source = draft_reference(text, model)
        except (ModelError, FormatError) as e:
            self.say(f"could not draft a reference: {e}", "red")
            return
        slug = "_".join("".join(c if c.isalnum() else " " for c in text.lower()).split()[:5]) or "operator"
        path = self.home / "drafts" / f"{slug}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
        self.view.code(source, "python", f"drafted reference {path}")
        answer = (self.reader.read("Use this reference? [y]es / [n]o: ") or "n").strip().lower()
        if answer.startswith("y"):
            self.start(path)
        else:
            self.say(f"kept in {path}; edit it and give its path to start")

    def start(self, path: Path) -> None:
        from kernelwright.agent.api import generate, new_run_id
        from kernelwright.tools.tasks import TaskError, load_task
        try:
            task = load_task(path)
        except TaskError as e:
            self.say(str(e), "red")
            return
        run_id = new_run_id(task.name)
        art = self.runs / run_id
        self.current = self.index.put(Session(id=run_id, task=str(path.resolve()), task_name=task.name,
                                              artifacts=str(art), interrupts=self.interrupts,
                                              model=self.cfg.models.default.name or "builtin"))
        self.say(f"session {run_id}: {task.name}")
        self.drive(lambda: generate(task, config=self.cfg, out=art, interrupts=self.interrupts,
                                    on_event=self.view.event))

    def _resume_call(self, s: Session, answer: dict[str, Any] | None) -> Callable[[], Any]:
        """Continue a session with the settings it was started with (and the --set changes of --resume)."""
        from kernelwright.agent.api import generate
        changes, self.changes = self.changes, {}
        return lambda: generate(resume=s.id, answer=answer, config=self.cfg, interrupts=s.interrupts,
                                changes=changes, on_event=self.view.event)

    def drive(self, call: Callable[[], Any]) -> None:
        """Run until the agent finishes or a review point is left unanswered."""
        while True:
            assert self.current is not None
            # running from here on: a terminal closed mid-run must not leave an answered review looking pending
            self.current = s = self.index.put(self.current.model_copy(update={"status": "running", "waiting_at": None,
                                                                              "pending": None}))
            try:
                result = call()
            except KeyboardInterrupt:
                self.view.idle()
                self.current = self.index.put(s.model_copy(update={"status": "interrupted"}))
                self.say(f"interrupted; the run is checkpointed: /resume {s.name or s.id}", "yellow")
                return
            except Exception as e:       # the REPL outlives a failed run (it is checkpointed and can be resumed)
                self.view.idle()
                self.current = self.index.put(s.model_copy(update={"status": "interrupted"}))
                self.say(f"the run stopped: {type(e).__name__}: {e}", "red")
                return
            self.view.idle()
            pending = result.pending if result.status == "interrupted" else None
            self.current = s = self.index.put(s.model_copy(update={
                "status": "waiting" if pending else result.status, "waiting_at": (pending or {}).get("kind"),
                "pending": pending}))
            if not pending:
                self.finished(result)
                return
            answer = self.review(pending)
            if answer is None:
                s = self.current
                self.say(f"paused at the {pending.get('kind')} review: /resume {s.name or s.id} continues", "yellow")
                return
            call = self._resume_call(s, answer)

    def finished(self, result: Any) -> None:
        style = "green" if result.ok else "red"
        self.say(f"{result.status.upper()}: {result.reason}", style)
        if result.kernel:
            self.say(f"kernel project: {result.kernel}  (/export FORMAT writes it for a benchmark)")

    def review(self, payload: dict[str, Any]) -> dict[str, Any] | None:
        self.view.pending(payload)
        kind = payload.get("kind", "")
        self.say(review.options(kind), "dim")
        while not self.quitting:
            line = self.reader.read(f"{kind}> ")
            if line is None:
                return None
            if line.strip().startswith("/"):
                self.command(line.strip(), reviewing=True)
                continue
            action, rest = review.parse_choice(line)
            if action == "approve":
                return {"action": "approve"}
            if action == "pause":
                return None
            if action == "retry":
                return {"action": "reject", "feedback": review.RETRY}
            if action == "hint":
                text = rest or (self.reader.read("hint: ") or "").strip()
                if text:
                    return {"action": "reject", "feedback": text}
            elif action == "edit":
                answer = review.edit_answer(payload, self.say)
                if answer:
                    return answer
            elif action == "k" and kind == "accept" and self.current:
                review.edit_kernel(Path(self.current.artifacts), self.current.task, self.say, self.view.verdict)
            elif action:
                self.say(f"unknown answer {line.strip()!r}; " + review.options(kind))
        return None

    # slash commands
    def command(self, line: str, reviewing: bool = False) -> None:
        from kernelwright.agent.chat import commands
        name, _, arg = line[1:].partition(" ")
        handler = commands.HANDLERS.get(name.lower())
        if handler is None:
            self.say(f"unknown command /{name}; /help lists them")
            return
        handler(self, arg.strip(), reviewing)
