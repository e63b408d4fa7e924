"""HTML → Markdown-like lines (headings become `#` lines) → Markdown sections, with line numbers
mapped back to the HTML source."""
from __future__ import annotations

from html.parser import HTMLParser

from kernelwright.knowledge.chunking.markdown import split_markdown
from kernelwright.knowledge.chunking.sections import Section

_BLOCKS = {"p", "div", "li", "tr", "br", "pre", "table", "ul", "ol", "section", "article", "dt", "dd"}
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_SKIP = {"script", "style", "head", "nav", "footer"}


class _TextLines(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[tuple[int, str]] = []  # (source line, text)
        self._buf: list[str] = []
        self._buf_line = 1
        self._heading = 0
        self._skip = 0
        self._pre = 0

    def _flush(self) -> None:
        text = "".join(self._buf)
        for offset, line in enumerate(text.split("\n") if self._pre else [" ".join(text.split())]):
            if line.strip():
                prefix = "#" * self._heading + " " if self._heading else ""
                self.lines.append((self._buf_line + offset, prefix + line))
        self._buf = []

    def handle_starttag(self, tag, attrs) -> None:
        if tag in _SKIP:
            self._skip += 1
        elif tag in _HEADINGS:
            self._flush()
            self._heading = int(tag[1])
        elif tag in _BLOCKS:
            self._flush()
            self._pre += tag == "pre"

    def handle_endtag(self, tag) -> None:
        if tag in _SKIP:
            self._skip = max(0, self._skip - 1)
        elif tag in _HEADINGS:
            self._flush()
            self._heading = 0
        elif tag in _BLOCKS:
            self._flush()
            self._pre -= tag == "pre"

    def handle_data(self, data) -> None:
        if self._skip:
            return
        if not self._buf:
            self._buf_line = self.getpos()[0]
        self._buf.append(data)


def split_html(text: str) -> list[Section]:
    parser = _TextLines()
    parser.feed(text)
    parser.close()
    parser._flush()
    if not parser.lines:
        return []
    source_line = [line for line, _ in parser.lines]
    sections = split_markdown("\n".join(text for _, text in parser.lines))
    for section in sections:
        section.line_start = source_line[section.line_start - 1]
        section.line_end = source_line[min(section.line_end, len(source_line)) - 1]
    return sections
