"""Chunking with provenance: headings, declaration names and line ranges per file type."""
from __future__ import annotations

from pathlib import Path

import pytest

from kernelwright.knowledge.chunking import UnsupportedDocument, split_document

HEADER = """// Copyright notice
#ifndef KW_H
#define KW_H
namespace AscendC {
/// Adds two tensors element by element.
template <typename T> __aicore__ inline void Add(const LocalTensor<T>& dst, const LocalTensor<T>& a,
                                                 const LocalTensor<T>& b, const int32_t& count);
struct DataCopyParams {
    uint16_t blockCount = 1;
    DataCopyParams(uint16_t c) { blockCount = c; }
};
enum class RoundMode : uint8_t { CAST_NONE = 0, CAST_RINT };
}
#endif
"""


def test_headers_split_by_declaration_with_names_and_lines():
    sections = split_document(Path("kernel_operator.h"), HEADER)
    text = "\n".join(s.text for s in sections)
    heading = ", ".join(s.heading for s in sections)
    assert "AscendC::Add()" in heading and "struct AscendC::DataCopyParams" in heading and "enum AscendC::RoundMode" in heading
    assert "Adds two tensors" in text  # the doc comment travels with its declaration
    assert sections[0].line_start == 3 and sections[-1].line_end == 12


def test_large_headers_split_into_several_sections():
    body = "\n".join(f"void Func{i}(int a{i}, int b{i});  // declaration number {i}" for i in range(200))
    sections = split_document(Path("big.hpp"), body)
    assert len(sections) > 5
    assert sections[0].line_start == 1 and sections[-1].line_end == 200
    assert all(s.line_start <= s.line_end for s in sections)


def test_markdown_sections_follow_headings_not_code_fences():
    md = "# Title\nintro\n\n## Part A\ntext a\n```\n# not a heading\n```\n## Part B\ntext b\n"
    sections = split_document(Path("notes.md"), md)
    assert [(s.heading, s.line_start, s.line_end) for s in sections] == [
        ("Title", 1, 2), ("Title > Part A", 4, 8), ("Title > Part B", 9, 10)]  # trailing blank lines excluded


def test_html_maps_back_to_source_lines():
    html = "<html><head><title>t</title></head><body>\n<h1>Guide</h1>\n<p>first\nparagraph</p>\n<h2>Details</h2>\n<p>more</p>\n</body></html>"
    sections = split_document(Path("guide.html"), html)
    assert [(s.heading, s.line_start) for s in sections] == [("Guide", 2), ("Guide > Details", 5)]
    assert "first paragraph" in sections[0].text


def test_plain_text_and_unsupported_types():
    sections = split_document(Path("notes.txt"), "alpha line\nbeta\n\ngamma\n")
    assert sections[0].heading == "alpha line" and sections[0].line_start == 1
    with pytest.raises(UnsupportedDocument, match=r"\.pdf"):
        split_document(Path("manual.pdf"), "x")
