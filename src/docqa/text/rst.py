"""reStructuredText (Sphinx's and docutils') to a parser's stream of headings and blocks.

What becomes what:

- section titles (a line underlined, or over- and underlined, with one repeated punctuation
  character) -> ``Heading``; levels follow the order the styles first appear in, as docutils
  assigns them (the first style, the page's title, level 1);
- paragraphs, list items, field lists, definitions, block quotes, line blocks, footnotes ->
  ``"text"`` blocks of their shown text (``docqa.text.rst_inline``);
- literal blocks (after ``::``), doctest blocks (``>>>``) and code directives
  (``code-block``, ``doctest`` ...) -> ``"code"`` blocks, relative indentation kept;
- grid and simple tables, ``csv-table`` and ``list-table`` -> ``"table"`` blocks: a header
  row, then a ``| a | b |`` line per row, a cell wrapped over several lines one cell
  (``docqa.text.rst_tables``);
- directives: their body is read as reStructuredText, their arguments shown after their
  label (``.. versionadded:: 3.2`` -> "Added in version 3.2"; ``.. function:: walk(top)`` ->
  "walk(top)"), their options (``:caption:``) dropped; those that show nothing of their own
  (``toctree``, ``image``, ``include``) are dropped, as are comments, hyperlink targets and
  substitution definitions.

Written by hand rather than read with docutils, the reference parser: docutils knows none of
Sphinx's roles and directives (``:func:``, ``.. function::``, ``.. code-block::``, CMake's
``.. command::``), reports each as an error and keeps an unknown directive's text only inside
its error message (7,758 errors over 400 files of CMake's help), and it reads about 0.76 MB/s.
A line reader is enough here, because docqa needs the text a page shows and where its sections
begin, not a document tree. Lines keep their numbers.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator

from docqa.text.documents import Block, Heading, Line, Row, table_block, with_terms
from docqa.text.numbered_lines import Lines, dedent, indent, numbered
from docqa.text.rst_inline import (
    ADMONITIONS,
    CODE,
    HIDDEN_ARGUMENTS,
    LABELS,
    SILENT,
    inline_lines,
    inline_text,
)
from docqa.text.rst_tables import (
    GRID_BORDER,
    SIMPLE_BORDER,
    csv_table,
    grid_table,
    list_table,
    simple_table,
)

# the heading level of each title style met so far, (character, overlined) -> level; None in a
# body where no title may stand (a directive's, a list item's)
Styles = dict[tuple[str, bool], int] | None
# a construct's items; its return value is the line where the next construct begins
Construct = Generator[Heading | Block, None, int]

_ADORNMENT = re.compile(r"([!-/:-@\[-`{-~])\1+")
_DIRECTIVE = re.compile(r"\.\.\s+(?P<name>[\w][\w:+.-]*) ?::(?:\s+(?P<args>.*))?")
_TARGET = re.compile(r"\.\.\s+(?:_|\[|\|)")
_FOOTNOTE = re.compile(r"\.\.\s+\[(?:\d+|\#[\w-]*|\*|[A-Za-z][\w.-]*)\]\s*(?P<text>.*)")
_OPTION = re.compile(r":[\w][\w .-]*:(?:\s.*)?")
_BULLET = re.compile(r"[-*+•‣⁃](?:\s+|$)")
_ENUMERATED = re.compile(r"(?:\d+|#|[A-Za-z]|[ivxlcdm]+|[IVXLCDM]+)[.)]\s+|\((?:\d+|#|[a-z])\)\s+")
_FIELD = re.compile(r":(?P<name>[^:\s](?:[^:]*?[^:\s])?):(?:\s+(?P<body>.*))?")
# Sphinx's file-wide metadata fields (``:orphan:`` first on a page): settings, not text
_PAGE_METADATA = frozenset({"orphan", "nocomments", "nosearch", "tocdepth"})


def rst_items(text: str) -> list[Heading | Block]:
    """``text`` (reStructuredText) as headings and blocks (module doc)."""
    return list(_body(numbered(text), {}))


def _indented(lines: Lines, at: int, deeper: int = 1) -> int:
    """The end of the run of lines from ``at`` that are blank or indented ``deeper`` or more,
    trailing blank lines left out."""
    end = at
    for i in range(at, len(lines)):
        text = lines[i][1]
        if text and indent(text) < deeper:
            break
        if text:
            end = i + 1
    return end


def _body(lines: Lines, styles: Styles) -> Iterator[Heading | Block]:
    """The items of ``lines``, a body at the margin (a page, or a directive's dedented text)."""
    i = 0
    while i < len(lines):
        text = lines[i][1]
        if not text:
            i += 1
        elif indent(text):  # a block quote: indented text at the margin's level
            end = _indented(lines, i)
            yield from _body(dedent(lines[i:end]), None)
            i = end
        else:
            i = yield from _construct(lines, i, styles)


def _construct(lines: Lines, i: int, styles: Styles) -> Construct:
    """The construct starting at line ``i`` (at the margin); returns where the next begins."""
    number, text = lines[i]
    title = _title(lines, i) if styles is not None else None
    if title is not None and styles is not None:
        heading, style, end = title
        level = styles.setdefault(style, min(6, len(styles) + 1))
        yield Heading(" ".join(t.text for t in inline_lines([(number, heading)])), level, number)
        return end
    if text == ".." or text.startswith(".. "):
        return (yield from _explicit(lines, i))
    if GRID_BORDER.fullmatch(text) or SIMPLE_BORDER.fullmatch(text) and " " in text:
        rows, end = (grid_table if text[0] == "+" else simple_table)(lines, i)
        yield from _table(*rows)
        return end
    if len(text) >= 4 and _ADORNMENT.fullmatch(text):  # a transition
        return i + 1
    item = _BULLET.match(text) or _ENUMERATED.match(text)
    if item is not None:  # the marker is dropped, as the Markdown reader drops it
        return (yield from _item(lines, i, text[item.end() :], item.end()))
    field = _FIELD.fullmatch(text)
    if field is not None:
        name, value = field.group("name"), field.group("body") or ""
        if name.lower() in _PAGE_METADATA:
            return _indented(lines, i + 1)
        return (yield from _item(lines, i, f"{name}: {value}".rstrip(), None))
    if text.startswith("| ") or text == "|":
        return (yield from _line_block(lines, i))
    if text.startswith(">>>"):
        end = next((j for j in range(i, len(lines)) if not lines[j][1]), len(lines))
        yield Block("code", tuple(Line(n, t) for n, t in lines[i:end]))
        return end
    return (yield from _paragraph(lines, i))


def _title(lines: Lines, i: int) -> tuple[str, tuple[str, bool], int] | None:
    """``(text, style, next line)`` when a section title starts at line ``i``, else None."""
    text = lines[i][1]
    over = _ADORNMENT.fullmatch(text)
    if over is not None and i + 2 < len(lines):
        title, closing = lines[i + 1][1], lines[i + 2][1]
        if title.strip() and not _ADORNMENT.fullmatch(title.strip()) and closing == text:
            return title.strip(), (over.group(1), True), i + 3
        return None
    if i > 0 and lines[i - 1][1] or i + 1 >= len(lines):
        return None
    under_line = lines[i + 1][1]
    under = _ADORNMENT.fullmatch(under_line)
    if under is None or _ADORNMENT.fullmatch(text):
        return None
    if len(under_line) < len(text) and len(under_line) < 4:
        return None  # docutils: too short for the title, so text
    return text, (under.group(1), False), i + 2


def _explicit(lines: Lines, i: int) -> Construct:
    """A directive, a footnote, or something that shows nothing (a comment, a hyperlink target,
    a substitution definition)."""
    first = lines[i][1]
    if first == ".." and (i + 1 >= len(lines) or not lines[i + 1][1]):
        return i + 1  # an empty comment (it ends a list before a block quote)
    end = _indented(lines, i + 1)
    directive = _DIRECTIVE.fullmatch(first)
    if directive is not None:
        yield from _directive(directive, lines[i][0], dedent(lines[i + 1 : end]))
        return end
    footnote = _FOOTNOTE.fullmatch(first)
    if footnote is not None:
        shown = [(lines[i][0], footnote.group("text"))] if footnote.group("text") else []
        yield from _body([*shown, *dedent(lines[i + 1 : end])], None)
    return end  # a comment, a target (``.. _label:``), a substitution (``.. |name| image::``)


def _directive(found: re.Match[str], number: int, body: Lines) -> Iterator[Heading | Block]:
    """One directive: its label and arguments as a line, its body read; its options show
    nothing (a table directive's say where its header is)."""
    name = found.group("name").lower().rsplit(":", 1)[-1]
    first = found.group("args") or ""
    if name in SILENT:
        return
    if name in ADMONITIONS:  # no arguments: text after ``::`` begins the body
        yield Block("text", (Line(number, LABELS[name]),))
        yield from _body(dedent([(number, first)]) + body if first else body, None)
        return
    arguments = [(number, first)]
    while body and body[0][1] and not _OPTION.fullmatch(body[0][1]):  # arguments go on
        arguments.append(body.pop(0))
    options = {}  # by name: a table's (``:header-rows: 1``); the others show nothing
    while body and body[0][1] and _OPTION.fullmatch(body[0][1]):
        option, value = body.pop(0)[1][1:].split(":", 1)
        options[option.strip().lower()] = value
    if name in CODE:
        code = [(n, t) for n, t in dedent(body) if t]
        if code and name == "parsed-literal":  # a literal block whose inline markup is read
            shown_lines = inline_text("\n".join(t for _, t in code)).split("\n")
            code = [(n, t) for (n, _), t in zip(code, shown_lines, strict=True) if t.strip()]
        if code:
            yield Block("code", tuple(Line(n, t) for n, t in code))
        return
    if name in ("csv-table", "list-table"):
        yield from _table(
            *(csv_table if name == "csv-table" else list_table)(dedent(body), options)
        )
        return
    shown = [(n, t) for n, t in arguments if t] if name not in HIDDEN_ARGUMENTS else []
    if name in LABELS:  # "Added in version 3.2", and ":" when text follows
        more = len(shown) > 1 or any(t for _, t in body)
        shown = [(number, f"{LABELS[name]} {first}".rstrip() + ":" * more), *shown[1:]]
    lines = inline_lines(shown)
    if lines:
        yield Block("text", lines)
    yield from _body(body, None)


def _item(lines: Lines, i: int, first: str, width: int | None) -> Construct:
    """A list item or a field: ``first``, its first line's text after the marker, and the
    lines indented under it, read as a body (``width``: the marker's, which the item's lines
    are indented by; None to take their own common indentation)."""
    end = _indented(lines, i + 1)
    rest = lines[i + 1 : end]
    if width is None:
        rest = dedent(rest)
    else:
        rest = [(n, t[min(width, indent(t)) :]) for n, t in rest]
    yield from _body([(lines[i][0], first)] + rest if first else rest, None)
    return end


def _paragraph(lines: Lines, i: int) -> Construct:
    """A paragraph (lines at the margin up to a blank one). ``::`` at its end makes the
    indented block after it a literal block; an indented block right under its last line, with
    no blank line between, is read as a body; under a line of its own (a definition), the
    body's first paragraph is one block with that term (``with_terms``: "-S
    <path-to-source>: Path to root directory ...")."""
    end = i
    while end < len(lines) and lines[end][1] and not indent(lines[end][1]):
        end += 1
    paragraph = lines[i:end]
    n, last = paragraph[-1]
    literal = last.endswith("::")
    if literal:  # "text::" shows "text:"; "text ::" and "::" show no colon
        paragraph[-1] = (n, last[:-2].rstrip() if last == "::" or last[-3] == " " else last[:-1])
    shown = inline_lines(paragraph)
    term = [Block("text", shown)] if shown else []
    start = next((j for j in range(end, len(lines)) if lines[j][1]), len(lines))
    if start == len(lines) or not indent(lines[start][1]) or (start > end and not literal):
        yield from term
        return end
    stop = _indented(lines, start)
    if literal:
        yield from term
        code = [(n, t) for n, t in dedent(lines[start:stop]) if t]
        yield Block("code", tuple(Line(n, t) for n, t in code))
        return stop
    body = list(_body(dedent(lines[start:stop]), None))
    if len(paragraph) > 1:  # a definition's term is one line: this is a paragraph and a quote
        yield from [*term, *body]
    else:
        yield from with_terms(term, body)
    return stop


def _line_block(lines: Lines, i: int) -> Construct:
    """A line block (``| line``): each line's text."""
    end = i
    while end < len(lines) and (lines[end][1].startswith("| ") or lines[end][1] == "|"):
        end += 1
    shown = inline_lines([(n, t[2:]) for n, t in lines[i:end]])
    if shown:
        yield Block("text", shown)
    return end


def _table(header: list[Row], body: list[Row]) -> Iterator[Block]:
    """A table of cells given as source text: each cell read as reStructuredText (a cell may
    hold a list or a directive: Python's ``.. line-block::`` in a type's table), the blocks of
    one cell run together."""
    table = table_block(_read_cells(header), _read_cells(body))
    if table is not None:
        yield table


def _read_cells(rows: list[Row]) -> list[Row]:
    return [(n, [_cell(text) for text in cells]) for n, cells in rows]


def _cell(text: str) -> str:
    items = _body(dedent(numbered(text)), None) if text.strip() else ()
    return " ".join(item.text for item in items if isinstance(item, Block))
