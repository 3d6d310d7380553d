"""HTML to headings and blocks, with the standard library's ``html.parser.HTMLParser``
(the reference) and its native twin ``docqa._parse.scan_html`` (used when it can be).

Why this parser: it is a real tokenizer of HTML (entities, comments, CDATA-like script and
style content, attributes with ``>`` in them) that tolerates broken markup without raising;
``getpos()`` gives the source line of every tag and text run, which the chunks need for their
start and end lines; and it adds no dependency. (BeautifulSoup/lxml build a tree we do not
need and lose or complicate line positions; html5lib is slow.)

What becomes what:

- ``h1``-``h6`` -> ``Heading``; ``<title>`` (else the first h1) -> the page title; but a
  heading inside a ``div`` that sets an admonition apart (class ``note``, ``tip``,
  ``warning``, ``caution``, ``important``, ``admonition``...: DocBook's and Apache's "Note",
  Docusaurus's) is the admonition's label, a ``"text"`` block in the section around it (else
  the text after every note of PostgreSQL's manual was filed under a section "Note");
- ``pre``, and a ``div`` of class ``fragment`` (Doxygen's code example, a ``div`` a line) -> a
  ``"code"`` block, one line per source line; ``tr`` -> a ``"table"`` row line
  ``| a | b |``, the items and paragraphs of a cell a space apart (Apache's "Related
  Directives", a list in a cell); all other text -> ``"text"`` blocks, cut at block-level
  tags and at a ``<br>`` (a command and the lines it prints, a list of changes one a line:
  Apache's and libxslt's pages), which is a space in a title, heading, cell, code or a
  definition's term;
- a definition list's terms (``dt``) and the first paragraph of their definition (``dd``)
  -> one ``"text"`` block, ``"-y (global): Overwrite output files without asking."``
  (:func:`define_terms`);
- a long ``pre`` that holds a page of text rather than code (a manual page formatted for a
  terminal, Vim's help) -> the headings and paragraphs a text file of it has
  (:func:`pages_in_pre`);
- dropped with everything inside: ``script``, ``style``, ``noscript``, ``template``, ``svg``,
  ``nav``, ``aside``, any element whose ARIA role is a landmark around the content
  (``navigation``, ``banner``, ``contentinfo``, ``complementary``, ``search``), a ``div``,
  ``table``, ``ul``, ``ol`` or ``section`` whose class names navigation (``nav``,
  ``navigation``, ``navheader``, ``navfooter``, ``navbar``, ``navpath``, ``nav-panel``,
  ``topNav``, ``breadcrumbs``, ``toc``...: DocBook's and gtk-doc's Prev / Up / Next tables and
  tables of contents, Texinfo's, Doxygen's and Javadoc's bars; ``ttc``, Doxygen's hidden
  tooltips of the symbols in a code example; ``indexdiv``, ``indextable``, ``index-cp``...:
  a book's index, DocBook's, Sphinx's and Texinfo's; ``toplang`` and ``bottomlang``, the
  Apache manual's links to a page's translations; ``sphinxsidebar``, a Sphinx theme's sidebar,
  the site's table of contents; ``nosearch``, what SQLite's pages keep out of their own search,
  the banner, menu and table of contents) or whose id names a table of
  contents (``toc``, ``table-of-contents``, ``table_of_contents``: npm's), ``button`` (a control's label: the "copy" of
  every code block of Node.js's API pages, rustdoc's "Copy item path" inside each h1),
  permalink anchors (an ``a`` of class ``headerlink``, the ``¶`` after Sphinx and MkDocs
  headings; ``anchor`` and ``doc-anchor``, rustdoc's ``§`` and GitHub's icon;
  ``anchor-link``, Bootstrap's and Jupyter's; ``hash-link``, Docusaurus's; ``mark``, the
  ``#`` after each heading of Node.js's API pages; ``permalink``, the ``¶`` of Apache's
  manual; ``copiable-anchor`` and ``copiable-link``, the ``¶`` after each definition of a
  Texinfo manual, 6.8's and 7's), a ``span`` of class ``boring`` (the lines mdBook hides in
  a Rust example until asked, ``fn main() {`` around it), and ``header`` / ``footer`` outside
  ``main`` and ``article`` (site banners; an article's own header is kept), but for a
  ``header`` inside a ``section``, which is that section's own (npm's pages hold their h1 and
  description in one; a section's ``footer``, "Edit this page" and the like, still goes),
  and so a ``div`` of class ``header`` or ``footer`` (older Texinfo's Next / Previous / Up
  bar) or of id ``footer`` (AsciiDoc's "Last updated" line, the Apache manual's copyright and
  menu) or ``page-header`` (the Apache manual's menu and version line; not id ``header``,
  AsciiDoc's div of a page's title and NAME section), and a ``sup`` inside a link to the
  page's own anchor, a footnote's mark (Texinfo's and Pandoc's ``automatically<a
  href="#FOOT59"><sup>59</sup></a>`` read "automatically", not "automatically59");
- a list (``ul`` or ``ol``, nested ones with it) whose text is all in links to the page's own
  anchors (``href="#..."``, or ``href="faq.html#..."`` in ``faq.html``: ``own_anchors``) is
  the page's table of contents: the sections it points to hold its text (Expat's reference,
  a plain ``h2`` "Table of Contents" over such a list); a list with any other text (``<a href="#f">f()</a> does X``), a heading, a table or code in it
  stays;
- when the page marks its content (``<main>``, ``<article>`` or ``role="main"``), only text
  inside it is kept: footers, "Previous topic" links and the like around it are site chrome
  even when they are plain ``div``s;
- the title is the ``<title>`` unless it starts with the first h1 (``"secrets — ... —
  Python 3.11 documentation"`` with the h1 ``"secrets — ..."``): then the h1, without the
  site's suffix;
- a table's header and body rows (``thead`` / ``tbody``) stay one table block; a table whose
  first row holds a data cell (``td``) has no header row, and one of empty cells is written
  over it (``|  |  |``), so that its first row is read as data, not as its columns' names
  (ImageMagick's two-column tables of options and what they do);
- a table that lays the page out rather than holding data (``TableSurvey``: one with a
  heading or another table inside, one with ``role="presentation"`` or ``"none"``, or one
  of a single column and no header cell) is not a table: its cells are read as the page's
  flow, each a block of its own, and those of its cells (holding no table) with 3 links or
  more and at least half their text in links are its navigation, dropped with their
  content, as is a short label in a table of such cells only (old sites built of nested
  tables, libxml's and libxslt's among them: their "Main Menu" and link boxes, the content
  in a cell beside them); such pages are read by the reference, twice
  (``docqa.text.html_layout``);
- comments, processing instructions and doctypes are dropped.
"""

