"""A PDF with an outline (bookmarks) is cut at its headings: ids, heading paths and pages from
the outline, the printed heading line found on its page. The PDFs are made at run time with
fpdf2; the placing rules are checked on page lines directly."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF

from docqa.text import load_chunks
from docqa.text.pdf_outline import Mark, outline_sections


def make_outlined_pdf(path: Path) -> Path:
    pdf = FPDF()
    pdf.set_font("helvetica", size=11)

    def write(text: str) -> None:
        pdf.multi_cell(0, 5, text, new_x="LMARGIN", new_y="NEXT")

    pdf.add_page()
    write("The Library Manual\n\nEdition 2")  # a title page, no outline entry
    pdf.add_page()
    pdf.start_section("Loans", level=0)
    write("1 Loans\n\nBooks may be borrowed for three weeks.")
    pdf.start_section("Renewing a loan", level=1)
    write("1.1 Renewing a loan\n\nA loan is renewed twice at most.")
    pdf.add_page()
    write("Renew online or at a desk.")  # the section goes on over the page
    pdf.start_section("Fines", level=0)
    write("2 Fines\n\nA late book costs ten pence a day.")
    path.parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(path))
    return path


def test_an_outlined_pdf_is_cut_at_its_headings(tmp_path: Path) -> None:
    make_outlined_pdf(tmp_path / "docs" / "manual.pdf")
    chunks, _ = load_chunks([tmp_path / "docs"])
    assert [c.id for c in chunks] == [
        "manual.pdf#p1",
        "manual.pdf#loans",
        "manual.pdf#renewing-a-loan",
        "manual.pdf#fines",
    ]
    assert [c.heading_path for c in chunks] == [
        ("Manual", "p. 1"),
        ("Manual", "Loans"),
        ("Manual", "Loans", "Renewing a loan"),
        ("Manual", "Fines"),
    ]
    assert [c.metadata["page"] for c in chunks] == [1, 2, 2, 3]
    renewing = chunks[2].text
    assert "twice at most" in renewing and "Renew online" in renewing  # over the page break
    assert "1.1 Renewing a loan" not in renewing  # the printed heading is no body text
    assert "three weeks" in chunks[1].text and "Renewing" not in chunks[1].text
    assert "ten pence" in chunks[3].text


def test_an_outline_pdfium_cannot_read_leaves_the_file_cut_at_its_pages(tmp_path: Path) -> None:
    # a bookmark title of one lone UTF-16 surrogate: reading it raises in pypdfium2
    path = make_outlined_pdf(tmp_path / "docs" / "manual.pdf")
    data = path.read_bytes()
    assert b"/Title (Fines)" in data
    path.write_bytes(data.replace(b"/Title (Fines)", b"/Title <FEFFD800>", 1))
    chunks, report = load_chunks([tmp_path / "docs"])
    assert [c.id for c in chunks] == ["manual.pdf#p1", "manual.pdf#p2", "manual.pdf#p3"]
    assert not report.skipped and "ten pence" in chunks[2].text


def test_outline_titles_are_found_as_printed() -> None:
    pages = [
        ["See the list of options below.", "16.2 Description of Options", "Each option ..."],
        ["Appendix B Major Differences From The", "Bourne Shell", "Bash is ...", "‘=’ expansion",
         "An equals sign ..."],
    ]  # fmt: skip
    marks = [
        Mark("Description of Options", 1, 1),
        Mark("Major Differences From The Bourne Shell", 1, 2),
        Mark("`=' expansion", 2, 2),
    ]
    placed = outline_sections(pages, marks, [1, 4, 9])
    assert placed is not None
    front, sections = placed
    assert front == (0, 1)  # the line before the first heading is front matter
    assert [(s.heading, s.level, s.page, s.start_line) for s in sections] == [
        ("Description of Options", 1, 1, 2),
        ("Major Differences From The Bourne Shell", 1, 2, 4),
        ("`=' expansion", 2, 2, 7),
    ]
    assert [s.text for s in sections] == ["Each option ...", "Bash is ...", "An equals sign ..."]


def test_a_title_no_line_reads_as_starts_at_its_page_top() -> None:
    pages = [["Intro text."], ["Some body.", "More body."]]
    placed = outline_sections(pages, [Mark("Not printed", 1, 2)], [1, 2, 4])
    assert placed is not None
    front, (section,) = placed
    assert front == (1, 0)
    assert section.text == "Some body. More body." and section.start_line == 2


def test_an_outline_that_goes_back_or_points_nowhere_is_not_used() -> None:
    pages = [["A"], ["B"]]
    backward = [Mark("B", 1, 2), Mark("A", 1, 1)]
    assert outline_sections(pages, backward, [1, 2, 3]) is None
    assert outline_sections(pages, [Mark("A", 1, 9), Mark("", 1, 1)], [1, 2, 3]) is None
