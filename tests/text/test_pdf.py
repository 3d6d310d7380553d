"""PDF files: one section per page with ids like ``guide.pdf#p2``; bad PDFs are skipped with
the reason. The PDFs are made at run time with fpdf2."""

from __future__ import annotations

import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from fpdf import FPDF
from rich.console import Console

from docqa.build import build_index
from docqa.cli import render
from docqa.collection import Collection
from docqa.index import open_index
from docqa.prompt import build_prompt
from docqa.text import SkippedFileWarning, load_chunks, load_paths, pdf
from docqa.text.loaders import find_files

PAGES = [
    "Loan periods\n\nBooks may be borrowed for three weeks.",
    "",  # a page with no text
    "Fines\n\nA late book costs ten pence a day.",
]


def make_pdf(path: Path, pages: list[str], *, password: str | None = None) -> Path:
    pdf = FPDF()
    pdf.set_font("helvetica", size=11)
    for text in pages:
        pdf.add_page()
        if text:
            pdf.multi_cell(0, 5, text)
    if password:
        pdf.set_encryption(owner_password="owner", user_password=password)
    path.parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(path))
    return path


def test_pages_become_sections_with_page_ids_and_metadata(tmp_path: Path) -> None:
    make_pdf(tmp_path / "docs" / "guide.pdf", PAGES)
    chunks, report = load_chunks([tmp_path / "docs"])
    assert report.loaded == ("guide.pdf",)
    assert [c.id for c in chunks] == ["guide.pdf#p1", "guide.pdf#p3"]
    assert [c.metadata["page"] for c in chunks] == [1, 3]
    assert chunks[0].metadata["format"] == "pdf"
    assert chunks[0].heading_path == ("Guide", "p. 1")
    assert "three weeks" in chunks[0].text and "ten pence" in chunks[1].text
    assert chunks[0].start_line <= chunks[0].end_line < chunks[1].start_line


def test_a_pdf_beside_its_page_in_another_format_is_passed_over_for_it(tmp_path: Path) -> None:
    """Debian's bash docs ship ``bash.pdf`` beside ``bash.html``: one manual, not two. A PDF
    of the same name and another text is read (its ids keep ``.pdf``, no clash)."""
    docs = tmp_path / "docs"
    make_pdf(docs / "guide.pdf", PAGES)
    (docs / "guide.html").write_text(
        "<h1>Loan periods</h1><p>Books may be borrowed for three weeks.</p>"
        "<h1>Fines</h1><p>A late book costs ten pence a day.</p>"
    )
    make_pdf(docs / "other.pdf", ["Parking\n\nThe car park closes at nine."])
    (docs / "other.md").write_text("# Loans\n\nBooks may be borrowed for three weeks.\n")
    copies: list[tuple[str, str]] = []
    found, _ = find_files([docs], None, None, copies)
    assert [source for _, source in found] == ["guide.html", "other.md", "other.pdf"]
    assert copies == [("guide.pdf", "guide.html")]
    chunks, report = load_chunks([docs])
    assert report.loaded == ("guide.html", "other.md", "other.pdf")
    assert [c.id for c in chunks if "three weeks" in c.text] == [
        "guide#loan-periods",
        "other#loans",
    ]


def test_prompt_title_and_cli_table_show_the_page(tmp_path: Path) -> None:
    make_pdf(tmp_path / "docs" / "guide.pdf", PAGES)
    build_index([tmp_path / "docs"], tmp_path / "ix", workers=1)
    assert open_index(tmp_path / "ix").chunk(1).id == "guide.pdf#p3"
    hits = Collection.open(tmp_path / "ix").retriever("keyword").search("late book pence", 1)
    assert hits[0].id == "guide.pdf#p3"
    assert 'title="Guide &gt; p. 3"' in build_prompt("How much is a late book?", hits).user
    console = Console(width=200, record=True)
    console.print(render.hits_table(hits))
    assert "p. 3: Fines" in console.export_text()
    assert render.hit_json(1, hits[0])["page"] == 3