from __future__ import annotations

import re
from typing import cast

from docqa.text.documents import Block, Heading, Line, defined
from docqa.text.html_layout import NO_LAYOUT, TableSurvey, may_lay_out
from docqa.text.html_reference import PageParser
from docqa.text.plain import prose_shares, text_items

_MARKS_CONTENT = re.compile(r"<(?:main|article)[\s>]|role\s*=\s*[\"']?main\b", re.IGNORECASE)
# the start of an ``a`` tag up to its href's value (tag and attribute names in any case)
_SELF_LINK = r"(<(?i:a)\b[^>]*?\b(?i:href)\s*=\s*[\"']?)"


Scanned = tuple[str, str, list[Heading | Block], list[int], list[int]]
"""What a reader makes of a page: its title, first h1, headings and blocks, and the marks of
its definition lists (:func:`define_terms`): the items that are a ``dt``'s text, and where
each ``dd``'s items begin."""


def _reference(
    text: str,
    first_line: int,
    content_only: bool,
    layout: tuple[frozenset[int], frozenset[int]] = NO_LAYOUT,
) -> Scanned:
    """What ``HTMLParser`` makes of ``text``: the reference, given the page's layout tables
    and navigation cells (``TableSurvey.survey``)."""
    parser = PageParser(first_line=first_line, content_only=content_only, layout=layout)
    parser.feed(text)
    parser.finish()
    return parser.title, parser.first_h1, parser.items, parser.terms, parser.definitions


