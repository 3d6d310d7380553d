"""What a loaded file becomes: a ``Document`` of ``Section``s made of ``Block``s of source lines.

The parsers (``markdown.py``, ``rst.py``, ``asciidoc.py``, ``html.py``, ``plain.py``,
``pdf.py``) each turn a file into a flat stream of ``Heading`` and ``Block`` items;
``build_sections`` groups that stream into sections, one per heading, plus one for any text
before the first heading.

Every line keeps its 1-based line number in the source file, so a chunk cut from a section can
say exactly which lines it came from. A ``Block`` is either ``"text"`` (prose: it may be cut
between any two words) or ``"table"`` / ``"code"`` (each line is atomic: a table row or a code
line is never split between two chunks).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

BlockKind = Literal["text", "table", "code"]
# The version of what the readers (Markdown, reStructuredText, HTML, text, PDF) make of a file.
# Raise it with any change to what a reader yields for the same bytes (or to how the chunker
# cuts it): an index built by other readers is then rebuilt rather than updated, so no file
# keeps what an older reader made of it.
# 2: reStructuredText read; plain-text headings. 3: AsciiDoc read (.adoc, and .txt files
# whose text is AsciiDoc). 4: a definition list's terms read with the first paragraph of
# their definition, as one block (HTML, rst, AsciiDoc); a long <pre> of prose read as text; a
# PDF's lines in a monospaced font as code; with it every reader change made under 3 (MyST
# pages, PDF outlines, plain-text lists, permalinks and admonitions in HTML, rst roles).
# 5: a footnote's mark in HTML (a sup inside a link to the page's own anchor) dropped.
# 6: a .txt file whose text is reStructuredText read as reStructuredText (lighttpd's manual).
# 7: an HTML table with no header row gets one of empty cells (its first row is data).
# 8: reStructuredText's tables (grid, simple, csv-table, list-table) written as ``| a | b |``
# under their header, a grid cell's lines one cell; AsciiDoc's tables grouped into rows by their
# columns; a definition's term ending in "?" or "!" takes no colon (a FAQ's question); a book's
# index in HTML (DocBook's, Sphinx's, Texinfo's) dropped as navigation.
# 9: a "|" inside a Markdown or HTML table cell written "\|", as the other readers write it.
# 10: a <br> in HTML's running text ends its block (the lines of an example stay apart), a
# cell's items a space apart, the Apache manual's menu and language bars dropped; a word a
# plain text hyphenates at a line's end written whole (a manual page's "dae-" / "mon"); a
# Markdown paragraph after a line of ideographic spaces numbered from its text's line; an
# HTML <pre> holding a manual page (NAME, DESCRIPTION) read as text whatever its length.
# 11: a Sphinx theme's sidebar (div.sphinxsidebar) and what SQLite's pages keep out of their
# search (div.nosearch) dropped as navigation, and the lines an mdBook example hides
# (span.boring); a section's last window adding fewer than a sixth of a window's words
# joined to the one before (the chunker's change, counted here so that an index of the old
# windows is rebuilt too).
# 12: a file named as a manual page that holds no roff skipped (a changelog named by version,
# ``ChangeLog-3.1.gz``), and an HTML page that sends its reader on at once (a moved page's
# stub: Texinfo's, rustdoc's); a plain text's section number of two parts ending in a colon
# read as a heading (``3.21: Why is my history not being saved?``).
READERS = 12


@dataclass(frozen=True, slots=True)
class Line:
    """The text found on one source line; ``number`` is 1-based."""

    number: int
    text: str


@dataclass(frozen=True, slots=True)
class Block:
    """A paragraph, list item, table or code block, as its non-empty source lines.

    ``kind == "text"``: prose, words of consecutive lines are reflowed with single spaces.
    ``kind in ("table", "code")``: each line is kept whole and lines are joined with ``"\\n"``.
    """

    kind: BlockKind
    lines: tuple[Line, ...]

    @property
    def text(self) -> str:
        """The block as text: prose reflowed to one line, table/code lines kept apart."""
        if self.kind == "text":
            return " ".join(line.text for line in self.lines)
        return "\n".join(line.text for line in self.lines)


def with_terms(terms: Sequence[Block], body: Sequence[Heading | Block]) -> list[Heading | Block]:
    """A definition list's ``terms`` and the items of their definition (``body``): the terms
    and the first item as one block (:func:`defined`) when that item is a paragraph, else the
    terms as blocks of their own before it."""
    first = body[0] if body else None
    if terms and isinstance(first, Block) and first.kind == "text":
        return [defined(terms, first), *body[1:]]
    return [*terms, *body]


NO_COLON = (":", ".", ";", ",", "?", "!")
"""What a term may end in to take no colon before its definition (a question in a FAQ's list,
``How do I change it?``, is followed by its answer, not by ``?:``)."""


def defined(terms: Sequence[Block], definition: Block) -> Block:
    """One block of a definition list's ``terms`` (text blocks: their text joined with ``", "``
    unless one ends in ``,`` or ``;``, at the first one's line) and the first paragraph of
    their ``definition``: ``"-y (global): Overwrite ..."``. A term ending in one of
    :data:`NO_COLON` takes no colon after it; a term and its definition on one source line
    share one ``Line``, so the lines stay in source order."""
    head = terms[0].text
    for term in terms[1:]:  # Graphviz's "<dt>svg</dt>,<dt>svgz</dt>": no second comma
        head += f" {term.text}" if head.endswith((",", ";")) else f", {term.text}"
    number = terms[0].lines[0].number
    if not head.endswith(NO_COLON):
        head += ":"
    first, *rest = definition.lines
    if first.number == number:  # the term and its definition on one line
        return Block("text", (Line(number, f"{head} {first.text}"), *rest))
    return Block("text", (Line(number, head), *definition.lines))


Row = tuple[int, list[str]]
"""A table row as a reader found it: the number of its first source line, its cells' text."""