def ps2pdf_like(pages: list[list[str]]) -> bytes:
    """A PDF whose lines are written as Ghostscript's ps2pdf writes groff's (Debian's
    ``bash.pdf``): the last letter of a line's first word and the first of its second in one
    string spaced by character spacing (``2.7 Tc (yc)Tj`` for "Any character"), the rest
    in strings of their own. In Courier, each letter 6 pt wide at 10 pt. Written by hand:
    fpdf2 places each string itself and never leaves a gap without a space character."""
    contents = []
    for lines in pages:
        ops = ["BT /F1 10 Tf 72 700 Td"]
        for line in lines:
            first, second, rest = line.split(" ", 2)
            ops.append(f"({first[:-1]})Tj {6 * (len(first) - 1)} 0 Td")
            ops.append(f"2.7 Tc ({first[-1]}{second[0]})Tj 0 Tc 14.7 0 Td")
            ops.append(f"({second[1:]} {rest})Tj -{6 * (len(first) - 1) + 14.7} -12 Td")
        contents.append(" ".join([*ops, "ET"]).encode())
    n = len(pages)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>"
        % (b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(n)), n),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>",
    ]
    for i, content in enumerate(contents):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
            b"<< /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (5 + 2 * i)
        )
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content))
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


BASH_LIKE = [
    ["A backslash escapes the following character.", "If the shell is interactive, it waits."],
    ["An array is indexed by numbers.", "Any other word is left as it is."],
]


def test_words_spaced_by_character_spacing_stay_two_words(tmp_path: Path) -> None:
    """PDFium reads "A" and "backslash" of ``2.7 Tc (Ab)Tj`` as "Abackslash": the pages of a
    file that needs it get a space wherever the pen moves right by WORD_GAP em or more."""
    data = ps2pdf_like(BASH_LIKE)
    document = pdfium.PdfDocument(data)
    as_read = [document[i].get_textpage().get_text_range() for i in range(len(document))]
    assert "Abackslash" in as_read[0] and "Anyother" in as_read[1]  # what PDFium gives
    texts = pdf.page_texts(data)
    spaced = [pdf.spaced(document[i].get_textpage()) for i in range(len(document))]
    assert texts == [t.replace("\r\n", "\n") for t in spaced]
    assert texts[0].split("\n") == BASH_LIKE[0] and texts[1].split("\n") == BASH_LIKE[1]
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "bash.pdf").write_bytes(data)
    build_index([tmp_path / "docs"], tmp_path / "ix", workers=1)
    hits = Collection.open(tmp_path / "ix").retriever("keyword").search("backslash", 1)
    assert [h.id for h in hits] == ["bash.pdf#p1"]


def test_a_file_whose_pages_need_no_spaces_is_read_as_pdfium_reads_it(tmp_path: Path) -> None:
    """The fast path: no page of fpdf2's files (nor TeX's, whose letters stand 0.05 em apart
    at most) gets a space, and the spacing pass is not run over them."""
    data = make_pdf(
        tmp_path / "guide.pdf", [*PAGES, "Renewals\n\nA loan is renewed twice."]
    ).read_bytes()
    document = pdfium.PdfDocument(data)
    for i in range(len(document)):
        textpage = document[i].get_textpage()
        assert pdf.spaced(textpage) == textpage.get_text_range()
    raw = [document[i].get_textpage().get_text_range() for i in range(len(document))]
    assert pdf.page_texts(data) == [t.replace("\r\n", "\n") for t in raw]


BASH_DOCS = Path("/usr/share/doc/bash")


@pytest.mark.skipif(
    not (BASH_DOCS / "bash.pdf").is_file() or not (BASH_DOCS / "bash.html").is_file(),
    reason="Debian's bash-doc is not installed here",
)
def test_debians_bash_pdf_has_the_words_of_its_html_page() -> None:
    """Read as PDFium reads it, 824 of bash.pdf's 51,459 words were two words of bash.html
    joined ("ifthe", "theyare"); now at most a few dozen are (PDFium's own odd breaks)."""
    words = re.compile(r"\w+")
    pdf_words = words.findall(load_chunks_text(BASH_DOCS / "bash.pdf").lower())
    html_words = set(words.findall(load_chunks_text(BASH_DOCS / "bash.html").lower()))
    joined = [
        w
        for w in pdf_words
        if w not in html_words
        and any(w[:i] in html_words and w[i:] in html_words for i in range(1, len(w)))
    ]
    assert len(pdf_words) > 40_000
    assert len(joined) < 0.002 * len(pdf_words), joined[:20]


