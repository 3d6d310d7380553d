"""reStructuredText's tables as their rows of cells' source text; the reader reads each cell
as reStructuredText and writes the table as every reader does
(:func:`docqa.text.documents.table_block`: a header row, then ``| cell | cell |`` a row), so
the answer reads each row as one sentence naming its columns
(:func:`docqa.models.blocks.table_rows`: ``Target Type: LIBRARY; Built-In Default: lib``).

- a grid table (``+---+`` borders, ``|`` between cells): a row is every line between two
  borders, each cell's lines joined (a cell wrapped over three lines is one cell); cells a
  row spans (no ``|`` at a column's edge) are one; the rows above a ``+===+`` border are the
  header;
- a simple table (``=====  =====`` borders): cells cut at the columns of the top border; a
  line whose first column is blank goes on with the row above; the rows above a border in the
  middle are the header;
- ``.. csv-table::``: its body read as CSV (``:delim:``; quoted cells may hold the delimiter
  or a line break), its header from ``:header:`` or its first ``:header-rows:`` rows;
- ``.. list-table::``: a list of rows, each a list of cells; ``:header-rows:`` as for CSV.

Pure functions.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from itertools import pairwise

from docqa.text.documents import Row
from docqa.text.numbered_lines import Lines, dedent, indent

GRID_BORDER = re.compile(r"\+(?:[-=]+\+)+")
SIMPLE_BORDER = re.compile(r"=+(?: +=+)+|=+")
_SIMPLE_RULE = re.compile(r"[-=]+(?: +[-=]+)*")
_INNER_BORDER = re.compile(r"[-=+]*[-=][-=+]*")
_LIST_ITEM = re.compile(r"[*+-](?: +|$)")
_DELIMITERS = {"tab": "\t", "space": " "}


Table = tuple[list[Row], list[Row]]
"""A table's header rows (none, one or more, merged when written) and body rows."""


def grid_table(lines: Lines, i: int) -> tuple[Table, int]:
    """The grid table whose top border is line ``i``, and the line after it."""
    end = i
    while end < len(lines) and lines[end][1].startswith(("+", "|")):
        end += 1
    # a column's edge is a "+" in any border (a cell's sub-columns show only in the later ones)
    borders = (t for _, t in lines[i:end] if GRID_BORDER.fullmatch(t))
    edges = sorted({m.start() for t in borders for m in re.finditer(r"\+", t)})
    header: list[Row] = []
    rows: list[Row] = []
    group: Lines = []
    for n, text in lines[i + 1 : end]:
        if not GRID_BORDER.fullmatch(text):
            group.append((n, text))
            continue
        if group:
            rows.append(_grid_row(group, edges))
            group = []
        if "=" in text and not header:
            header, rows = rows, []
    if group:  # no closing border: the lines read so far are a row
        rows.append(_grid_row(group, edges))
    return (header, rows), end


def _grid_row(group: Lines, edges: list[int]) -> Row:
    """The cells of a grid table's row (its lines ``group``), cut at each inner column edge
    where every line has a ``|`` or ``+`` (elsewhere a cell spans the edge); the last cell runs
    to the line's end, its closing ``|`` dropped; a border inside a cell (``+---+---+`` under a
    header cell over sub-columns) is no text."""
    width = max(edges[-1] + 1, *(len(t) for _, t in group))
    padded = [t.ljust(width) for _, t in group]
    cuts = [edges[0], *(e for e in edges[1:-1] if all(t[e] in "|+" for t in padded)), width]

    def cell(t: str, a: int, b: int) -> str:
        text = t[a + 1 : b].rstrip()
        text = (text.removesuffix("|") if b == width else text).strip()
        return "" if _INNER_BORDER.fullmatch(text) else text

    cells = ["\n".join(cell(t, a, b) for t in padded).strip() for a, b in pairwise(cuts)]
    return group[0][0], cells


def simple_table(lines: Lines, i: int) -> tuple[Table, int]:
    """The simple table whose top border is line ``i``, and the line after it: it ends at a
    border followed by a blank line or the end."""
    starts = [m.start() for m in re.finditer(r"=+", lines[i][1])]
    header: list[Row] = []
    rows: list[Row] = []
    end = i + 1
    while end < len(lines):
        n, text = lines[end]
        end += 1
        if SIMPLE_BORDER.fullmatch(text):
            if end >= len(lines) or not lines[end][1]:
                break
            if not header:
                header, rows = rows, []
            continue
        if not text or _SIMPLE_RULE.fullmatch(text):
            continue
        cells = [text[a:b].strip() for a, b in zip(starts, [*starts[1:], len(text)])]
        cells += [""] * (len(starts) - len(cells))
        if rows and not cells[0]:  # the first column blank: the row above goes on
            rows[-1] = (rows[-1][0], [f"{a}\n{b}".strip() for a, b in zip(rows[-1][1], cells)])
        else:
            rows.append((n, cells))
    return (header, rows), end


def header_rows(options: dict[str, str]) -> int:
    """A table directive's ``:header-rows:`` (0 when absent or not a number)."""
    value = options.get("header-rows", "0").strip()
    return int(value) if value.isdigit() else 0


def csv_table(body: Lines, options: dict[str, str]) -> Table:
    """A ``csv-table`` directive's table (its body dedented, its options by name); no rows for
    one whose data is in another file."""
    delimiter = options.get("delim", ",").strip() or ","
    delimiter = _DELIMITERS.get(delimiter, delimiter[0])
    rows = _csv_rows([(n, t) for n, t in body if t.strip()], delimiter)
    if not rows:  # its data in another file (``:file:``, ``:url:``), not read
        return [], []
    given = options.get("header", "").strip()
    if given:
        header = [(rows[0][0], _csv_rows([(rows[0][0], given)], ",")[0][1])]
    else:
        count = header_rows(options)
        header, rows = rows[:count], rows[count:]
    return header, rows


def _csv_rows(lines: Lines, delimiter: str) -> list[Row]:
    """``lines`` read as CSV records, each numbered by its first line (a quoted cell may hold a
    line break)."""
    numbers = [n for n, _ in lines]
    reader = csv.reader((t for _, t in lines), delimiter=delimiter, skipinitialspace=True)
    out: list[Row] = []
    seen = 0
    for record in reader:
        out.append((numbers[seen], [c.strip() for c in record]))
        seen = reader.line_num
    return out


def list_table(body: Lines, options: dict[str, str]) -> Table:
    """A ``list-table`` directive's table: its body (dedented) a list of rows, each a list of
    cells."""
    rows = [(n, [_joined(cell) for _, cell in _items(row)]) for n, row in _items(body)]
    rows = [(n, cells) for n, cells in rows if cells]
    count = header_rows(options)
    return rows[:count], rows[count:]


def _items(lines: Lines) -> Iterator[tuple[int, Lines]]:
    """The items of a bullet list at the margin of ``lines``: each item's first line number and
    its lines without the bullet (the first) or the bullet's indentation (the others); lines
    before the first item and text at the margin that is no item are left out."""
    number: int | None = None
    item: Lines = []
    for n, text in lines:
        bullet = _LIST_ITEM.match(text)
        if bullet is not None:
            if number is not None:
                yield number, dedent(item)
            number, item = n, [(n, " " * bullet.end() + text[bullet.end() :])]
        elif number is not None and (not text or indent(text)):
            item.append((n, text))
    if number is not None:
        yield number, dedent(item)


def _joined(lines: Lines) -> str:
    return "\n".join(t for _, t in lines).strip()