def define_terms(
    items: list[Heading | Block], terms: list[int], definitions: list[int]
) -> list[Heading | Block]:
    """``items`` with each definition list's terms and the first paragraph of their ``dd``
    as one block: ``<dt>-y (global)</dt><dd><p>Overwrite output files without asking.`` reads
    ``-y (global): Overwrite output files without asking.`` (Texinfo's tables of options,
    Sphinx's signatures and their description, DocBook's ``variablelist``). The terms right
    before a ``dd`` (several ``dt``s: joined with ``", "``) are merged when the ``dd`` begins
    with a paragraph; a ``dd`` that begins with code or a table leaves its terms a block of
    their own. Source lines stay in order (a term and its definition on one line share it)."""
    if not definitions:
        return items
    starts, texts = set(definitions), {i for i in terms if _is_text(items[i])}
    out: list[Heading | Block] = []
    for i, item in enumerate(items):
        run = 0  # the term blocks just before this one, when it begins a definition
        if i in starts and _is_text(item):
            while i - run - 1 in texts and run < len(out) and out[-1 - run] is items[i - run - 1]:
                run += 1
        if run:  # the run is of text blocks (``texts``), the item one
            heads = cast(list[Block], out[-run:])
            del out[-run:]
            item = defined(heads, cast(Block, item))
        out.append(item)
    return out


def _is_text(item: Heading | Block) -> bool:
    return isinstance(item, Block) and item.kind == "text"


def own_anchors(text: str, page: str) -> str:
    """``text`` with its links to its own anchors by file name written as a browser resolves
    them: ``<a href="faq.html#x">`` in ``faq.html`` becomes ``<a href="#x">``, so that both
    parsers see a list of them as the table of contents it is. Only inside ``a`` tags, and
    only the name as written (case and all); the line numbers stay."""
    if not page or f"{page}#" not in text:
        return text
    return re.sub(_SELF_LINK + re.escape(page) + "#", r"\1#", text)


def _scan(
    text: str, first_line: int, content_only: bool, *, fast: bool
) -> tuple[str, str, list[Heading | Block]]:
    """``(title, first h1, headings and blocks)`` of ``text`` (:func:`_read`), definition
    lists' terms with their definitions (:func:`define_terms`) and a ``<pre>`` holding a page
    of text read as text (:func:`pages_in_pre`)."""
    title, h1, items, terms, definitions = _read(text, first_line, content_only, fast=fast)
    # letter bars go after the terms are joined: ``terms`` and ``definitions`` index ``items``
    items = define_terms(items, terms, definitions)
    return title, h1, pages_in_pre([i for i in items if not _letter_bar(i)])


_BAR_WORDS = frozenset({"jump", "to:", "symbols"})


def _letter_bar(item: Heading | Block) -> bool:
    """Whether ``item`` is the row of letters over a book's index (Texinfo's "Jump to: A C F
    V", DocBook's "Symbols | A | B ...", Sphinx's "_ | A | B ..."): links to the index's
    parts, navigation as the index is."""
    if not isinstance(item, Block) or item.kind == "code":
        return False
    words = [w for w in item.text.replace("|", " ").split() if w.lower() not in _BAR_WORDS]
    return len(words) >= 3 and all(len(w) == 1 and (w.isupper() or w == "_") for w in words)


PRE_PAGE_LINES = 100
"""A ``<pre>`` of at least this many lines that reads as prose holds a page of text."""
# the sections every manual page has, as a formatter prints them at the margin
_MAN_SECTIONS = frozenset({"NAME", "DESCRIPTION"})
# a line that begins like a comment, or a docstring or an interpreter's prompt: code's prose
_COMMENT = re.compile(r"\s*(?://|#|/\*|\*\s|--|;|\"\"\"|>>>)")


