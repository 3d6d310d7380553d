"""Which parser: Markdown, HTML and PDF candidates on real files, CPU MB/s, one process.

    python benchmarks/bench_parsers.py [--where DIR]

Markdown: the real Markdown of the benchmark seed (``index_corpus.seed``), parsed by the
reference (markdown-it-py, ``docqa.text.markdown``), by the fast path
(``docqa.text.markdown_fast``: md4c's callbacks walked natively, the documents it hands back
through pyromark's), by the pyromark path alone (the fast path where md4c is not installed),
and by the raw candidates (pyromark's events alone, cmarkgfm and mistune to their own
output), with the files where the fast paths and the reference disagree and those md4c hands
back. The garbage collector is paused for the Markdown timings, as in the build's workers. HTML:
the seed's pages (pydocs) as ``parse_html`` takes them, through ``HTMLParser`` driving the
handlers (the reference) and through the native scanner (``docqa._parse.marks_content`` and
``scan_html``), with the files it hands back and those that differ. Chunk
records: the seed's documents to records and embed texts through ``Chunk`` objects (the
reference) and through ``docqa.text.records.chunk_records``. Stages: one worker's work on the
seed by stage (reading, Markdown, HTML, chunk records, embedding with BM25 counting from the
same scan, and each of those two alone). PDF: pypdfium2 against
pypdf on a 200-page PDF made with fpdf2. CPU time (``time.process_time``), best of 3, so a
busy machine distorts it less than wall time.
"""

from __future__ import annotations

import argparse
import gc
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


def pyromark_path(text: str) -> object:
    """``parse_markdown_fast`` as where the package was built without md4c."""
    from docqa.text.markdown_fast import parse_markdown_fast

    return without_md4c(lambda: parse_markdown_fast(text))


def without_md4c(fn: Callable[[], object]) -> object:
    """``fn()`` with Markdown parsed as where the package was built without md4c."""
    from unittest import mock

    from docqa.text import markdown_fast

    with mock.patch.object(markdown_fast, "_walk", markdown_fast.walk_pyromark):
        return fn()


def handed_back(texts: list[str]) -> list[str]:
    """The texts md4c's walk hands back (all of them when md4c is not built)."""
    from docqa.text.markdown_fast import _NEWLINES, split_front_matter
    from docqa.text.markdown_md4c import walk_md4c

    def body(text: str) -> str:
        return split_front_matter(_NEWLINES.sub("\n", text).replace("\0", "\ufffd"))[1]

    return [t for t in texts if walk_md4c(body(t)) is None]


def candidates(
    texts: list[str], some: list[str]
) -> list[tuple[str, list[str], Callable[[], object]]]:
    """The other parsers measured, those installed (pyromark's events, cmarkgfm, mistune)."""
    import pyromark

    options = pyromark.Options.ENABLE_TABLES
    rows: list[tuple[str, list[str], Callable[[], object]]] = [
        ("pyromark events alone", texts, lambda: [list(pyromark.events_with_range(t, options=options)) for t in texts]),
    ]  # fmt: skip
    try:
        import cmarkgfm

        html = cmarkgfm.github_flavored_markdown_to_html
        rows.append(("cmarkgfm to HTML (no lines)", texts, lambda: [html(t) for t in texts]))
    except ImportError:
        print("(cmarkgfm not installed: not measured)")
    try:
        import mistune

        ast = mistune.create_markdown(renderer=None, plugins=["table"])
        rows.append(("mistune AST (no lines)", some, lambda: [ast(t) for t in some]))
    except ImportError:
        print("(mistune not installed: not measured)")
    return rows


