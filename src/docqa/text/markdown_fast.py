"""Markdown to headings and blocks with pyromark (pulldown-cmark): the fast path.

The spec is :mod:`docqa.text.markdown` (markdown-it-py); this module gives the same headings
and blocks, tested equal on the golden files, the sample library, generated documents and
real documentation. Chosen by measurement (``benchmarks/bench_parsers.py``): pyromark's
event stream with source ranges parses tens of MB/s against markdown-it-py's ~1-3 MB/s.

How the two are made to agree:

- the text is normalised as markdown-it does first (``\\r\\n`` and ``\\r`` to ``\\n``, NUL
  to U+FFFD), so line numbers mean the same thing;
- front matter is recognised by the rule of ``mdit_py_plugins.front_matter`` (ported in
  ``split_front_matter``) and blanked out line for line before parsing;
- a block's first line is the line of its first event's start (ranges are UTF-8 byte
  offsets); inside it, as in ``markdown.inline_lines``, the line advances at each soft or
  hard break and at each newline inside inline HTML;
- text directly inside a list item (a tight list has no paragraph events) is a paragraph,
  ended by the next block-level event.
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from docqa.text.documents import Block, Heading, Line
from docqa.text.html import html_fragment_blocks
from docqa.text.markdown import front_matter_mapping

_NEWLINES = re.compile(r"\r\n?")
_NEWLINE = re.compile(b"\n")
_INLINE_STARTS = frozenset(
    {"Emphasis", "Strong", "Strikethrough", "Link", "Image", "Superscript", "Subscript"}
)
_LEVELS = {f"H{n}": n for n in range(1, 7)}


def split_front_matter(text: str) -> tuple[str | None, str]:
    """``(front matter text or None, the text with the front matter lines blanked)``."""
    if not text.startswith("---"):
        return None, text
    lines = text.split("\n")
    marks = len(lines[0]) - len(lines[0].lstrip("-"))
    for j in range(1, len(lines)):
        line = lines[j]
        body = line.lstrip(" \t")
        indent = len(line) - len(body)
        if indent == 0 and body.startswith("...") and not body[3:].strip(" "):
            break
        if indent < 4 and body.startswith("-"):
            dashes = len(body) - len(body.lstrip("-"))
            if dashes >= marks and not body[dashes:].strip(" \t"):
                break
    else:
        return None, text
    return "\n".join(lines[1:j]), "\n" * (j + 1) + "\n".join(lines[j + 1 :])


class _Walker:
    """Turns pyromark's ``(event, range)`` stream into headings and blocks."""

    def __init__(self, source: bytes) -> None:
        self.newlines = [m.start() for m in _NEWLINE.finditer(source)]
        self.items: list[Heading | Block] = []
        self.parts: dict[int, list[str]] | None = None  # the open inline run, by line
        self.line = 0
        self.heading: tuple[int, int] | None = None  # (level, line)
        self.code: tuple[int, list[str]] | None = None  # (first line, texts)
        self.html: tuple[int, list[str]] | None = None
        self.rows: list[Line] | None = None
        self.cells: list[str] = []
        self.row_line = 0

    def line_of(self, offset: int) -> int:
        return bisect.bisect_left(self.newlines, offset) + 1

    def lines(self) -> list[Line]:
        """The open inline run as lines (whitespace collapsed, empty ones dropped); closes it."""
        parts, self.parts = self.parts or {}, None
        joined = ((n, " ".join("".join(p).split())) for n, p in parts.items())
        return [Line(n, text) for n, text in joined if text]

    def inline(self, offset: int) -> dict[int, list[str]]:
        if self.parts is None:
            self.parts, self.line = {}, self.line_of(offset)
        return self.parts

    def flush(self) -> None:
        """End a bare paragraph (text straight inside a list item)."""
        if self.parts is not None and self.heading is None and self.rows is None:
            self.items.append(Block("text", tuple(self.lines())))

    def text(self, value: str, offset: int) -> None:
        if self.code is not None:
            self.code[1].append(value)
        elif self.html is not None:
            self.html[1].append(value)
        else:
            self.inline(offset).setdefault(self.line, []).append(value)

    def start(self, tag: Any, offset: int) -> None:
        name = tag if isinstance(tag, str) else next(iter(tag))
        if name in _INLINE_STARTS:
            self.inline(offset)
            return
        self.flush()
        if name == "Heading":
            self.heading = (_LEVELS[tag["Heading"]["level"]], self.line_of(offset))
            self.parts, self.line = {}, self.heading[1]
        elif name == "CodeBlock":
            fenced = isinstance(tag["CodeBlock"], dict)
            self.code = (self.line_of(offset) + fenced, [])
        elif name == "HtmlBlock":
            self.html = (self.line_of(offset), [])
        elif name == "Table":
            self.rows = []
        elif name in ("TableHead", "TableRow"):
            self.cells, self.row_line = [], self.line_of(offset)
        elif name in ("TableCell", "Paragraph"):
            self.parts, self.line = {}, self.line_of(offset)

    def end(self, tag: Any) -> None:
        name = tag if isinstance(tag, str) else next(iter(tag))
        if name in _INLINE_STARTS:
            return
        if name == "Heading" and self.heading is not None:
            level, line = self.heading
            self.heading = None
            self.items.append(Heading(" ".join(x.text for x in self.lines()), level, line))
        elif name == "CodeBlock" and self.code is not None:
            self.items.append(Block("code", tuple(_code_lines(*self.code))))
            self.code = None
        elif name == "HtmlBlock" and self.html is not None:
            first, parts = self.html
            self.html = None
            self.items.extend(html_fragment_blocks("".join(parts), first_line=first))
        elif name == "TableCell":
            self.cells.append(" ".join(x.text for x in self.lines()))
        elif name in ("TableHead", "TableRow") and self.rows is not None:
            self.rows.append(Line(self.row_line, "| " + " | ".join(self.cells) + " |"))
        elif name == "Table" and self.rows is not None:
            self.items.append(Block("table", tuple(self.rows)))
            self.rows = None
        else:
            self.flush()


