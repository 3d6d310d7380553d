"""Markdown to headings and blocks, with markdown-it-py (CommonMark + tables + front matter).

A real CommonMark parser, not regexes, so a ``#`` inside a code fence is code, never a
heading. What becomes what:

- YAML front matter (``---`` at the top) -> metadata via ``yaml.safe_load``, never text;
- headings (ATX and setext) -> ``Heading`` with their plain inline text;
- paragraphs, list items, block quotes -> ``"text"`` blocks of plain inline text (emphasis,
  link and image markup dropped, link text and image alt text kept);
- tables -> ``"table"`` blocks, one ``| a | b |`` line per row (the ``|---|`` rule dropped);
- fenced and indented code -> ``"code"`` blocks, one line per code line, fences dropped;
- HTML comments never reach the text: inline HTML tags and comments are dropped, raw HTML
  blocks go through the HTML extractor, which drops comments too.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from docqa.text.documents import Block, Heading, Line, table_row
from docqa.text.frontmatter import front_matter_mapping
from docqa.text.html import html_fragment_blocks


def _parser() -> MarkdownIt:
    """A CommonMark parser with GFM tables and front matter (built per call: no import work)."""
    return MarkdownIt("commonmark").enable("table").use(front_matter_plugin)


def front_matter(token: Token) -> dict[str, Any]:
    """The YAML mapping of a ``front_matter`` token; ``InputError`` when it is not one."""
    return front_matter_mapping(token.content)


def inline_lines(token: Token, skipped: int = 0) -> list[Line]:
    """The plain text of an ``inline`` token, line by line (1-based source line numbers);
    ``skipped``: the lines at its start its content lost (see :func:`_skipped`)."""
    assert token.map is not None  # markdown-it maps every block-level inline token
    number = token.map[0] + 1 + skipped
    lines: dict[int, list[str]] = {}
    for child in token.children or []:
        if child.type in ("softbreak", "hardbreak"):
            number += 1
        elif child.type in ("text", "code_inline"):
            lines.setdefault(number, []).append(child.content)
        elif child.type == "image":  # its alt text, entities decoded
            alt = (c.content for c in child.children or [] if c.type in ("text", "code_inline"))
            lines.setdefault(number, []).append("".join(alt))
        elif child.type == "html_inline":
            number += child.content.count("\n")
    return [
        Line(n, " ".join("".join(parts).split()))
        for n, parts in lines.items()
        if "".join(parts).strip()
    ]


def _code_lines(token: Token) -> list[Line]:
    """Code lines of a ``fence`` (content starts after the fence line) or ``code_block``."""
    assert token.map is not None
    first = token.map[0] + (2 if token.type == "fence" else 1)
    lines = [Line(first + i, text.rstrip()) for i, text in enumerate(token.content.split("\n"))]
    while lines and not lines[-1].text.strip():
        lines.pop()
    while lines and not lines[0].text.strip():
        lines.pop(0)
    return lines


def _table_rows(tokens: Sequence[Token], start: int) -> tuple[list[Line], int]:
    """Rows of the table opening at ``tokens[start]``; returns them and the index after it."""
    rows: list[Line] = []
    cells: list[str] = []
    number = 0
    i = start
    while tokens[i].type != "table_close":
        token = tokens[i]
        if token.type == "tr_open":
            assert token.map is not None  # markdown-it maps every table row
            number, cells = token.map[0] + 1, []
        elif token.type == "inline":
            cells.append(" ".join(line.text for line in inline_lines(token)))
        elif token.type == "tr_close":
            rows.append(Line(number, table_row(cells)))
        i += 1
    return rows, i + 1


def _skipped(token: Token, source: Sequence[str]) -> int:
    """How many lines at the start of the paragraph of ``token`` (an ``inline``) hold only
    whitespace that is not CommonMark's (an ideographic space, U+3000): markdown-it strips
    them from its content with ``str.strip``, so its first line is the next one."""
    assert token.map is not None
    start, end = token.map
    skipped = 0
    while start + skipped < end - 1 and source[start + skipped].isspace():
        skipped += 1
    return skipped


def _items(tokens: Sequence[Token], source: Sequence[str]) -> Iterator[Heading | Block]:
    """Walk the block tokens, yielding headings and blocks in source order (``source``: the
    text's lines, as markdown-it numbers them)."""
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type == "heading_open":
            assert token.map is not None
            text = " ".join(line.text for line in inline_lines(tokens[i + 1]))
            yield Heading(text, int(token.tag[1]), token.map[0] + 1)
            i += 3
            continue
        if token.type == "table_open":
            rows, i = _table_rows(tokens, i)
            yield Block("table", tuple(rows))
            continue
        if token.type == "inline":
            yield Block("text", tuple(inline_lines(token, _skipped(token, source))))
        elif token.type in ("fence", "code_block"):
            yield Block("code", tuple(_code_lines(token)))
        elif token.type == "html_block" and token.map is not None:
            yield from html_fragment_blocks(token.content, first_line=token.map[0] + 1)
        i += 1


def parse_markdown(text: str) -> tuple[dict[str, Any], list[Heading | Block]]:
    """Parse Markdown source into ``(front matter mapping, headings and blocks in order)``.

    Raises ``InputError`` when the front matter is not a valid YAML mapping.
    """
    tokens = _parser().parse(text)
    metadata: dict[str, Any] = {}
    if tokens and tokens[0].type == "front_matter":
        metadata = front_matter(tokens[0])
        tokens = tokens[1:]
    source = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return metadata, list(_items(tokens, source))