def markdown(texts: list[str]) -> None:
    from docqa.text.markdown import parse_markdown
    from docqa.text.markdown_fast import parse_markdown_fast

    some = texts[: max(1, len(texts) // 8)]  # the slow ones on an eighth of the files
    rows = [
        ("markdown-it-py (reference)", some, lambda: [parse_markdown(t) for t in some]),
        ("docqa fast path (md4c walk, hand-backs via pyromark)", texts, lambda: [parse_markdown_fast(t) for t in texts]),
        ("docqa pyromark path (without md4c)", texts, lambda: [pyromark_path(t) for t in texts]),
    ] + candidates(texts, some)  # fmt: skip
    mb = sum(len(t.encode()) for t in texts) / MB
    print(f"\n## Markdown: {len(texts)} files, {mb:.1f} MB\n")
    print("| parser | CPU MB/s | vs reference |\n|---|---|---|")
    reference = 0.0
    gc.disable()
    try:
        for name, used, fn in rows:
            speed = sum(len(t.encode()) for t in used) / MB / best(fn, 1 if used is some else 3)
            reference = reference or speed
            print(f"| {name} | {speed:.1f} | {speed / reference:.1f}x |")
    finally:
        gc.enable()
    agreement(texts)


def agreement(texts: list[str]) -> None:
    """Files where the fast paths and the reference differ, and those md4c hands back."""
    from docqa.text.markdown import parse_markdown
    from docqa.text.markdown_fast import parse_markdown_fast

    expected = [parse_markdown(t) for t in texts]
    differ = sum(e != parse_markdown_fast(t) for e, t in zip(expected, texts, strict=True))
    differ_pyromark = sum(e != pyromark_path(t) for e, t in zip(expected, texts, strict=True))
    back = handed_back(texts)
    back_mb = sum(len(t.encode()) for t in back) / MB
    print(f"\nfast path and reference differ on {differ} of {len(texts)} files")
    print(f"pyromark path and reference differ on {differ_pyromark} of {len(texts)} files")
    print(f"md4c hands back {len(back)} of {len(texts)} files ({back_mb:.2f} MB) to pyromark")


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


def stages(folder: Path) -> None:
    """One worker's work on the seed (``docqa.pipeline.work._run``'s steps, one process, the
    garbage collector paused as there), CPU seconds by stage, each stage's best of 3."""
    import hashlib

    from docqa.embed.hashing import HashingEmbedder
    from docqa.pipeline.work import postings_of, vectors_and_postings
    from docqa.text.loaders import find_files
    from docqa.text.reading import _decode, parse_document, read_bytes
    from docqa.text.records import chunk_records

    files, _ = find_files([folder])
    raw = [(source, read_bytes(path)) for path, source in files]
    data = [(source, d) for source, d in raw if isinstance(d, bytes)]
    texts = [(source, _decode(d)) for source, d in data]
    markdown = [(s, t) for s, t in texts if s.endswith(".md")]
    html = [(s, t) for s, t in texts if not s.endswith(".md")]
    docs = [parse_document(s, t) for s, t in texts]
    records = [chunk_records(d) for d in docs]
    embed_texts = [t for _, found in records for t in found]
    embedder = HashingEmbedder(256)
    rows = [
        ("reading, sha256, UTF-8 decoding", lambda: [(hashlib.sha256(d).digest(), _decode(d)) for _, d in data]),
        (f"Markdown parse ({len(markdown)} files)", lambda: [parse_document(s, t) for s, t in markdown]),
        ("(the same, pyromark path: not in the total)", lambda: without_md4c(lambda: [parse_document(s, t) for s, t in markdown])),
        (f"HTML parse ({len(html)} pages)", lambda: [parse_document(s, t) for s, t in html]),
        ("sections to chunk records (windows, ids, JSON)", lambda: [chunk_records(d) for d in docs]),
        ("embedding (hashing, 256) and BM25 counting, one scan", lambda: vectors_and_postings(embedder, embed_texts)),
        ("(BM25 counting alone: not in the total)", lambda: postings_of(embed_texts)),
        ("(embedding alone: not in the total)", lambda: embedder.embed(embed_texts)),
    ]  # fmt: skip
    print(
        f"\n## One worker's stages: {len(data)} files, {sum(len(d) for _, d in data) / MB:.1f} MB\n"
    )
    print("| stage | CPU s | share |\n|---|---|---|")
    gc.disable()
    try:
        found = [(name, best(fn)) for name, fn in rows]
    finally:
        gc.enable()
    total = sum(t for name, t in found if not name.startswith("("))
    for name, t in found:
        share = "" if name.startswith("(") else f"{100 * t / total:.0f}%"
        print(f"| {name} | {t:.2f} | {share} |")
    print(f"| total | {total:.2f} | |")


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
    stages(seed(args.where))
    pdf()


if __name__ == "__main__":
    main()
