"""SEARCH/REPLACE edits of generated AscendC files (the debugger's "AscendC patch"), in Aider's block
format. SEARCH text matches exactly, or line by line up to surrounding whitespace. An edit that does not
apply says which block and shows the nearest real lines; the edits before it stay applied (as Aider
keeps them), so the model continues from the current file."""
from __future__ import annotations

import difflib
import re

_BLOCK = re.compile(r"^(?:(?P<file>[\w./-]+)\s*\n)?<<<<<<< SEARCH\n(?P<search>.*?)^=======\n(?P<replace>.*?)^>>>>>>> REPLACE",
                    re.S | re.M)


FORMAT = ("op_kernel/<op>.cpp\n<<<<<<< SEARCH\n<lines copied from the current file>\n=======\n<new lines>\n"
          ">>>>>>> REPLACE")


class PatchError(ValueError):
    """An edit that does not apply. `files` holds the edits before it applied (kept, as Aider does) and
    `applied` counts them, so the next attempt starts from the current file."""

    def __init__(self, message: str, files: dict[str, str] | None = None, applied: int = 0):
        super().__init__(message)
        self.files, self.applied = files, applied


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


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]


def _loose_replace(text: str, search: str, replace: str) -> str | None:
    """`text` with the one run of lines equal to `search` up to each line's surrounding whitespace (and blank
    lines at its ends) replaced, the replacement re-indented by the file's indentation; None unless exactly one
    run matches."""
    want = [ln.strip() for ln in search.strip("\n").splitlines()]
    while want and not want[0]:
        want.pop(0)
    while want and not want[-1]:
        want.pop()
    if not want:
        return None
    lines = text.splitlines(keepends=True)
    hits = [i for i in range(len(lines) - len(want) + 1)
            if [ln.strip() for ln in lines[i:i + len(want)]] == want]
    if len(hits) != 1:
        return None
    at = hits[0]
    first = next(ln for ln in search.splitlines() if ln.strip())
    theirs, ours = _indent(first), _indent(lines[at])
    new = [ours + ln[min(len(theirs), len(_indent(ln))):] if ln.strip() else ln for ln in replace.splitlines()]
    tail = "" if lines[at + len(want) - 1].endswith("\n") else None
    body = "\n".join(new) + ("\n" if tail is not None and new else "")
    return "".join(lines[:at]) + body + "".join(lines[at + len(want):])


def apply_edits(files: dict[str, str], text: str, default_file: str) -> dict[str, str]:
    """New file contents. Each edit's SEARCH text must occur once, exactly or up to whitespace around its lines.
    An edit that does not apply raises PatchError (written for the model) carrying the files with the edits
    before it applied."""
    edits = parse_edits(text)
    if not edits:
        raise PatchError(f"expected one or more edits in the form\n{FORMAT}")
    out = dict(files)
    for i, (path, search, replace) in enumerate(edits, 1):
        path = path or default_file
        kept = (f" Edits 1-{i - 1} applied and are kept: the file below is the current one; send edit {i} "
                "and the later ones again, against it.") if i > 1 else ""
        if path not in out:
            raise PatchError(f"edit {i}: no file {path}; the project has {', '.join(sorted(out))}.{kept}", out, i - 1)
        count = ("\n" + out[path]).count("\n" + search)          # whole lines only
        if count == 1:
            out[path] = ("\n" + out[path]).replace("\n" + search, "\n" + replace)[1:]
            continue
        loose = _loose_replace(out[path], search, replace) if count == 0 else None
        if loose is not None:
            out[path] = loose
            continue
        near = _nearest(out[path], search)
        raise PatchError(f"edit {i}: the SEARCH text occurs {count} times in {path} (it must occur exactly once)."
                         + (f" Did you mean these lines?\n{near}\n" if count == 0 and near else "") + kept, out, i - 1)
    return out


# A whole file: a line naming it (bare, in backticks, bold, or after `#`s or `// file:`), then one fenced block.
_WHOLE = re.compile(r"^[#*`/\s]*(?:file:\s*)?(?P<file>(?:op_kernel|op_host)/[\w.-]+)[*`:\s]*\n```[\w+]*\n(?P<body>.*?)^```",
                    re.S | re.M)


def whole_files(text: str) -> dict[str, str]:
    """path -> contents of every file the reply writes out whole (blocks holding SEARCH/REPLACE edits are not)."""
    return {m.group("file"): m.group("body") for m in _WHOLE.finditer(text) if "<<<<<<< SEARCH" not in m.group("body")}


def apply_reply(files: dict[str, str], text: str, default_file: str, may_add: str = "op_kernel/") -> dict[str, str]:
    """Whole files first (an existing file, or a new one under `may_add`), then any SEARCH/REPLACE edits."""
    whole = whole_files(text)
    out = dict(files)
    for path, body in whole.items():
        if path not in out and not (path.startswith(may_add) and path.endswith((".h", ".hpp"))):
            raise PatchError(f"no file {path}; the project has {', '.join(sorted(out))} (new files: headers under "
                             f"{may_add})", out if out != files else None, 0)
        out[path] = body
    if parse_edits(text):
        return apply_edits(out, text, default_file)
    if not whole:
        raise PatchError("expected whole files (a line naming the file, e.g. op_kernel/<op>.cpp, then the file in one "
                         f"fenced block) or edits in the form\n{FORMAT}")
    return out