def table_block(header: Sequence[Row], body: Sequence[Row]) -> Block | None:
    """A ``"table"`` block as every reader writes one, from cells whose markup is read: a header
    line (``header``'s rows merged into one; cells left empty when there is none, so the first
    row reads as data) over one ``| a | b |`` line per ``body`` row, each cell's whitespace
    collapsed and a ``|`` inside it written ``\\|``; None for no row."""
    if not body and not header:
        return None
    width = max(len(cells) for _, cells in (*header, *body))
    names = [""] * width
    for _, cells in header:
        names = [f"{a} {b}" for a, b in zip(names, [*cells, *[""] * (width - len(cells))])]
    number = header[0][0] if header else body[0][0]
    rows = [Line(number, _table_line(names)), *(Line(n, _table_line(c)) for n, c in body)]
    return Block("table", tuple(rows))


def table_row(cells: Iterable[str]) -> str:
    """``cells`` as one line of a ``"table"`` block, ``| a | b |``, a ``|`` inside a cell
    written ``\\|`` (so the answer reads it back as one cell)."""
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def _table_line(cells: Sequence[str]) -> str:
    return table_row(" ".join(c.split()) for c in cells)


@dataclass(frozen=True, slots=True)
class Heading:
    """A heading as a parser saw it: text, level 1..6, 1-based source line."""

    text: str
    level: int
    line: int


def page_heading(page: int) -> str:
    """The heading of a PDF section that is a whole page: ``"p. 7"`` (its id: ``#p7``)."""
    return f"p. {page}"


