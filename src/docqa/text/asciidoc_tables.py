"""AsciiDoc's tables as ``"table"`` blocks (:func:`docqa.text.documents.table_block`): a
header row, then one ``| cell | cell |`` line per row, however the source lays the cells out.

- ``|===`` (and ``!===`` nested): cells begin at each ``|`` (``!``), on one line or on many
  (``|Book`` / ``|3`` is one row of two cells in a two-column table); a line that begins with
  no separator goes on with the cell before it. A row holds as many cells as the table has
  columns: those ``cols`` names (``cols="1,2"``, ``cols="3*"``), else the cells of the first
  line. A cell's specifier (``2+|``, ``a|``, ``^.^|``) is dropped; ``2+`` makes it fill two
  columns, ``3*`` stands for the cell three times.
- ``,===`` (CSV) and ``:===`` (DSV): a row a line.

The first row is the header when the table says so (``options="header"``, ``%header``), or
when it stands alone on the first line with a blank line under it, as Asciidoctor decides;
``%noheader`` says it is not. A table with no header gets one of empty cells. Pure functions.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable

from docqa.text.documents import Block, Row, table_block
from docqa.text.numbered_lines import Lines

# a cell's specifier: duplication (3*) or span (2+, .2+, 2.3+), alignment, style
_SPEC = r"(?:(?P<times>\d+)\*|(?P<span>\d+)?(?:\.\d+)?\+)?(?:[<^>]?(?:\.[<^>])?)?[adehlmsv]?"
_CELL_SPEC = re.compile(_SPEC)
_CELL_SPEC_END = re.compile(r"[ \t]+" + _SPEC + "$")  # "|a|b" is two cells, not a spec
# at most this many columns, and copies of a cell (``3*|``): a table wider is not read wider
MAX_COLUMNS = 100
_COLS = re.compile(r"""(?:^|,)\s*cols\s*=\s*(?:"([^"]*)"|'([^']*)'|([^,\s]*))""")
_HEADER = re.compile(r"(?:^|,)\s*(?:options|opts)\s*=\s*[\"']?[^\"']*\bheader\b|%header")


def adoc_table(
    inner: Lines, separator: str, attributes: str, read: Callable[[str], str]
) -> Block | None:
    """The table of a delimited block's ``inner`` lines (``separator``: ``|``, ``!``, ``,`` or
    ``:``; ``attributes``: its block attribute line's text), each cell's text read by
    ``read`` (attribute references and inline markup)."""
    first = next((j for j, (_, t) in enumerate(inner) if t.strip()), None)
    if first is None:
        return None
    if separator in ",:":
        rows, whole = _lines_rows(inner, separator), True
    else:
        cells = _cells(inner, separator)
        on_first = sum(width for n, width, _ in cells if n == inner[first][0])
        columns = _columns(attributes) or on_first
        rows, whole = _cell_rows(cells, columns), on_first >= columns
    blank_under = first + 1 < len(inner) and not inner[first + 1][1].strip()
    header = "noheader" not in attributes and (
        _HEADER.search(attributes) is not None or blank_under and whole
    )
    shown = [(n, [read(c) for c in cells]) for n, cells in rows]
    return table_block(shown[: int(header)], shown[int(header) :])


def _columns(attributes: str) -> int | None:
    """The number of columns ``cols`` names (``"1,2"``: 2; ``"3*"``: 3; ``"2*,1"``: 3;
    ``",>,>"``: 3, git's reftable pages)."""
    found = _COLS.search(attributes)
    if found is None:
        return None
    spec = next(g for g in found.groups() if g is not None).strip()
    if spec.isdigit():
        return min(int(spec), MAX_COLUMNS) or None
    total = 0
    for part in re.split(r"[,;]", spec):  # an empty spec is a column too (``",>,>"``: 3)
        times = re.match(r"\s*(\d+)\*", part)
        total += int(times.group(1)) if times else 1
    return min(total, MAX_COLUMNS)


def _cells(inner: Lines, separator: str) -> list[tuple[int, int, str]]:
    """Every cell of a ``|===`` table in order: ``(first line, columns it fills, text)``."""
    split = re.compile(rf"(?<!\\){re.escape(separator)}")
    cells: list[tuple[int, int, str]] = []
    for number, text in inner:
        pieces = split.split(text)
        if len(pieces) == 1 or not _CELL_SPEC.fullmatch(pieces[0].strip()):
            if cells:  # no cell begins here: the line goes on with the cell before
                n, width, before = cells[-1]
                cells[-1] = (n, width, f"{before}\n{pieces[0]}")
            pieces = pieces[1:] if len(pieces) > 1 else []
            spec = _CELL_SPEC.fullmatch("")
        else:
            spec = _CELL_SPEC.fullmatch(pieces[0].strip())
            pieces = pieces[1:]
        for j, piece in enumerate(pieces):
            after = _CELL_SPEC_END.search(piece) if j + 1 < len(pieces) else None
            body = piece[: after.start()] if after is not None else piece
            assert spec is not None  # every specifier pattern matches ""
            span = int(spec.group("span") or 1) if spec.group(0).endswith("+") else 1
            times = min(int(spec.group("times") or 1), MAX_COLUMNS)
            cells += [(number, span, body.replace(f"\\{separator}", separator))] * times
            spec = after if after is not None else _CELL_SPEC.fullmatch("")
    return cells


def _cell_rows(cells: list[tuple[int, int, str]], columns: int) -> list[Row]:
    """A ``|===`` table's ``cells`` as rows of ``columns`` columns each."""
    rows: list[Row] = []
    filled = columns
    for number, width, text in cells:
        if filled >= columns:
            rows.append((number, []))
            filled = 0
        rows[-1][1].append(text)
        filled += width
    return rows


def _lines_rows(inner: Lines, separator: str) -> list[Row]:
    """A CSV (``,``) or DSV (``:``) table's rows, a line each."""
    rows: list[Row] = []
    for number, text in inner:
        if not text.strip():
            continue
        if separator == ",":
            cells = next(csv.reader([text], skipinitialspace=True), [])
        else:
            cells = re.split(r"(?<!\\):", text)
        rows.append((number, [c.strip() for c in cells]))
    return rows
