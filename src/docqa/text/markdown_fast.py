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

Two native walks give these rules. Where the md4c library was found at build time,
``docqa._md4c`` walks md4c's C callbacks (pointers into the UTF-8 text, no Python object per
event; md4c gives no block offsets, so a block's first line comes from its first text in the
source, less the breaks before it); a document whose lines that cannot tell for sure (an empty
ATX heading, a table of empty cells, an empty link before a paragraph's first text, ...) is
handed back to the second walk, ``docqa._parse.walk_markdown`` over pyromark's events, which
is also the whole path when md4c is absent. Both are tested equal to the spec.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from docqa.text.documents import Block, Heading
from docqa.text.frontmatter import front_matter_mapping
from docqa.text.html import html_fragment_blocks

_NEWLINES = re.compile(r"\r\n?")
_PREFIX = re.compile(r"[ \t>]*")  # a line's indentation and block quote marks
# lines that end a table's body for markdown-it: HTML, a heading, a fence, a list item, a rule
_ENDS_TABLE = re.compile(r"[<#]|```|~~~|[-+*](?:[ \t]|$)|[0-9]{1,9}[.)](?:[ \t]|$)|([-*_])[ \t]*(?:\1[ \t]*){2,}$")
_DELIMITER_CELL = re.compile(r":?-+:?")
# HTML blocks of CommonMark's kinds 1-5, which end at the first line holding their end mark
_HTML_ENDS = (
    (re.compile(r" {0,3}<(?:script|pre|style|textarea)(?:[ \t>]|$)", re.IGNORECASE), None),
    (re.compile(r" {0,3}<!--"), "-->"),
    (re.compile(r" {0,3}<\?"), "?>"),
    (re.compile(r" {0,3}<![A-Za-z]"), ">"),
    (re.compile(r" {0,3}<!\[CDATA\["), "]]>"),
)
_RAW_END = re.compile(r"</(?:script|pre|style|textarea)>", re.IGNORECASE)


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


@lru_cache(maxsize=4096)
def _entity(raw: bytes) -> bytes:
    """The UTF-8 of an entity reference (``b"&amp;"``) as markdown-it decodes it: a known name
    or a valid code point, else U+FFFD for a number and the reference itself for a name."""
    from markdown_it.common.entities import entities
    from markdown_it.common.utils import isValidEntityCode

    body = raw[1:-1].decode("ascii")
    if not body.startswith("#"):
        known = entities.get(body) if 2 <= len(body) <= 32 else None
        return raw if known is None else known.encode("utf-8")
    code = int(body[2:], 16) if body[1:2] in ("x", "X") else int(body[1:])
    return (chr(code) if isValidEntityCode(code) else "\ufffd").encode("utf-8")


def _delimiter_columns(line: str) -> int:
    """The columns of a table's delimiter row as markdown-it reads it, 0 when it is not one."""
    if line[:1] not in ("|", "-", ":") or line[1:2] not in ("|", "-", ":", " ", "\t"):
        return 0
    if line.startswith(("- ", "-\t")) or line.strip("|-: \t"):
        return 0
    cells = [cell.strip(" \t") for cell in line.split("|")]
    inner = cells[1:-1] if len(cells) > 1 else cells
    if not all(inner) or not all(_DELIMITER_CELL.fullmatch(c) for c in cells if c):
        return 0
    return sum(1 for cell in cells if cell)


def _cells(line: str) -> list[str] | None:
    """markdown-it's cells of a table row; ``None`` when a code span may hold a pipe."""
    from markdown_it.rules_block.table import escapedSplit

    found = escapedSplit(line.strip(" \t"))
    if found and not found[0]:
        found.pop(0)
    if found and not found[-1]:
        found.pop()
    return None if any(cell.count("`") % 2 for cell in found) else found


def table_agrees(lines: list[str], header_cells: int, followed: bool) -> bool:
    """Whether markdown-it reads the table md4c found in these source lines (header,
    delimiter row, body rows, then the line after when ``followed``) as the same rows: the
    same columns, every body row one it keeps (same indentation and quote marks as the
    header, not a line that ends a table), and no line after that it could take as a row."""
    prefix = _PREFIX.match(lines[0])
    assert prefix is not None  # the pattern matches the empty string
    header, delimiter, *rows = (line[len(prefix[0]) :] for line in lines)
    after = rows.pop() if followed else ""
    if not all(line.startswith(prefix[0]) for line in lines[: len(lines) - followed]):
        return False
    columns = _cells(header)
    if columns is None or "|" not in header.strip(" \t"):
        return False
    if not len(columns) == header_cells == _delimiter_columns(delimiter.rstrip(" \t")):
        return False
    for row in rows:
        if _PREFIX.match(row)[0] or _ENDS_TABLE.match(row) or _cells(row) is None:  # type: ignore[index]
            return False
    return not after.strip(" \t>")


def html_block(content: str, first_line: int) -> list[Heading | Block] | None:
    """``html_fragment_blocks`` of an HTML block md4c found, or ``None`` when markdown-it
    would end it sooner (md4c 0.4.8 joins a block of kinds 1-5 to the next one)."""
    lines = content.rstrip("\n").split("\n")
    for start, end in _HTML_ENDS if len(lines) > 1 else ():
        if start.match(lines[0]):
            ends = [bool(_RAW_END.search(x)) if end is None else end in x for x in lines]
            if any(ends[:-1]):
                return None
            break
    return html_fragment_blocks(content, first_line=first_line)


def _md4c() -> Any:
    """``docqa._md4c.walk_md4c``, or ``None`` when the package was built without md4c."""
    try:
        from docqa._md4c import walk_md4c
    except ImportError:
        return None
    return walk_md4c


def walk_pyromark(text: str) -> list[Heading | Block]:
    """Headings and blocks of ``text`` (normalised, front matter blanked) via pyromark."""
    import pyromark

    from docqa._parse import walk_markdown

    events = pyromark.events_with_range(text, options=pyromark.Options.ENABLE_TABLES)
    return walk_markdown(events, text.encode("utf-8"), html_fragment_blocks)


def walk_md4c(text: str) -> list[Heading | Block] | None:
    """The same via md4c; ``None`` when md4c is absent or hands the document back."""
    walk = _md4c()
    if walk is None:
        return None
    source = text.encode("utf-8")
    found: list[Heading | Block] | None = walk(source, html_block, _entity, table_agrees)
    return found


def _walk(text: str) -> list[Heading | Block]:
    found = walk_md4c(text)
    return walk_pyromark(text) if found is None else found


def parse_markdown_fast(text: str) -> tuple[dict[str, Any], list[Heading | Block]]:
    """``docqa.text.markdown.parse_markdown``, faster: ``(front matter, headings and blocks)``.

    Raises ``InputError`` when the front matter is not a valid YAML mapping.
    """
    text = _NEWLINES.sub("\n", text).replace("\0", "\ufffd")
    matter, body = split_front_matter(text)
    metadata = front_matter_mapping(matter) if matter is not None else {}
    return metadata, _walk(body)
