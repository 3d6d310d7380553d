"""The md4c walk of Markdown (``docqa._md4c``) and what it asks of Python.

``docqa._md4c.walk_md4c`` turns md4c's callbacks into the headings and blocks of
``docqa.text.markdown`` (the spec, markdown-it-py) and hands a document back (``None``) where
md4c 0.4.8 reads it differently or the line numbers are not sure. These functions decide the
rarer cases it meets, with markdown-it's own rules: an entity reference's text, whether
markdown-it reads a table md4c found as the same rows, and whether an HTML block md4c found
is one block to markdown-it too. Every build compiles ``docqa._md4c`` with md4c 0.4.8 from
``csrc/vendor/md4c``; in an install without it (built by other means) ``walk_md4c`` answers
``None``, the pyromark path parses (the same results, slower) and ``docqa index`` warns.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from docqa.text.documents import Block, Heading
from docqa.text.markdown_rules import HTML_TAG_RE, entities, escaped_split, valid_entity_code

# lines that end a table's body for markdown-it: HTML, a heading, a fence, a list item, a rule
_ENDS_TABLE = re.compile(
    r"[<#]|```|~~~|[-+*](?:[ \t]|$)|[0-9]{1,9}[.)](?:[ \t]|$)|([-*_])[ \t]*(?:\1[ \t]*){2,}$"
)
_DELIMITER_CELL = re.compile(r":?-+:?")
_BACKTICKS = re.compile(r"`+")
# HTML blocks of CommonMark's kinds 1-5, which end at the first line holding their end mark
_HTML_ENDS = (
    (re.compile(r" {0,3}<(?:script|pre|style|textarea)(?:[ \t>]|$)", re.IGNORECASE), None),
    (re.compile(r" {0,3}<!--"), "-->"),
    (re.compile(r" {0,3}<\?"), "?>"),
    (re.compile(r" {0,3}<![A-Za-z]"), ">"),
    (re.compile(r" {0,3}<!\[CDATA\["), "]]>"),
)
_RAW_END = re.compile(r"</(?:script|pre|style|textarea)>", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _entity(raw: bytes) -> bytes:
    """The UTF-8 of an entity reference (``b"&amp;"``) as markdown-it decodes it: a known name
    or a valid code point, else U+FFFD for a number and the reference itself for a name."""
    body = raw[1:-1].decode("ascii")
    if not body.startswith("#"):
        known = entities().get(body) if 2 <= len(body) <= 32 else None
        return raw if known is None else known.encode("utf-8")
    code = int("0" + body[1:], 0) if body[1:2] in ("x", "X") else int(body[1:])
    return (chr(code) if valid_entity_code(code) else "\ufffd").encode("utf-8")


def _prefix(line: str) -> str:
    """A line's indentation and block quote marks."""
    return line[: len(line) - len(line.lstrip(" \t>"))]


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


def split_cells(text: str) -> list[str]:
    """markdown-it's ``escapedSplit`` (the cells of a table row, split at each ``|`` not
    after a backslash, the backslash of ``\\|`` dropped): ``str.split`` where no pipe is
    escaped (the same cells, without a Python step per character), else the spec's rule
    (:func:`docqa.text.markdown_rules.escaped_split`, tested equal to markdown-it's)."""
    if "\\|" not in text:
        return text.split("|")
    return escaped_split(text)


def _cells(line: str) -> list[str] | None:
    """markdown-it's cells of a table row; ``None`` where md4c 0.4.8 may read it otherwise: a
    code span may hold a pipe or an escaped one (markdown-it drops the backslash of ``\\|``
    before it reads code spans, md4c keeps it), a pipe follows an escaped backslash, or two
    pipes make an empty cell."""
    if "||" in line or "\\\\|" in line or ("\\|" in line and "`" in line):
        return None
    found = split_cells(line.strip(" \t"))
    if found and not found[0]:
        found.pop(0)
    if found and not found[-1]:
        found.pop()
    return None if any(_open_code(cell) for cell in found) else found


def _open_code(cell: str) -> bool:
    """Whether a table cell may open a code span that closes past its pipe: a backtick run
    with no run of the same length after it in the cell, or an escaped backtick."""
    if "\\`" in cell:
        return True
    runs = [len(run) for run in _BACKTICKS.findall(cell)]
    i = 0
    while i < len(runs):
        if runs[i] not in runs[i + 1 :]:
            return True
        i = runs.index(runs[i], i + 1) + 1
    return False


def table_agrees(lines: list[str], header_cells: int, followed: bool) -> bool:
    """Whether markdown-it reads the table md4c found in these source lines (header,
    delimiter row, body rows, then the line after when ``followed``) as the same rows: the
    same columns, every body row one it keeps (same indentation and quote marks as the
    header, not a line that ends a table), and no line after that it could take as a row."""
    prefix = _prefix(lines[0])
    header, delimiter, *rows = (line[len(prefix) :] for line in lines)
    after = rows.pop() if followed else ""
    if not all(line.startswith(prefix) for line in lines[: len(lines) - followed]):
        return False
    columns = _cells(header)
    if columns is None or "|" not in header.strip(" \t"):
        return False
    if not len(columns) == header_cells == _delimiter_columns(delimiter.rstrip(" \t")):
        return False
    for row in rows:
        if _prefix(row) or _ENDS_TABLE.match(row) or _cells(row) is None:
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
    from docqa.text.html import html_fragment_blocks  # html.parser: imported when first met

    return html_fragment_blocks(content, first_line=first_line)


def inline_html(text: str) -> bool:
    """Whether markdown-it reads inline HTML (a tag, a comment, ...) at ``text``'s start."""
    return HTML_TAG_RE.match(text) is not None


def _native() -> Any:
    """``docqa._md4c.walk_md4c``, or ``None`` in an install without ``docqa._md4c``."""
    try:
        from docqa._md4c import walk_md4c
    except ImportError:
        return None
    return walk_md4c


def available() -> bool:
    """Whether ``docqa._md4c`` imports (every build compiles it)."""
    return _native() is not None


def walk_md4c(text: str) -> list[Heading | Block] | None:
    """The same via md4c; ``None`` when md4c is absent or hands the document back."""
    walk = _native()
    if walk is None:
        return None
    source = text.encode("utf-8")
    found: list[Heading | Block] | None = walk(
        source, html_block, _entity, table_agrees, inline_html
    )
    return found
