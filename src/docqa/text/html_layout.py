"""Which tables lay a page out rather than hold data, and which of their cells are its
navigation: the first pass (``TableSurvey``) of ``docqa.text.html`` over a page that may be
built of tables, and the cheap regex pre-check (``may_lay_out``) that keeps every other page
off it. See ``docqa.text.html``'s module doc for what the parser then does with them."""

from __future__ import annotations

import re
from html.parser import HTMLParser

_HEADINGS = frozenset(f"h{level}" for level in range(1, 7))
CELLS = frozenset({"td", "th"})
# what marks a table as data whatever its shape: header cells, a header group, a caption
_DATA_MARKS = frozenset({"th", "thead", "caption"})
_LAYOUT_ROLES = frozenset({"presentation", "none"})
# a navigation cell of a layout table: this many links or more, this share of its text in them
NAV_CELL_LINKS = 3
NAV_CELL_LINK_SHARE = 0.5
# a cell with no link and at most this many words, in a table of navigation cells and such
# cells only, is that box's label ("Main Menu", "Related links") and goes with it
NAV_LABEL_WORDS = 3
# the tags the pre-check ``may_lay_out`` follows (a superset of what ``HTMLParser`` sees)
_TABLE_START = re.compile(r"<table\b", re.IGNORECASE)
_TABLE_TAGS = re.compile(r"<(/?)(table|h[1-6]|tr|td|th|thead|caption)\b", re.IGNORECASE)
_ROLE_LAYOUT = re.compile(r"[^>]*?\brole\s*=\s*[\"']?(?:presentation|none)\b", re.IGNORECASE)
# no layout tables and no navigation cells: what a page without layout tables has
NO_LAYOUT: tuple[frozenset[int], frozenset[int]] = (frozenset(), frozenset())


def may_lay_out(text: str) -> bool:
    """Whether ``text`` may hold a layout table (``TableSurvey``'s rules over a regex scan of
    the tags of its tables): False lets every page without one skip the survey, so the
    native scanner stays its path. It reads only from each top-level ``<table`` to its end.
    Tags inside comments or scripts count here too, which can only say True where the
    survey then finds nothing."""
    pos = 0
    while (start := _TABLE_START.search(text, pos)) is not None:
        if _ROLE_LAYOUT.match(text, start.end()):
            return True
        cells = widest = 0  # cells in the current row, in the widest one before it
        data = False
        for match in _TABLE_TAGS.finditer(text, start.end()):
            name = match.group(2).lower()
            if name == "table":
                if not match.group(1):
                    return True  # a table in a table
                pos = match.end()
                break
            if match.group(1):
                continue
            if name[0] == "h" and name[1:].isdigit():
                return True  # a heading in a table
            if name == "tr":
                widest, cells = max(widest, cells), 0
            else:
                cells += name in CELLS
                data = data or name in _DATA_MARKS
        else:
            pos = len(text)  # never closed: it runs to the end
        if not data and max(widest, cells) <= 1:
            return True
    return False


class TableSurvey(HTMLParser):
    """A first pass over a page that may be laid out with tables: which of its tables (by
    the order of their start tags) are layout, and which cells (by the order of theirs) are
    a layout table's navigation. A table is layout when it holds a heading or another table,
    has ``role="presentation"`` or ``"none"``, or has no header cell, header group or caption
    and one column (a one-row table of several cells stays data: gtk-doc's parameter rows).
    A navigation cell is a cell of a layout table that holds no table, no heading,
    ``NAV_CELL_LINKS`` links or more and at least ``NAV_CELL_LINK_SHARE`` of its text in
    them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        # per table: [cells in its widest row so far, in its current row, data, layout]
        self._tables: list[list[int]] = []
        self._open: list[int] = []  # the open tables, outermost first
        # per cell: [its table, characters, characters in links, links, holds a table or
        # heading, words]
        self._cells: list[list[int]] = []
        self._cell: int | None = None  # the open cell
        self._anchors: list[bool] = []  # the open ``a`` elements: whether each has an href
        self._quiet = 0  # open ``script`` and ``style`` elements

    def survey(self, text: str) -> tuple[frozenset[int], frozenset[int]]:
        """``(layout tables, navigation cells)`` of ``text``."""
        self.feed(text)
        self.close()
        layout = frozenset(
            i
            for i, (widest, cells, data, marked) in enumerate(self._tables)
            if marked or (not data and max(widest, cells) <= 1)
        )
        nav = {
            i
            for i, (table, chars, linked, links, held, _) in enumerate(self._cells)
            if table in layout
            and not held
            and links >= NAV_CELL_LINKS
            and linked >= NAV_CELL_LINK_SHARE * chars
        }
        labels = {  # short cells with no link: "Main Menu" above its links, or a number
            i
            for i, (_, _, _, links, held, words) in enumerate(self._cells)
            if not held and not links and words <= NAV_LABEL_WORDS
        }
        # a box: a table of navigation cells and labels only (the labels go with it)
        boxes = {self._cells[i][0] for i in nav} - {
            table for i, (table, *_) in enumerate(self._cells) if i not in nav | labels
        }
        return layout, frozenset(nav | {i for i in labels if self._cells[i][0] in boxes})

    def _holds_block(self) -> None:
        """A table or a heading starts: every open table is layout, the open cell not nav."""
        for i in self._open:
            self._tables[i][3] = 1
        if self._cell is not None:
            self._cells[self._cell][4] = 1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._holds_block()
            self._cell = None
            role = (dict(attrs).get("role") or "").strip().lower()
            self._open.append(len(self._tables))
            self._tables.append([0, 0, 0, int(role in _LAYOUT_ROLES)])
        elif tag in _HEADINGS:
            self._holds_block()
        elif tag in ("script", "style"):
            self._quiet += 1
        elif tag == "a":
            self._anchors.append(bool(dict(attrs).get("href")))
            if self._anchors[-1] and self._cell is not None:
                self._cells[self._cell][3] += 1
        if not self._open or tag == "table":
            return
        table = self._tables[self._open[-1]]
        if tag == "tr":
            table[0], table[1] = max(table[0], table[1]), 0
            self._cell = None
        elif tag in CELLS:
            table[1] += 1
            self._cell = len(self._cells)
            self._cells.append([self._open[-1], 0, 0, 0, 0, 0])
        if tag in _DATA_MARKS:
            table[2] = 1

    def handle_endtag(self, tag: str) -> None:
        if tag in CELLS or tag == "tr":
            self._cell = None
        elif tag == "table" and self._open:
            self._open.pop()
            self._cell = None
        elif tag in ("script", "style"):
            self._quiet = max(0, self._quiet - 1)
        elif tag == "a" and self._anchors:
            self._anchors.pop()

    def handle_data(self, data: str) -> None:
        if self._cell is None or self._quiet:
            return
        words = data.split()
        chars = len("".join(words))
        cell = self._cells[self._cell]
        cell[1] += chars
        cell[5] += len(words)
        if any(self._anchors):
            cell[2] += chars