def load_chunks_text(path: Path) -> str:
    documents, _ = load_paths([path])
    return "\n".join(document.text for document in documents)


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda p: make_pdf(p, ["Secret text"], password="pw"), "encrypted PDF"),
        (lambda p: make_pdf(p, ["", ""]), "no text layer"),
        (lambda p: p.write_bytes(b"%PDF-1.4\n1 0 obj garbage"), "not a readable PDF"),
    ],
    ids=["encrypted", "scanned", "corrupt"],
)
def test_bad_pdfs_are_skipped_with_the_reason(tmp_path: Path, make: object, reason: str) -> None:
    (tmp_path / "docs").mkdir()
    make(tmp_path / "docs" / "bad.pdf")  # type: ignore[operator]
    (tmp_path / "docs" / "ok.md").write_text("# Ok\n\nfine\n")
    with pytest.warns(SkippedFileWarning, match=reason):
        documents, report = load_paths([tmp_path / "docs"])
    assert [d.source for d in documents] == ["ok.md"]
    assert report.skipped[0].path == "bad.pdf" and reason in report.skipped[0].reason


def test_running_heads_page_numbers_and_dot_leaders_are_left_out(tmp_path: Path) -> None:
    bodies = [
        "Library Handbook\n\nOpening hours\n\nThe library opens at nine.",
        "Contents\n\n1 Loans . . . . . . . . . . 3\n2 Fines ......................... 4",
        "Loans\n\nBooks may be borrowed for three weeks.",
        "Fines\n\nA late book costs ten pence a day.",
        "Rooms\n\nStudy rooms are booked at the desk.",
    ]
    pages = [f"Library Handbook\n{body}\n\n{n}" for n, body in enumerate(bodies, start=1)]
    pages[1] = f"ii\n{pages[1]}"  # a front-matter page number above the running head
    make_pdf(tmp_path / "docs" / "handbook.pdf", pages)
    chunks, _ = load_chunks([tmp_path / "docs"])
    assert [c.id for c in chunks] == [f"handbook.pdf#p{n}" for n in range(1, 6)]
    texts = [c.text for c in chunks]
    assert texts[0].startswith("Library Handbook")  # the first page keeps the running head
    assert not any("Library Handbook" in t for t in texts[1:])
    assert not any(
        line.strip() in {"1", "2", "3", "4", "5", "ii"} for t in texts for line in t.split("\n")
    )
    assert "Loans . ." not in texts[1] and "Fines ...." not in texts[1] and "Contents" in texts[1]
    assert "three weeks" in texts[2] and "ten pence" in texts[3] and "Study rooms" in texts[4]


def test_layout_keeps_what_is_text() -> None:
    from docqa.text.pdf import _layout

    body = ["Interior line", "Interior line", "Interior line"]  # on every page, never at an edge
    pages = [
        ["Repeated twice", "one", *body, "two", "\x88 manip\ufffeulation of encod\ufffeings"],
        ["Repeated twice", "three", *body, "four", "mix"],
        ["head 3", "five", *body, "six", "x"],
        ["iv", "seven", *body, "eight", "Mild"],
        ["Head 12", "nine", *body, "ten", "Head 13"],
        ["Head 14", "eleven", *body, "and then....", "13"],
    ]
    out = _layout(pages)
    # PDFium's hyphenation marks go, and C1 controls (gnuplot's bullets come out as U+0088)
    assert out[0][-1] == " manipulation of encodings"
    assert out[1][0] == "Repeated twice"  # at the edge of two pages only: text
    assert out[1][-1] == "mix" and out[3][-1] == "Mild"  # words, not roman page numbers
    assert out[2][-1] == "" and out[3][0] == ""  # "x" and "iv" are page numbers
    # a running head, digits aside (at the edge of three pages), but on its first page
    assert out[2][0] == "head 3" and out[4][0] == out[4][-1] == out[5][0] == out[5][-1] == ""
    assert out[5][-2] == "and then...."  # dots with no page number after them are prose
    assert all(p[2:5] == body for p in out)
    assert [len(p) for p in out] == [len(p) for p in pages]  # line numbers stay


