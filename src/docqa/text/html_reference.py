"""The reference HTML reader: the standard library's ``html.parser.HTMLParser`` turned into a
page's title, first h1, headings and blocks (what becomes what: ``docqa.text.html``'s module
doc). The native scanner ``docqa._parse.scan_html`` is tested equal to it."""

from __future__ import annotations

from html.parser import HTMLParser

from docqa.text.documents import Block, Heading, Line, table_row
from docqa.text.html_chrome import is_chrome
from docqa.text.html_layout import CELLS, NO_LAYOUT

_CONTENT = frozenset({"main", "article"})
# the classes of a div that sets an admonition apart (DocBook's and the Apache manual's
# div.note with its h3 "Note", Docusaurus's div.admonition with its h5): a heading inside one is
# the admonition's label, not a section's title; compared lower-cased, token by token
_ADMONITION_CLASSES = frozenset(
    {"admonition", "note", "tip", "hint", "warning", "caution", "important", "danger", "attention"}
)
# the class of a div that is a block of code whose child divs are its lines (Doxygen's
# div.fragment of div.line); compared lower-cased, token by token
_FRAGMENT_CLASSES = frozenset({"fragment"})
_LISTS = frozenset({"ul", "ol"})
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_BREAKS_HEADING = frozenset({*_HEADINGS, "pre", "tr", "td", "th"})
_BLOCK_TAGS = frozenset(
    {
        *("address", "article", "blockquote", "body", "dd", "details", "div", "dl", "dt"),
        *("figcaption", "figure", "form", "hr", "html", "li", "main", "ol", "p", "section"),
        *("summary", "table", "ul"),
    }
)


def _add(lines: dict[int, list[str]], first_line: int, data: str) -> None:
    """Append ``data`` to the per-line fragments, starting at ``first_line``."""
    for offset, piece in enumerate(data.split("\n")):
        lines.setdefault(first_line + offset, []).append(piece)


def _prose(lines: dict[int, list[str]]) -> tuple[Line, ...]:
    """Per-line fragments as non-empty ``Line``s with whitespace collapsed."""
    joined = ((n, " ".join("".join(parts).split())) for n, parts in sorted(lines.items()))
    return tuple(Line(n, text) for n, text in joined if text)


def _classed(attrs: list[tuple[str, str | None]], names: frozenset[str]) -> bool:
    """Whether an element of these attributes has a class among ``names`` (lower-cased; its
    last class attribute)."""
    value = dict(attrs).get("class") or ""
    return not names.isdisjoint(c.lower() for c in value.split())


