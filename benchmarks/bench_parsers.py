"""Which parser: Markdown, HTML and PDF candidates on real files, CPU MB/s, one process.

    python benchmarks/bench_parsers.py [--where DIR]

Markdown: the real Markdown of the benchmark seed (``index_corpus.seed``), parsed by the
reference (markdown-it-py, ``docqa.text.markdown``), by the fast path
(``docqa.text.markdown_fast``: pyromark events walked into blocks), and by the raw
candidates (pyromark's events alone, cmarkgfm and mistune to their own output), with the
number of files where the fast path and the reference disagree. HTML: the seed's pages
(pydocs) as ``parse_html`` takes them, through ``HTMLParser`` driving the handlers (the
reference) and through the native scanner (``docqa._parse.marks_content`` and ``scan_html``),
with the files it hands back and those that differ. Chunk
records: the seed's documents to records and embed texts through ``Chunk`` objects (the
reference) and through ``docqa.text.records.chunk_records``. PDF: pypdfium2 against
pypdf on a 200-page PDF made with fpdf2. CPU time (``time.process_time``), best of 3, so a
busy machine distorts it less than wall time.
"""

from __future__ import annotations

import argparse
import io
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from index_corpus import MB, seed


def best(fn: Callable[[], object], rounds: int = 3) -> float:
    times = []
    for _ in range(rounds):
        started = time.process_time()
        fn()
        times.append(time.process_time() - started)
    return min(times)


