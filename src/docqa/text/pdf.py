"""PDF files to sections, with pypdfium2 (PDFium, the extra ``pdf``).

Why PDFium: it reads the text layer of a 200-page file about 5x faster than the pure-Python
pypdf (``docs/notes/2026-12-indexing.md``) and is the engine of a major browser, so broken files are its
daily bread. A file with an outline (bookmarks) is cut at its headings
(:mod:`docqa.text.pdf_outline`: ``zsh.pdf#description-of-options``), each section's ``page``
the one it starts on; the pages before the first heading, and every page of a file without
an outline, are a section each whose heading is ``"p. 7"`` and whose ``page`` is 7, so its
id is ``guide.pdf#p7``. Chunks carry ``metadata["page"]``; lines are numbered through the
whole file, paragraphs split at blank lines and page ends; lines set in a monospaced font
(Courier, ``*Mono*``, TeX's CMTT) are ``"code"`` blocks (:func:`code_lines`). An encrypted
file, a corrupt one, or one with no text layer at all (a scan) raises ``PdfSkip`` with the
reason, which the loader reports as a skipped file.

What a page's text layer holds that is not the document's text is left out (``_layout``):

- running heads and feet: a line among the first two or the last two of a page whose text,
  digits aside, is at the edge of at least ``RUNNING_PAGES`` pages ("Shared
  MIME-info Database" atop every page, "Chapter 4: Function reference 27"), but on the
  first page it is on (a title page keeps its title);
- running heads that carry the printed page number ("Chapter 3: Utilities 6" on the file's
  page 9): a line at the edge of two pages or more, digits aside, that begins or ends with
  the number printed on its page, on every page it is on (a short chapter's head is on two
  pages only). The printed number is the file's page less an offset (the front matter's
  pages) that the edge numbers of at least ``RUNNING_PAGES`` pages agree on;
- page numbers: a lone number or roman numeral as a page's first or last line;
- table-of-contents and index entries: a line of dot leaders ("2.1 ASN.1 syntax . . . . 3");
- PDFium's mark of a word hyphenated across lines (U+FFFE, where it joined the word): dropped,
  so that "manip-/ulation" is the word "manipulation";
- C1 control characters (U+0080 to U+009F), which no text holds: what a font without a map
  to Unicode gives (gnuplot's bullets, U+0088).

The line numbers stay those of the text layer: a left-out line is a blank one.

What the text layer leaves out is put in: two words a file keeps apart by moving the pen
rather than by a space character, which PDFium reads as one ("Abackslash" in groff's PDFs),
get their space (``spaced``) when a few pages spread over the file show such a gap.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from docqa.text.documents import Section, page_heading
from docqa.text.pdf_outline import Mark, outline_sections, paragraphs

EXTRA = "PDF files need the pdf extra: pip install 'docqa[pdf]'"


class PdfSkip(Exception):
    """This PDF cannot be loaded, for the reason in ``args[0]``."""


def page_texts(data: bytes) -> list[str]:
    """The text layer of every page (``"\\n"`` line ends), with the spaces PDFium left out
    put in when the file needs them (``spaced``); raises ``PdfSkip``."""
    return read_pdf(data)[0]


def read_pdf(data: bytes) -> tuple[list[str], list[Mark], list[frozenset[int]]]:
    """:func:`page_texts`, the file's outline entries that point at a page, in order, and
    each page's lines of code (:func:`code_lines`)."""
    try:
        import pypdfium2 as pdfium
    except ImportError as exc:
        raise PdfSkip(EXTRA) from exc
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise PdfSkip("encrypted PDF (needs a password); save a copy without one") from exc
        raise PdfSkip(f"not a readable PDF ({exc}); re-export it") from exc
    try:
        count = len(document)
        sample = {(count - 1) * i // (SAMPLED - 1) for i in range(SAMPLED)} if count else set()
        joined = any(_joined(document[i].get_textpage()) for i in sorted(sample))
        fonts: dict[bytes, bool] = {}  # font name: monospaced?
        texts, code = [], []
        for index in range(count):
            textpage = document[index].get_textpage()
            text = spaced(textpage) if joined else textpage.get_text_range()
            texts.append(text.replace("\r\n", "\n").replace("\r", "\n"))
            code.append(code_lines(textpage, fonts))
        return texts, _marks(document), code
    finally:
        document.close()


def _marks(document: Any) -> list[Mark]:
    """The outline entries of a pypdfium2 ``PdfDocument`` that point at one of its pages; none
    when PDFium cannot read the outline (the file is then cut at its pages)."""
    import pypdfium2 as pdfium  # ``read_pdf`` imported it

    marks = []
    try:
        for bookmark in document.get_toc():
            dest = bookmark.get_dest()
            index = dest.get_index() if dest is not None else None
            if index is not None:
                marks.append(Mark(bookmark.get_title() or "", bookmark.level + 1, index + 1))
    except (pdfium.PdfiumError, ValueError):
        return []
    return marks


# PDFium puts a space between two words that a file spaced by moving the pen, not by a space
# character, only beyond a gap of its own: groff's PDFs fall short of it ("Abackslash
# escapes", "theyare"; 1.6% of the words of Debian's ``bash.pdf``, in 0.2 to 0.5 em gaps).
# Before a letter or digit, the pen moves 0.05 em at most from the advance box of the character
# before it within a word (TeX's, groff's, DocBook's and texinfo's PDFs on this machine), so a
# move right of ``WORD_GAP`` em or more there is a space.
WORD_GAP = 0.15
SAMPLED = 4  # pages looked at, spread over the file, to tell whether its pages need spacing


def spaced(textpage: Any) -> str:
    """A page's text (a pypdfium2 ``PdfTextPage``) with a space before each character that
    stands ``WORD_GAP`` em or more to the right of the one before it on its line, the one
    a letter or digit, the other no space or line break ("buffer.If": "buffer. If"; a table of
    contents' dot leaders are left as they are). A page whose text and characters do not map
    one to one is given as PDFium reads it. Python, a call per character: the slow path (``_joined``
    decides whether a file takes it)."""
    from pypdfium2 import raw  # ``page_texts`` imported pypdfium2

    text: str = textpage.get_text_range()
    if len(text) != textpage.count_chars():
        return text
    handle, box, out, right, base = textpage.raw, raw.FS_RECTF(), [], None, 0.0
    for index, char in enumerate(text):
        if char.isspace() or char in "\ufffe\ufffd":
            right = None
            out.append(char)
            continue
        raw.FPDFText_GetLooseCharBox(handle, index, box)
        if right is not None and char.isalnum():
            size = raw.FPDFText_GetFontSize(handle, index)
            if abs(box.bottom - base) < size / 2 and box.left - right >= WORD_GAP * size > 0:
                out.append(" ")
        right, base = box.right, box.bottom
        out.append(char)
    return "".join(out)


# a monospaced font, by its name (TeX's Computer Modern and Latin Modern typewriter faces do not
# set the fixed-pitch flag): Courier, *Mono*, CMTT10, SFTT1000, LMTypewriter, Consolas, ...
_MONOSPACED = re.compile(
    rb"(?i:courier|mono|typewriter|consol|menlo|monaco|inconsolata|sourcecode)|CMTT|SFTT|TT\d"
)
FIXED_PITCH = 1  # PDF font descriptor flag 1


def code_lines(textpage: Any, fonts: dict[bytes, bool]) -> frozenset[int]:
    """The lines of a page (a pypdfium2 ``PdfTextPage``; its text's lines, by index) set in a
    monospaced font: code. A line is when its first, middle and last characters other than
    space are (a word of code at a prose line's start is not). ``fonts`` caches what each font
    name says. No line is when the text and its characters do not map one to one."""
    import ctypes

    from pypdfium2 import raw  # ``read_pdf`` imported pypdfium2

    text: str = textpage.get_text_range()
    if len(text) != textpage.count_chars():
        return frozenset()
    handle, flags, name = textpage.raw, ctypes.c_int(), ctypes.create_string_buffer(128)

    def monospaced(index: int) -> bool:
        size = raw.FPDFText_GetFontInfo(handle, index, name, len(name), ctypes.byref(flags))
        font = name.value if 0 < size <= len(name) else b""
        if font not in fonts:
            fonts[font] = bool(flags.value & FIXED_PITCH) or _MONOSPACED.search(font) is not None
        return fonts[font]

    found, start = set(), 0
    for number, line in enumerate(text.split("\r\n")):
        shown = [start + i for i, c in enumerate(line) if not c.isspace() and c not in "\ufffe"]
        if shown and all(monospaced(i) for i in {shown[0], shown[len(shown) // 2], shown[-1]}):
            found.add(number)
        start += len(line) + 2
    return frozenset(found)


def _joined(textpage: Any) -> bool:
    """Whether ``spaced`` puts a space in this page."""
    text: str = textpage.get_text_range()
    return spaced(textpage) != text


# a line at the edge of this many pages or more (digits aside) is a running head or foot
RUNNING_PAGES = 3
EDGE = 2  # lines at the top and at the bottom of a page that may be a running head or foot
_DIGITS = re.compile(r"\d+")
# a page number: arabic, or a lower-case roman one of the front matter (i to lxxxix, well formed)
_PAGE_NUMBER = re.compile(r"\d{1,4}|(?=[ivxl])(?:xl|l?x{0,3})(?:ix|iv|v?i{0,3})")
# a table-of-contents or index entry: four dots or more, then the page number ("Loans .... 3")
_DOT_LEADER = re.compile(r"\.(?:[ \t]?\.){3,}[ \t]*(?:\d{1,4}|[ivxlc]{1,7})[ \t]*$")


_END_NUMBERS = re.compile(r"^(\d{1,4})\b|\b(\d{1,4})$")


def _end_numbers(line: str) -> set[int]:
    """The numbers a line begins or ends with ({6} for "Chapter 3: Utilities 6", {3} for
    "3 Utilities")."""
    return {int(a or b) for a, b in _END_NUMBERS.findall(line.strip())}


def _page_offset(pages: list[list[str]], edges: list[list[int]]) -> int | None:
    """The file's page less the number printed on it, when the numbers at the edges of at
    least ``RUNNING_PAGES`` pages agree on one (the most pages; ties to the first seen)."""
    votes: Counter[int] = Counter()
    for page, (lines, at) in enumerate(zip(pages, edges), start=1):
        votes.update({page - n for i in at for n in _end_numbers(lines[i])})
    best = votes.most_common(1)
    return best[0][0] if best and best[0][1] >= RUNNING_PAGES else None


def _key(line: str) -> str:
    return _DIGITS.sub("#", " ".join(line.lower().split()))


def _edges(lines: list[str]) -> list[int]:
    """The indexes of a page's first and last ``EDGE`` non-empty lines."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    return sorted(set(filled[:EDGE] + filled[-EDGE:]))


# PDFium's mark of a word hyphenated across lines, and C1 control characters, which no text
# holds (a font without a map to Unicode: gnuplot's PDF gives its bullets as U+0088)
_NOT_TEXT = re.compile("[\ufffe\x80-\x9f]")


def _layout(pages: list[list[str]]) -> list[list[str]]:
    """``pages`` (each a list of lines) with running heads and feet, page numbers and dot
    leader lines blanked and PDFium's hyphenation marks and C1 controls dropped (see the
    module's doc)."""
    pages = [[_NOT_TEXT.sub("", line) for line in lines] for lines in pages]
    edges = [_edges(lines) for lines in pages]
    seen = Counter(k for lines, at in zip(pages, edges) for k in {_key(lines[i]) for i in at})
    offset = _page_offset(pages, edges)
    out, kept = [], set()
    for page, (lines, at) in enumerate(zip(pages, edges), start=1):
        lines = list(lines)
        filled = [i for i, line in enumerate(lines) if line.strip()]
        for i in at:
            text, key = lines[i].strip(), _key(lines[i])
            number = i in (filled[0], filled[-1]) and _PAGE_NUMBER.fullmatch(text) is not None
            printed = offset is not None and page - offset in _end_numbers(text)
            if (
                number
                or (printed and seen[key] >= 2)
                or (seen[key] >= RUNNING_PAGES and key in kept)
            ):
                lines[i] = ""
            kept.add(key)  # the first page a running line is on keeps it (a title page's title)
        out.append(["" if _DOT_LEADER.search(line) else line for line in lines])
    return out


def _page_section(
    page: int, first_line: int, raw: list[str], code: frozenset[int]
) -> Section | None:
    blocks = list(paragraphs(raw, first_line, code))
    if not blocks:
        return None
    start, end = blocks[0].lines[0].number, blocks[-1].lines[-1].number
    return Section(page_heading(page), 1, start, end, tuple(blocks), page=page)


def pdf_sections(data: bytes) -> tuple[Section, ...]:
    """The sections at the file's outline entries (``pdf_outline``), the pages before the
    first one a section each; a file without an outline, a section per page that has text.
    Raises ``PdfSkip`` when no page has any."""
    texts, marks, code = read_pdf(data)
    pages = _layout([t.split("\n") for t in texts])
    starts = [1]
    for lines in pages:
        starts.append(starts[-1] + len(lines))
    outlined = outline_sections(pages, marks, starts, code)
    (front, cut), outline = outlined if outlined is not None else ((len(pages), 0), [])
    sections = []
    for index, lines in enumerate(pages[: front + 1] if cut else pages[:front]):
        kept = lines[:cut] if index == front else lines
        section = _page_section(index + 1, starts[index], kept, code[index])
        if section is not None:
            sections.append(section)
    sections.extend(outline)
    if not any(section.blocks for section in sections):
        raise PdfSkip("no text layer (a scanned PDF?); run OCR on it first")
    return tuple(sections)