class PageParser(HTMLParser):
    """Collects ``items`` (headings and blocks, in order) and ``title`` from one HTML text."""

    def __init__(
        self,
        first_line: int,
        *,
        content_only: bool = False,
        layout: tuple[frozenset[int], frozenset[int]] = NO_LAYOUT,
    ) -> None:
        super().__init__(convert_charrefs=True)
        self._first = first_line - 1
        # ``TableSurvey``'s layout tables and navigation cells, by their start tags' order
        self._layout, self._nav = layout
        self._table_number = self._cell_number = 0
        self._tables: list[bool] = []  # the open tables (outside dropped elements): layout?
        self._nav_cell = False  # inside a navigation cell: everything up to its end goes
        self._content_only = content_only
        self._main: tuple[str, int] | None = None  # the role="main" element and its nesting
        self.items: list[Heading | Block] = []
        self.title = ""
        self.first_h1 = ""
        self._drop: tuple[str, int] | None = None
        self._content_depth = 0
        self._sections = 0  # open ``section`` elements (a header in one is its own)
        self._admonition = 0  # open divs from the outermost admonition's in (0: in none)
        self._fragment = 0  # open divs from a code fragment's in (0: in none)
        self._title: list[str] | None = None
        self._heading: tuple[int, int, list[str]] | None = None
        self._text: dict[int, list[str]] = {}
        self._code: dict[int, list[str]] | None = None
        self._cell: list[str] | None = None
        self._row: tuple[int, list[str]] | None = None
        self._row_td = False  # the open row has a data cell (a row of th cells only is a header)
        self._rows: list[Line] = []
        self._in_link = False  # inside an ``a`` to one of the page's own anchors
        # the outermost open list: [its nesting, len(items) at its start, all its text in
        # such links so far, any text in one]
        self._toc: list[int] | None = None
        # the definition lists' marks (``docqa.text.html.define_terms``): the items that are a
        # ``dt``'s text, and where each ``dd``'s items begin
        self.terms: list[int] = []
        self.definitions: list[int] = []
        self._term_at: int | None = None  # where the open ``dt``'s text block will stand

    def _line(self) -> int:
        return self.getpos()[0] + self._first

    def flush(self) -> None:
        """Emit the pending text block and the pending table rows, if any."""
        text = _prose(self._text)
        if text:
            if self._term_at == len(self.items):  # a dt's text, ended by its end or implied
                self.terms.append(self._term_at)
            self._term_at = None
            self.items.append(Block("text", text))
        self._text = {}
        if self._rows and self._row is None:
            self.items.append(Block("table", tuple(self._rows)))
            self._rows = []

    def _track_main(self, tag: str, attrs: list[tuple[str, str | None]], opening: bool) -> None:
        """Follow the element with ``role="main"`` (by its tag's nesting) in and out."""
        if self._main is None:
            if opening and ("role", "main") in attrs:
                self._main = (tag, 1)
                self._content_depth += 1
            return
        name, depth = self._main
        if tag != name:
            return
        depth += 1 if opening else -1
        self._main = (name, depth) if depth else None
        if not depth:
            self._content_depth = max(0, self._content_depth - 1)

    @property
    def _outside(self) -> bool:
        """True while text is outside the marked content of a page that marks it."""
        return self._content_only and self._content_depth == 0

    @property
    def _in_layout(self) -> bool:
        """True while the innermost open table lays the page out."""
        return bool(self._tables) and self._tables[-1]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        number = -1  # the table's or cell's place among the survey's, counted everywhere
        if tag == "table":
            number, self._table_number = self._table_number, self._table_number + 1
        elif tag in CELLS:
            number, self._cell_number = self._cell_number, self._cell_number + 1
        if self._drop is not None:
            name, depth = self._drop
            self._drop = (name, depth + 1) if tag == name else self._drop
            return
        if self._nav_cell:
            if tag not in CELLS and tag != "tr":
                return
            self._nav_cell = False
        outside = self._content_depth == 0
        if is_chrome(tag, attrs, outside, in_section=self._sections > 0, in_link=self._in_link):
            self._drop = (tag, 1)
            return
        if tag == "table":
            self._tables.append(number in self._layout)
        elif self._in_layout and (tag in CELLS or tag == "tr"):
            self._close_heading_if_open()
            self.flush()  # a layout table's cell is a block of its own, not a table cell
            self._nav_cell = number in self._nav
            return
        self._track_main(tag, attrs, opening=True)
        self._content_depth += tag in _CONTENT
        self._sections += tag == "section"
        if tag == "div" and (self._admonition or _classed(attrs, _ADMONITION_CLASSES)):
            self._admonition += 1
        if tag == "div" and (self._fragment or _classed(attrs, _FRAGMENT_CLASSES)):
            self._fragment += 1
        if self._heading is not None and (tag in _BLOCK_TAGS or tag in _BREAKS_HEADING):
            self._close_heading()  # bad markup: a heading never holds a block
        self._open(tag)
        if tag == "a":
            href = dict(attrs).get("href") or ""
            self._in_link = len(href) > 1 and href.startswith("#")
        elif tag in _LISTS:
            if self._toc is None:
                self._toc = [1, len(self.items), True, False]
            else:
                self._toc[0] += 1

    def _open(self, tag: str) -> None:
        """What the start tag ``tag`` opens: the title, a heading, code, a table's row or
        cell, a text block (a ``dt``'s or a ``dd``'s)."""
        if tag == "title":
            self._title = []
        elif tag in _HEADINGS:
            self.flush()
            self._heading = (_HEADINGS[tag], self._line(), [])
        elif tag == "pre" or (tag == "div" and self._fragment == 1 and self._code is None):
            self.flush()
            self._code = {}
        elif tag == "tr":
            self._close_row()
            self._row = (self._line(), [])
            self._row_td = False
        elif tag in ("td", "th"):
            self._close_cell()
            self._cell = []
            self._row_td = self._row_td or tag == "td"
        elif tag == "br":
            self._line_break()
        elif tag in _BLOCK_TAGS and self._cell is not None:
            self.handle_data(" ")  # a cell's items and paragraphs: "a</li><li>b" is "a b"
        elif tag in _BLOCK_TAGS and self._row is None:
            self.flush()
            # a dt's text is the next text block made, unless its end or a dd comes first
            if tag == "dt":
                self._term_at = len(self.items)
            elif tag == "dd":
                self._term_at = None
                self.definitions.append(len(self.items))

    def _line_break(self) -> None:
        """A ``<br>``: in running text it ends the block, so the lines it breaks stay apart (a
        command and the prompts it prints, a list of changes one a line); in a title, heading,
        cell, code or a definition's term it is a space."""
        elsewhere = self._title, self._heading, self._cell, self._code, self._row, self._term_at
        if not self._outside and all(place is None for place in elsewhere):
            self.flush()
        else:
            self.handle_data(" ")

    def handle_endtag(self, tag: str) -> None:
        if self._drop is not None:
            name, depth = self._drop
            if tag == name:
                self._drop = (name, depth - 1) if depth > 1 else None
            return
        if self._nav_cell:
            if tag not in CELLS and tag not in ("tr", "table"):
                return
            self._nav_cell = False
        if self._in_layout and (tag in CELLS or tag == "tr"):
            self._close_heading_if_open()
            self.flush()
            return
        if tag == "table" and self._tables:
            self._tables.pop()
        self._track_main(tag, [], opening=False)
        if tag in _CONTENT:
            self._content_depth = max(0, self._content_depth - 1)
        if tag == "section":
            self._sections = max(0, self._sections - 1)
        if tag == "div" and self._admonition:
            self._admonition -= 1
        fragment_ends = tag == "div" and self._fragment == 1
        if tag == "div" and self._fragment:
            self._fragment -= 1
        if tag == "title" and self._title is not None:
            self.title = " ".join("".join(self._title).split())
            self._title = None
        elif tag in _HEADINGS and self._heading is not None:
            self._close_heading()
        elif (tag == "pre" or fragment_ends) and self._code is not None:
            self._close_code()
        elif tag in ("td", "th"):
            self._close_cell()
        elif tag == "tr":
            self._close_row()
        elif tag != "table" and tag in _BLOCK_TAGS and self._cell is not None:
            self.handle_data(" ")  # "<div>a</div>b" in a cell is "a b"
        elif tag == "table" or (tag in _BLOCK_TAGS and self._row is None):
            self._close_row()
            self.flush()
            if tag == "dt":
                self._term_at = None
        if tag == "a":
            self._in_link = False
        elif tag in _LISTS and self._toc is not None:
            self._toc[0] -= 1
            if not self._toc[0]:
                _, start, only_links, linked = self._toc
                if only_links and linked:  # a table of contents: its blocks go
                    del self.items[start:]
                    self.terms = [i for i in self.terms if i < start]
                    self.definitions = [i for i in self.definitions if i < start]
                self._toc = None

    def handle_data(self, data: str) -> None:
        if self._drop is not None or self._nav_cell:
            return
        if self._title is not None:
            self._title.append(data)
            return
        if self._outside:
            return
        if self._toc is not None and data.strip():
            self._list_text()
        if self._heading is not None:
            self._heading[2].append(data)
        elif self._cell is not None:
            self._cell.append(data)
        elif self._code is not None:
            _add(self._code, self._line(), data)
        elif self._row is None:
            _add(self._text, self._line(), data)

    def _list_text(self) -> None:
        """Text is met inside a list: in an in-page link, or not (a heading's, a cell's or
        code's text never is; text in a table row outside its cells is not kept)."""
        assert self._toc is not None
        plain = self._heading is None and self._cell is None and self._code is None
        if plain and self._row is not None:
            return
        if plain and self._in_link:
            self._toc[3] = True
        else:
            self._toc[2] = False

    def _close_heading_if_open(self) -> None:
        if self._heading is not None:
            self._close_heading()  # bad markup: a heading never holds a cell

    def _close_heading(self) -> None:
        assert self._heading is not None
        level, line, parts = self._heading
        self._heading = None
        text = " ".join("".join(parts).split())
        if text and self._admonition:  # an admonition's label ("Note"): text in its section
            self.items.append(Block("text", (Line(line, text),)))
        elif text:
            self.items.append(Heading(text, level, line))
            if level == 1 and not self.first_h1:
                self.first_h1 = text

    def _close_code(self) -> None:
        assert self._code is not None
        raw = [Line(n, "".join(parts).rstrip()) for n, parts in sorted(self._code.items())]
        while raw and not raw[-1].text.strip():
            raw.pop()
        while raw and not raw[0].text.strip():
            raw.pop(0)
        if raw:
            self.items.append(Block("code", tuple(raw)))
        self._code = None

    def _close_cell(self) -> None:
        if self._cell is not None and self._row is not None:
            self._row[1].append(" ".join("".join(self._cell).split()))
        self._cell = None

    def _close_row(self) -> None:
        self._close_cell()
        if self._row is not None:
            line, cells = self._row
            if any(cells):
                if not self._rows and self._row_td:  # no header row: an empty one says so
                    self._rows.append(Line(line, "| " + " | ".join([""] * len(cells)) + " |"))
                self._rows.append(Line(line, table_row(cells)))
            self._row = None

    def finish(self) -> None:
        """Feed nothing more; close whatever the markup left open."""
        self.close()
        if self._heading is not None:
            self._close_heading()
        if self._code is not None:
            self._close_code()
        self._close_row()
        self.flush()
