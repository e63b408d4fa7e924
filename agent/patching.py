"""SEARCH/REPLACE edits of generated AscendC files (the debugger's "AscendC patch"), in Aider's block
format. An edit that does not apply says which block, shows the nearest real lines and which
blocks did apply, so the model can send a corrected edit."""
from __future__ import annotations

import difflib
import re

_BLOCK = re.compile(r"^(?:(?P<file>[\w./-]+)\s*\n)?<<<<<<< SEARCH\n(?P<search>.*?)^=======\n(?P<replace>.*?)^>>>>>>> REPLACE",
                    re.S | re.M)


class PatchError(ValueError):
    pass


def parse_edits(text: str) -> list[tuple[str | None, str, str]]:
    """(file or None, search, replace) of every block."""
    return [(m.group("file"), m.group("search"), m.group("replace")) for m in _BLOCK.finditer(text)]


def _nearest(text: str, search: str) -> str:
    lines, want = text.splitlines(), search.splitlines()
    if not want or not lines:
        return ""
    best, at = 0.0, 0
    for i in range(max(1, len(lines) - len(want) + 1)):
        score = difflib.SequenceMatcher(None, "\n".join(lines[i:i + len(want)]), search).ratio()
        if score > best:
            best, at = score, i
    return "\n".join(lines[at:at + len(want)])


def apply_edits(files: dict[str, str], text: str, default_file: str) -> dict[str, str]:
    """New file contents; raises PatchError (written for the model) when a block does not apply, and
    then applies none of them."""
    edits = parse_edits(text)
    if not edits:
        raise PatchError("expected one or more edits in the form\nop_kernel/<op>.cpp\n<<<<<<< SEARCH\n<exact lines>\n"
                         "=======\n<new lines>\n>>>>>>> REPLACE")
    out = dict(files)
    for i, (path, search, replace) in enumerate(edits, 1):
        path = path or default_file
        if path not in out:
            raise PatchError(f"edit {i}: no file {path}; the project has {', '.join(sorted(out))}")
        count = out[path].count(search)
        if count != 1:
            done = f" Edits 1-{i - 1} matched, but nothing was applied: send every edit again." if i > 1 else ""
            near = _nearest(out[path], search)
            raise PatchError(f"edit {i}: the SEARCH text occurs {count} times in {path} (it must occur exactly once)."
                             + (f" Did you mean these lines?\n{near}" if count == 0 and near else "") + done)
        out[path] = out[path].replace(search, replace)
    return out
