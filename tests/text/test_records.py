"""``chunk_records`` (the build's fast path) gives exactly the records and embed texts of its
twin, ``chunk_document`` + ``writer.chunk_record`` + ``embed_text``: on the sample library,
the golden file, the pydocs pages, generated documents, PDF-like paged sections, tenants and
metadata that is not JSON, a plain text read as it is chunked; and the same errors."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from unittest.mock import patch

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docqa.errors import InputError
from docqa.index.writer import chunk_record
from docqa.text import reading
from docqa.text.documents import Block, Document, Line, Section, SkippedFile, filled
from docqa.text.loaders import find_files, load_file, parse_document
from docqa.text.plain import text_bodies, text_outline
from docqa.text.reading import document_stream
from docqa.text.records import _json, _strings, chunk_records, record_parts
from docqa.text.sections import chunk_document, embed_text

ROOT = Path(__file__).resolve().parents[2]
PYDOCS = [p / "shared" / "evalsets" / "pydocs" / "corpus" for p in (ROOT.parent, ROOT.parents[1])]
# the first of them found (a checkout may see the same set in both places)
PAGES = next((sorted(d.rglob("*.html")) for d in PYDOCS if d.is_dir()), [])


def twin(
    doc: Document, max_words: int, overlap: int, headings: bool
) -> tuple[list[bytes], list[str]]:
    chunks = chunk_document(doc, max_words=max_words, overlap=overlap)
    return [chunk_record(c) for c in chunks], [embed_text(c, headings=headings) for c in chunks]


def assert_same(
    doc: Document, max_words: int = 120, overlap: int = 0, headings: bool = True
) -> None:
    got = chunk_records(doc, max_words=max_words, overlap=overlap, headings=headings)
    assert got == twin(doc, max_words, overlap, headings)


def library_docs() -> list[Document]:
    files, _ = find_files([ROOT / "examples" / "library", Path(__file__).parent / "data"])
    docs = [load_file(path, source) for path, source in files]
    return [d for d in docs if isinstance(d, Document)]


@pytest.mark.parametrize(
    ("max_words", "overlap", "headings"), [(120, 0, True), (12, 4, False), (1, 0, True)]
)
def test_library_and_golden_records_are_the_same(
    max_words: int, overlap: int, headings: bool
) -> None:
    docs = library_docs()
    assert len(docs) >= 10
    for doc in docs:
        assert_same(doc, max_words, overlap, headings)


@pytest.mark.skipif(not PAGES, reason="the pydocs evaluation set is not beside the repository")
def test_every_pydocs_page_gives_the_same_records() -> None:
    assert len(PAGES) == 150
    for page in PAGES:
        assert_same(parse_document(page.name, page.read_text(encoding="utf-8")))


def test_paged_sections_tenant_and_odd_strings_are_encoded_the_same() -> None:
    lines = (
        Line(1, 'quote " back\\slash é \u2028 tab\t ctrl\x01 {"json": 1}'),
        Line(2, "| a | b |"),
    )
    sections = (
        Section(
            'Guide "one"', 1, 1, 2, (Block("text", lines[:1]), Block("table", lines[1:])), page=1
        ),
        Section("", 0, 3, 3, (Block("text", (Line(3, "page two text"),)),), page=2),
    )
    meta = {"format": "pdf", "tenant": "näme", "page": 9, "n": 1.5, "none": None, "tags": ["x", 2]}
    doc = Document('dir/guide "x".pdf', 'Guide "one"', sections, meta)
    assert_same(doc)
    assert_same(doc, 2, 1, False)
    records, _ = chunk_records(doc)
    assert [json.loads(r)["metadata"]["page"] for r in records] == [1, 2]


def test_metadata_that_is_not_json_fails_as_its_twin() -> None:
    doc = Document(
        "a.md", "A", (Section("A", 1, 1, 1, (Block("text", (Line(1, "x"),)),)),), {"d": {1, 2}}
    )
    with pytest.raises(InputError, match="not JSON-serialisable"):
        chunk_records(doc)


def test_colliding_ids_fail_as_their_twin() -> None:
    text = "# Loans\n\n" + "word " * 30 + "\n\n# Loans p2\n\nmore\n"
    doc = parse_document("a.md", text)
    with pytest.raises(InputError, match="used twice"):
        chunk_document(doc, max_words=10)
    with pytest.raises(InputError, match="used twice"):
        chunk_records(doc, max_words=10)


def test_bad_window_settings_fail() -> None:
    with pytest.raises(InputError):
        chunk_records(library_docs()[0], max_words=5, overlap=5)


WORD = st.sampled_from(["loan", "fee", "é", "x_y", '"q"', "\\", "|", "a-b", "\u00a0", "日本"])
TEXT = st.lists(WORD, min_size=1, max_size=8).map(" ".join)


@st.composite
def markdown(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["h", "p", "code", "table"]))
        if kind == "h":
            parts.append(
                "#" * draw(st.integers(1, 3))
                + " "
                + draw(st.sampled_from(["Loans", "Fees", "Loans", "p2"]))
            )
        elif kind == "p":
            parts.append("\n".join(draw(st.lists(TEXT, min_size=1, max_size=4))))
        elif kind == "code":
            parts.append(
                "```\n" + "\n".join(draw(st.lists(TEXT, min_size=1, max_size=4))) + "\n```"
            )
        else:
            rows = draw(st.lists(st.tuples(WORD, WORD), min_size=1, max_size=4))
            parts.append("| a | b |\n|---|---|\n" + "\n".join(f"| {x} | {y} |" for x, y in rows))
    return "\n\n".join(parts)


@given(markdown(), st.integers(1, 15), st.data(), st.booleans())
def test_generated_documents_give_the_same_records(
    text: str, max_words: int, data: st.DataObject, headings: bool
) -> None:
    overlap = data.draw(st.integers(0, max_words - 1))
    doc = parse_document("gen/page.md", text)
    try:
        expected = twin(doc, max_words, overlap, headings)
    except InputError as exc:
        with pytest.raises(InputError, match="used twice"):
            chunk_records(doc, max_words=max_words, overlap=overlap, headings=headings)
        assert "used twice" in str(exc)
        return
    assert chunk_records(doc, max_words=max_words, overlap=overlap, headings=headings) == expected


@given(st.lists(st.text(), max_size=5).map(tuple))
def test_a_heading_path_encodes_as_json_does(path: tuple[str, ...]) -> None:
    assert _strings(path) == _json(list(path))


@st.composite
def plain_text(draw: st.DrawFn) -> str:
    parts = []
    for n in range(draw(st.integers(0, 10))):
        kind = draw(st.sampled_from(["numbered", "underlined", "man", "p", "p"]))
        name = draw(st.sampled_from(["Loans", "Fees", "Loans p2", "Notes"]))
        if kind == "numbered":
            parts.append(f"{n + 1}.{draw(st.integers(1, 3))}. {name}")
        elif kind == "underlined":
            parts.append(f"{name}\n{draw(st.sampled_from(['=', '-'])) * 10}")
        elif kind == "man":
            parts.append(name.upper() + "\n       " + draw(TEXT))
        else:
            parts.append("\n".join(draw(st.lists(TEXT, min_size=1, max_size=4))))
    return "\n\n".join(parts)


@given(plain_text(), st.integers(1, 15), st.data(), st.booleans(), st.integers(1, 60))
def test_a_plain_text_read_as_it_is_chunked_gives_the_same_records(
    text: str, max_words: int, data: st.DataObject, headings: bool, part_chars: int
) -> None:
    overlap = data.draw(st.integers(0, max_words - 1))
    doc = replace(parse_document("gen/notes.txt", text), content_hash="f00d")
    whole = document_stream("gen/notes.txt", text, "f00d")  # a short text: parsed whole
    assert whole == ((doc, None) if doc.sections else SkippedFile("gen/notes.txt", "no text"))
    with patch.object(reading, "STREAM_CHARS", 0):  # any longer text is read as it is chunked
        streamed = document_stream("gen/notes.txt", text, "f00d")
    if not doc.sections:
        assert streamed == SkippedFile("gen/notes.txt", "no text")
        return
    assert isinstance(streamed, tuple) and streamed[1] is not None
    head, bodies = streamed
    assert filled(head, text_bodies(text, text_outline(text))) == doc
    try:
        expected = twin(doc, max_words, overlap, headings)
    except InputError as exc:
        with pytest.raises(InputError, match="used twice"):
            list(record_parts(head, max_words, overlap, headings, part_chars, bodies=bodies))
        assert "used twice" in str(exc)
        return
    parts = list(record_parts(head, max_words, overlap, headings, part_chars, bodies=bodies))
    assert [r for p in parts for r in p.records] == expected[0]
    assert [t for p in parts for t in p.texts] == expected[1]
