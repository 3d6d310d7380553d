"""PDF files to one section per page, with pypdfium2 (PDFium, the extra ``pdf``).

Why PDFium: it reads the text layer of a 200-page file about 5x faster than the pure-Python
pypdf (``docs/pipeline.md``) and is the engine of a major browser, so broken files are its
daily bread. Each page with text becomes a section whose heading is ``"p. 7"`` and whose
``page`` is 7, so its id is ``guide.pdf#p7`` and its chunks carry ``metadata["page"]``;
lines are numbered through the whole file, paragraphs split at blank lines. An encrypted
file, a corrupt one, or one with no text layer at all (a scan) raises ``PdfSkip`` with the
reason, which the loader reports as a skipped file.
"""

from __future__ import annotations

from docqa.text.documents import Block, Line, Section

EXTRA = "PDF files need the pdf extra: pip install 'docqa[pdf]'"


class PdfSkip(Exception):
    """This PDF cannot be loaded, for the reason in ``args[0]``."""


def page_texts(data: bytes) -> list[str]:
    """The text layer of every page (``"\\n"`` line ends); raises ``PdfSkip``."""
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
        texts = []
        for index in range(len(document)):
            textpage = document[index].get_textpage()
            texts.append(textpage.get_text_range().replace("\r\n", "\n").replace("\r", "\n"))
        return texts
    finally:
        document.close()


def _page_section(page: int, first_line: int, text: str) -> Section | None:
    blocks, lines = [], []
    raw = text.split("\n")
    for number, line in enumerate([*raw, ""], start=first_line):
        words = " ".join(line.split())
        if words:
            lines.append(Line(number, words))
        elif lines:
            blocks.append(Block("text", tuple(lines)))
            lines = []
    if not blocks:
        return None
    start, end = blocks[0].lines[0].number, blocks[-1].lines[-1].number
    return Section(f"p. {page}", 1, start, end, tuple(blocks), page=page)


def pdf_sections(data: bytes) -> tuple[Section, ...]:
    """One section per page that has text; raises ``PdfSkip`` when no page has any."""
    sections, line = [], 1
    for page, text in enumerate(page_texts(data), start=1):
        section = _page_section(page, line, text)
        if section is not None:
            sections.append(section)
        line += text.count("\n") + 1
    if not sections:
        raise PdfSkip("no text layer (a scanned PDF?); run OCR on it first")
    return tuple(sections)
