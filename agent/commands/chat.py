"""`kernelwright chat` (also plain `kernelwright`): the interactive session. Exit 0 when left normally,
2 on bad input (configuration, an unknown review point)."""
from __future__ import annotations

import argparse
import sys

from kernelwright.agent.commands.run import add_set_option, settings_asked

POINTS = ("plan", "dsl", "accept")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("chat", help="interactive session: point to an operator, watch and steer the agent",
                       description="Give a reference file (or describe the operator, with a model configured); watch "
                                   "plan -> DSL -> AscendC -> verdicts; approve, edit, hint or retry at each review "
                                   "point. Sessions are checkpointed and resume after the terminal closes.")
    p.add_argument("--model", default=None, help="builtin (no LLM), replay:FILE, or a litellm name "
                                                 "(default: $KERNELWRIGHT_MODEL, else builtin)")
    p.add_argument("--backend", default=None, help="toolchain: sim (default), cann or cann-syntax")
    p.add_argument("--config", default=None, help="config file (.yaml or .toml)")
    p.add_argument("--review", default=",".join(POINTS), metavar="POINTS",
                   help="review points, comma-separated among plan,dsl,accept (default all; '' for none)")
    p.add_argument("--resume", default=None, metavar="ID|NAME",
                   help="continue a saved session at once, with the settings it was started with")
    p.add_argument("--home", default=None, help="where sessions live (default $KERNELWRIGHT_HOME/chat)")
    p.add_argument("--plain", action="store_true", help="plain line output even on a terminal")
    add_set_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from kernelwright.agent.config import load_config

    points = [p for p in (args.review or "").split(",") if p.strip()]
    unknown = [p for p in points if p not in POINTS]
    if unknown:
        print(f"kernelwright chat: unknown review point(s) {', '.join(unknown)}; choose among {', '.join(POINTS)}",
              file=sys.stderr)
        return 2
    from kernelwright.agent.chat.sessions import chat_home
    asked = settings_asked(args, {"model": args.model, "backend": args.backend})
    home = chat_home(args.home)
    paths = {"paths.runs": str(home / "runs"), "paths.checkpoints": str(home / "checkpoints.sqlite")}
    cfg = load_config(args.config, overrides=paths | ({} if args.resume else asked))
    from kernelwright.agent.chat.app import ChatApp
    from kernelwright.agent.chat.io import LineReader
    from kernelwright.agent.chat.view import View

    tty = sys.stdin.isatty() and sys.stdout.isatty() and not args.plain
    app = ChatApp(cfg, home=home, interrupts=points, view=View(tty=tty),
                  reader=LineReader(home / "history", tty=tty), changes=asked if args.resume else {})
    return app.loop(resume=args.resume)