def pages_in_pre(items: list[Heading | Block]) -> list[Heading | Block]:
    """``items`` with each ``<pre>`` that holds a page of text read as plain text: a manual
    page formatted for a terminal (Postfix's ``postqueue.1.html``: ``NAME``, ``SYNOPSIS``,
    ``DESCRIPTION``, ...), Vim's help pages (``1. Undo and redo commands``). Such a block has
    at least :data:`PRE_PAGE_LINES` lines, 30% of them holding five lower-case words and 20% a
    sentence's end (``docqa.text.plain.prose_shares``; code has fewer), and fewer than 10%
    beginning like a comment (``//``, ``#``, ``--``, ...: a source file of doc comments, as
    rustdoc's source pages show, is still code); or, of any length, it is a manual page, with
    the sections ``NAME`` and ``DESCRIPTION`` at the margin (``postkick.1.html``, 89 lines). Its
    headings and paragraphs are found as ``docqa.text.plain.text_items`` finds them in a text
    file, their lines the page's."""
    out: list[Heading | Block] = []
    for item in items:
        if isinstance(item, Block) and item.kind == "code" and _holds_a_page(item):
            out += _text_of(item)
        else:
            out.append(item)
    return out


def _holds_a_page(block: Block) -> bool:
    """Whether a ``<pre>``'s ``block`` holds a page of text (:func:`pages_in_pre`)."""
    lines = [line.text for line in block.lines]
    if _MAN_SECTIONS <= {line.rstrip() for line in lines if line[:1].isupper()}:
        return True
    if len(lines) < PRE_PAGE_LINES:
        return False
    wordy, ends = prose_shares(lines)
    comments = sum(_COMMENT.match(line) is not None for line in lines)
    return wordy >= 0.3 and ends >= 0.2 and comments < 0.1 * len(lines)


def _text_of(block: Block) -> list[Heading | Block]:
    """The headings and paragraphs of a ``<pre>``'s text, at the page's lines."""
    first = block.lines[0].number
    rows = [""] * (block.lines[-1].number - first + 1)  # a line the block skips was blank
    for line in block.lines:
        rows[line.number - first] = line.text
    shift = first - 1
    return [
        Heading(item.text, item.level, item.line + shift)
        if isinstance(item, Heading)
        else Block(item.kind, tuple(Line(ln.number + shift, ln.text) for ln in item.lines))
        for item in text_items("\n".join(rows))
    ]


def _read(text: str, first_line: int, content_only: bool, *, fast: bool) -> Scanned:
    """What the native scanner (``docqa._parse.scan_html``, the same as the reference's on the
    markup it handles) makes of ``text``, else what the reference makes of it. A page that may
    be laid out with tables (``may_lay_out``) is surveyed first; when it is, the reference
    reads it (the native scanner reads table cells as cells: such pages are old and few)."""
    if may_lay_out(text):
        layout = TableSurvey().survey(text)
        if layout[0]:
            return _reference(text, first_line, content_only, layout)
    if fast:
        from docqa._parse import scan_html

        found = scan_html(text, first_line, content_only)
        if found is not None:
            return found
    return _reference(text, first_line, content_only)


def _marks_content(text: str, *, fast: bool) -> bool:
    """Whether the page marks its content (``<main>``, ``<article>``, ``role="main"``):
    ``docqa._parse.marks_content``, or its reference ``_MARKS_CONTENT``."""
    if fast:
        from docqa._parse import marks_content

        return marks_content(text)
    return bool(_MARKS_CONTENT.search(text))


def parse_html(
    text: str, *, fast: bool = True, page: str = ""
) -> tuple[str, list[Heading | Block]]:
    """Parse an HTML page into ``(title, headings and blocks in order)``; ``page`` is its file
    name, when known, so that links to ``page#...`` are links to its own anchors
    (``own_anchors``).

    ``title`` is the ``<title>`` text, else the first h1, else ``""``. Never raises on bad
    markup: unclosed elements are closed at the end of the text. ``fast=False`` uses only
    the reference parser (``HTMLParser``; the native scanner is tested equal to it).
    """
    text = own_anchors(text, page)
    title, h1, items = _scan(text, 1, _marks_content(text, fast=fast), fast=fast)
    return (h1 if h1 and title.startswith(h1) else title) or h1, items


def html_fragment_blocks(
    fragment: str, *, first_line: int, fast: bool = True
) -> list[Heading | Block]:
    """Headings and blocks of an HTML fragment found at ``first_line`` of a larger file."""
    return _scan(fragment, first_line, False, fast=fast)[2]
