"""Untrusted text -> generated C++, as data only. Every DSL string, file name or path that is written
into a C++ source goes through one of these: a comment cannot end its line early or splice the
next one, and an `#include` path cannot close its quotes."""
from __future__ import annotations

_PLAIN = frozenset(chr(c) for c in range(0x20, 0x7f)) - {"\\", "?"}


def comment_text(text: object) -> str:
    """`text` as the body of one `//` comment line: printable ASCII stays; backslashes, control
    characters (newlines, carriage returns, form feeds, NUL, ESC), non-ASCII (line separators,
    bidi overrides) and the `?` of a `??` trigraph become visible escapes, so every backslash left
    is followed by a letter and no line splice or trigraph can form."""
    out = []
    prev = ""
    for ch in str(text):
        if ch in _PLAIN or (ch == "?" and prev != "?"):
            out.append(ch)
        elif ch == "\\":
            out.append("\\x5c")
        elif ord(ch) < 0x100:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
        prev = ch
    return "".join(out)


def include_path(path: object) -> str:
    """A path for `#include "..."`: refused (ValueError) when it holds a quote, a backslash or a
    character that is not printable ASCII, since such a path cannot be spelled inside the quotes."""
    text = str(path)
    bad = sorted({ch for ch in text if ch not in _PLAIN and ch != "?"} | ({'"'} & set(text)))
    if bad or "??" in text:
        raise ValueError(f"the path {comment_text(text)!r} cannot be #included: it holds {bad or ['??']!r}; "
                         "rename the file or directory to printable ASCII without quotes or backslashes")
    return text