@dataclass(frozen=True, slots=True)
class Section:
    """A heading and the blocks up to the next heading.

    The text before a page's first heading is a section with ``heading == ""`` and
    ``level == 0``. ``start_line`` / ``end_line`` are 1-based and inclusive: from the heading
    line (or first block line) to the last line of the last block (or the heading line when the
    section has no body). ``page`` is the 1-based page a PDF section starts on (0 for every
    other format); a section that is a whole page has the heading :func:`page_heading` and
    the id ``<file>#p<page>``.
    """

    heading: str
    level: int
    start_line: int
    end_line: int
    blocks: tuple[Block, ...]
    page: int = 0

    @property
    def text(self) -> str:
        """The body: blocks separated by blank lines (``""`` for a heading with no body)."""
        return "\n\n".join(block.text for block in self.blocks)


@dataclass(frozen=True, slots=True)
class Document:
    """One loaded file.

    ``source`` is the path relative to the loaded folder, with ``/`` separators
    (``"guide/loans.md"``); ``title`` comes from front matter, ``<title>``, the first h1, the
    first line of a .txt file, or the file name, in that order of preference; ``metadata``
    holds the YAML front matter (dates as ISO strings) and ``format``
    (``"markdown" | "rst" | "asciidoc" | "html" | "man" | "text" | "pdf"``); ``content_hash``
    is the hex sha256 of the file's bytes (empty for a document parsed from a string), so an
    index update can tell which files changed; ``ids`` is the part of its section ids before
    ``#`` when that is not ``id_base(source)`` (a file whose ids keep its suffix,
    ``docqa.text.ids.suffixed``).
    """

    source: str
    title: str
    sections: tuple[Section, ...]
    metadata: Mapping[str, Any] = field(default_factory=dict)
    content_hash: str = ""
    ids: str = ""

    @property
    def text(self) -> str:
        """All sections, each heading on its own line before its body."""
        parts = []
        for section in self.sections:
            if section.heading:
                parts.append(section.heading)
            if section.blocks:
                parts.append(section.text)
        return "\n\n".join(parts)


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file that was not loaded, and why (``path`` as given or relative to its folder)."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class LoadReport:
    """What a load found: the sources loaded, in order, and the files skipped with reasons."""

    loaded: tuple[str, ...]
    skipped: tuple[SkippedFile, ...]

    def summary(self) -> str:
        """One line: ``"12 documents loaded, 1 file skipped (bad.md: not valid UTF-8 ...)"``."""
        line = f"{len(self.loaded)} document{'' if len(self.loaded) == 1 else 's'} loaded"
        if not self.skipped:
            return line + ", 0 files skipped"
        noun = "file" if len(self.skipped) == 1 else "files"
        reasons = "; ".join(f"{s.path}: {s.reason}" for s in self.skipped)
        return f"{line}, {len(self.skipped)} {noun} skipped ({reasons})"


def filled(document: Document, bodies: Iterable[Iterable[Block]]) -> Document:
    """``document`` with each section's blocks taken from ``bodies`` in turn: a document read
    as it is chunked (its sections holding no blocks: ``reading.document_stream``) made whole."""
    pairs = zip(document.sections, bodies, strict=True)
    return replace(document, sections=tuple(replace(s, blocks=tuple(b)) for s, b in pairs))


def build_sections(items: Iterable[Heading | Block]) -> tuple[Section, ...]:
    """Group a parser's stream into sections: one per heading, one for text before the first.

    Empty blocks are dropped; a leading section exists only when text precedes the first
    heading. Sections are returned in source order. The loaders use the native twin,
    ``docqa._parse.build_sections`` (tested equal).
    """
    sections: list[Section] = []
    heading: Heading | None = None
    blocks: list[Block] = []

    def close() -> None:
        if heading is None and not blocks:
            return
        start = heading.line if heading is not None else blocks[0].lines[0].number
        end = blocks[-1].lines[-1].number if blocks else start
        sections.append(
            Section(
                heading=heading.text if heading is not None else "",
                level=heading.level if heading is not None else 0,
                start_line=start,
                end_line=end,
                blocks=tuple(blocks),
            )
        )

    for item in items:
        if isinstance(item, Heading):
            close()
            heading, blocks = item, []
        elif item.lines:
            blocks.append(item)
    close()
    return tuple(sections)