def markdown(texts: list[str]) -> None:
    import cmarkgfm
    import mistune
    import pyromark

    from docqa.text.markdown import parse_markdown
    from docqa.text.markdown_fast import parse_markdown_fast

    mb = sum(len(t.encode()) for t in texts) / MB
    some = texts[: max(1, len(texts) // 8)]  # the slow ones on an eighth of the files
    some_mb = sum(len(t.encode()) for t in some) / MB
    ast = mistune.create_markdown(renderer=None, plugins=["table"])
    options = pyromark.Options.ENABLE_TABLES
    rows = [
        ("markdown-it-py (reference)", some_mb, lambda: [parse_markdown(t) for t in some]),
        ("docqa fast path (pyromark walk)", mb, lambda: [parse_markdown_fast(t) for t in texts]),
        ("pyromark events alone", mb, lambda: [list(pyromark.events_with_range(t, options=options)) for t in texts]),
        ("cmarkgfm to HTML (no lines)", mb, lambda: [cmarkgfm.github_flavored_markdown_to_html(t) for t in texts]),
        ("mistune AST (no lines)", some_mb, lambda: [ast(t) for t in some]),
    ]  # fmt: skip
    print(f"\n## Markdown: {len(texts)} files, {mb:.1f} MB\n")
    print("| parser | CPU MB/s | vs reference |\n|---|---|---|")
    reference = 0.0
    for name, size, fn in rows:
        speed = size / best(fn, 1 if size == some_mb else 3)
        reference = reference or speed
        print(f"| {name} | {speed:.1f} | {speed / reference:.1f}x |")
    differ = sum(parse_markdown(t) != parse_markdown_fast(t) for t in texts)
    print(f"\nfast path and reference differ on {differ} of {len(texts)} files")


def html(texts: list[str]) -> None:
    """The seed's pages as ``parse_html`` sees them: whether the page marks its content, then
    the scan; the reference (``_MARKS_CONTENT`` + ``HTMLParser`` driving the handlers) against
    the native path (``marks_content`` + ``scan_html``), and the two steps alone."""
    from docqa._parse import marks_content, scan_html
    from docqa.text.html import _MARKS_CONTENT, _reference

    mb = sum(len(t.encode()) for t in texts) / MB
    marked = [bool(_MARKS_CONTENT.search(t)) for t in texts]
    pairs = list(zip(texts, marked, strict=True))
    ref = best(lambda: [_reference(t, 1, bool(_MARKS_CONTENT.search(t))) for t in texts], 1)
    fast = best(lambda: [scan_html(t, 1, marks_content(t)) for t in texts], 5)
    scan = best(lambda: [scan_html(t, 1, m) for t, m in pairs], 5)
    marks_ref = best(lambda: [_MARKS_CONTENT.search(t) for t in texts])
    marks = best(lambda: [marks_content(t) for t in texts], 5)
    found = [scan_html(t, 1, m) for t, m in pairs]
    back = sum(f is None for f in found)
    differ = sum(f is not None and f != _reference(t, 1, m) for f, (t, m) in zip(found, pairs))
    differ_marks = sum(marks_content(t) != m for t, m in pairs)
    print(f"\n## HTML: {len(texts)} pages, {mb:.1f} MB\n")
    print("| path | CPU MB/s | vs reference |\n|---|---|---|")
    print(f"| _MARKS_CONTENT + HTMLParser + handlers (reference) | {mb / ref:.1f} | 1.0x |")
    print(f"| marks_content + native scan_html | {mb / fast:.1f} | {ref / fast:.1f}x |")
    print(f"| native scan_html alone | {mb / scan:.1f} | |")
    print(f"| _MARKS_CONTENT regex alone | {mb / marks_ref:.1f} | |")
    print(f"| native marks_content alone | {mb / marks:.1f} | |")
    print(
        f"\nhanded back to the reference: {back}; differing from it: {differ}; "
        f"marks_content differing from the regex: {differ_marks}"
    )


def records(folder: Path) -> None:
    """Documents to chunk records and embed texts: ``Chunk`` objects and their JSON (the
    reference) against ``docqa.text.records.chunk_records`` (the build's path)."""
    from docqa.text.documents import Document
    from docqa.text.loaders import find_files, load_file
    from docqa.text.records import _reference, chunk_records

    files, _ = find_files([folder])
    docs = [d for path, source in files if isinstance(d := load_file(path, source), Document)]
    mb = sum(path.stat().st_size for path, _ in files) / MB
    ref = best(lambda: [_reference(d, 120, 0, True) for d in docs])
    fast = best(lambda: [chunk_records(d) for d in docs])
    differ = sum(chunk_records(d) != _reference(d, 120, 0, True) for d in docs)
    print(f"\n## Chunk records: {len(docs)} documents, {mb:.1f} MB of source\n")
    print("| path | CPU MB/s | vs reference |\n|---|---|---|")
    print(f"| Chunk objects + _chunk_record + embed_text (reference) | {mb / ref:.1f} | 1.0x |")
    print(f"| chunk_records | {mb / fast:.1f} | {ref / fast:.1f}x |")
    print(
        f"\nrecords or embed texts differing from the reference: {differ} of {len(docs)} documents"
    )


def pdf(pages: int = 200) -> None:
    import pypdf
    import pypdfium2
    from fpdf import FPDF

    doc = FPDF()
    doc.set_font("helvetica", size=11)
    for i in range(pages):
        doc.add_page()
        doc.multi_cell(0, 5, f"Page {i + 1}\n\n" + "The loan period is three weeks. " * 60)
    data = bytes(doc.output())

    def with_pdfium() -> list[str]:
        document = pypdfium2.PdfDocument(data)
        return [document[i].get_textpage().get_text_range() for i in range(len(document))]

    def with_pypdf() -> list[str]:
        return [p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages]

    assert len(with_pdfium()) == len(with_pypdf()) == pages
    a, b = best(with_pdfium), best(with_pypdf)
    print(f"\n## PDF: {pages} pages, {len(data) / MB:.2f} MB\n")
    print("| library | CPU s | pages/s |\n|---|---|---|")
    print(f"| pypdfium2 | {a:.2f} | {pages / a:.0f} |\n| pypdf | {b:.2f} | {pages / b:.0f} |")
    print(f"\npypdfium2 is {b / a:.1f}x faster")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--where", type=Path, default=Path(tempfile.gettempdir()) / "docqa-bench")
    args = parser.parse_args()
    args.where.mkdir(parents=True, exist_ok=True)
    files = sorted((seed(args.where) / "markdown").iterdir())
    markdown([p.read_text(encoding="utf-8", errors="replace") for p in files])
    pages = sorted((seed(args.where) / "pydocs").rglob("*.html"))
    html([p.read_text(encoding="utf-8-sig", errors="replace") for p in pages])
    records(seed(args.where))
    pdf()


if __name__ == "__main__":
    main()
