"""`kernelwright chat` (and plain `kernelwright`): the interactive terminal session over the agent.

    app.py        the REPL: start runs, stream them, drive the review points
    review.py     review answers (approve, edit in $EDITOR, hint, retry, pause; kernel edits)
    commands.py   /help /save /resume /sessions /export /quit
    view.py       rich on a terminal, plain lines otherwise
    io.py         the line editor (prompt-toolkit, with history) and $EDITOR
    sessions.py   the session index next to the graph's SQLite checkpoints
"""