def test_running_heads_with_the_printed_page_number_go_on_every_page() -> None:
    from docqa.text.pdf import _layout

    ends = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"]
    body = ["Body one", "Body two", "Body three"]  # never at an edge
    heads = [  # two front pages, so the file's page 3 is printed 1
        ["Handbook", "A guide"],
        ["i", "Contents"],
        ["1", "1 Loans"],  # chapter 1's heading begins with the printed number 1
        ["Chapter 1: Loans 2", "Terms"],  # a head on one page only
        ["3", "2 Fines"],
        ["Chapter 2: Fines 4", "Rates"],  # a short chapter: its head is on two pages
        ["Chapter 2: Fines 5", "Waivers"],
    ]
    pages = [[*head, *body, f"{end} one", f"{end} two"] for head, end in zip(heads, ends)]
    out = _layout(pages)
    assert out[5][0] == out[6][0] == ""  # both, the first page it is on too
    assert out[2][:2] == ["", "1 Loans"] and out[4][:2] == ["", "2 Fines"]
    assert out[3][0] == "Chapter 1: Loans 2"  # at the edge of one page: could be text
    assert out[0][:2] == ["Handbook", "A guide"] and out[1][:2] == ["", "Contents"]
    assert [p[1:] for p in out] == [p[1:] for p in pages]  # nothing else goes


def test_numbered_heads_stay_when_the_pages_agree_on_no_offset() -> None:
    from docqa.text.pdf import _layout

    body = ["Body one", "Body two", "Body three"]
    # "Part 5" and "Part 6" are at the edge of two pages, each with its page less 4, but no
    # offset is shared by three pages: no number here is known to be a printed page number
    heads = ["Part 5", "Part 6", "Other 2", "Else 9"]
    ends = ["alpha", "beta", "gamma", "delta"]
    out = _layout([[head, *body, end] for head, end in zip(heads, ends)])
    assert [p[0] for p in out] == heads


@pytest.mark.parametrize("outlined", [False, True])
def test_lines_set_in_a_monospaced_font_are_code(tmp_path: Path, outlined: bool) -> None:
    """gnuplot's PDF manual (LaTeX, CMTT10 for its examples) ran each example into the prose
    around it: "Syntax: load "<input-file>" The name of the input file ...". Lines in a
    monospaced font are code blocks, their lines kept; a lone one with no character of code
    in it (a Texinfo table's term, "exit status") stays in its paragraph."""
    doc = FPDF()
    doc.add_page()
    if outlined:  # cut at its outline's headings (pdf_outline), not at its pages
        doc.set_font("helvetica", size=14)
        doc.start_section("Load")
        doc.cell(0, 8, "Load", new_x="LMARGIN", new_y="NEXT")
    for font, line in [
        ("helvetica", "The load command runs each line of a file. Syntax:"),
        ("courier", 'load "<input-file>"'),
        ("helvetica", "The name of the file must be quoted. Examples:"),
        ("courier", "load 'work.gnu'"),
        ("courier", "load 'func.dat'"),
        ("helvetica", "Files are loaded in order."),
        ("courier", "exit status"),
        ("helvetica", "The value a command returns."),
    ]:
        doc.set_font(font, size=11)
        doc.cell(0, 5, line, new_x="LMARGIN", new_y="NEXT")
    path = tmp_path / "docs" / "manual.pdf"
    path.parent.mkdir()
    doc.output(str(path))
    chunks, _ = load_chunks([tmp_path / "docs"])
    blocks = chunks[0].text.split("\n\n")
    assert blocks == [
        "The load command runs each line of a file. Syntax:",
        'load "<input-file>"',
        "The name of the file must be quoted. Examples:",
        "load 'work.gnu'\nload 'func.dat'",
        "Files are loaded in order. exit status The value a command returns.",
    ]
    assert chunks[0].id == ("manual.pdf#load" if outlined else "manual.pdf#p1")
    sections = pdf.pdf_sections(path.read_bytes())
    assert [b.kind for b in sections[-1].blocks] == ["text", "code", "text", "code", "text"]
    assert [line.number for line in sections[-1].blocks[3].lines] == [4 + outlined, 5 + outlined]
