"""Untrusted text on a terminal: kernel prints, compiler messages, model replies, task and file
names. Control characters (ESC sequences that clear the screen or move the cursor, carriage returns
that overwrite a line, bells, C1 controls) and invisible reordering characters (bidi overrides) are
shown as visible escapes, so nothing a kernel prints can redraw what we print. Newlines and tabs stay."""
from __future__ import annotations

import re

# C0 controls but \t and \n, DEL, C1 controls, and the Unicode format characters that reorder or hide text.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def printable(text: object) -> str:
    """`text` with every control or reordering character written as `\\xNN` / `\\uNNNN`."""
    return _UNSAFE.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}",
                       str(text))