def _code_lines(first: int, texts: list[str]) -> list[Line]:
    """Code lines as ``markdown._code_lines`` cuts them."""
    content = "".join(texts)
    lines = [Line(first + i, text.rstrip()) for i, text in enumerate(content.split("\n"))]
    while lines and not lines[-1].text.strip():
        lines.pop()
    while lines and not lines[0].text.strip():
        lines.pop(0)
    return lines


def _walk(text: str) -> list[Heading | Block]:
    import pyromark

    options = pyromark.Options.ENABLE_TABLES
    walker = _Walker(text.encode("utf-8"))
    event: Any
    for event, where in pyromark.events_with_range(text, options=options):
        if event.__class__ is str:
            if event == "SoftBreak" or event == "HardBreak":
                walker.inline(where["start"])
                walker.line += 1
            else:
                walker.flush()
            continue
        ((kind, value),) = event.items()
        if kind == "Text":
            parts = walker.parts
            if parts is not None and walker.code is None and walker.html is None:
                parts.setdefault(walker.line, []).append(value)  # the common case
            else:
                walker.text(value, where["start"])
        elif kind == "Start":
            walker.start(value, where["start"])
        elif kind == "End":
            walker.end(value)
        elif kind == "Code" or kind == "Html":
            walker.text(value, where["start"])
        elif kind == "InlineHtml":
            walker.inline(where["start"])
            walker.line += value.count("\n")
    walker.flush()
    return walker.items


def parse_markdown_fast(text: str) -> tuple[dict[str, Any], list[Heading | Block]]:
    """``docqa.text.markdown.parse_markdown``, faster: ``(front matter, headings and blocks)``.

    Raises ``InputError`` when the front matter is not a valid YAML mapping.
    """
    text = _NEWLINES.sub("\n", text).replace("\0", "\ufffd")
    matter, body = split_front_matter(text)
    metadata = front_matter_mapping(matter) if matter is not None else {}
    return metadata, _walk(body)
