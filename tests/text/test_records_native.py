"""The native ``docqa._parse.section_records`` writes the same record bytes and embed texts as
its Python twin ``section_records_python`` and, through ``chunk_records``, as the ``Chunk``
reference: over generated documents whose text, headings, sources and metadata hold unicode,
control characters, quotes and backslashes, with pages and with headings off."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa._parse import section_records
from docqa.errors import InputError
from docqa.index.writer import chunk_record
from docqa.text.documents import Block, Document, Line, Section
from docqa.text.records import _records, chunk_records, section_records_python
from docqa.text.sections import chunk_document, embed_text

# every escape json knows, other control characters, non-ASCII of each width, a lone word
CHARS = st.sampled_from(list('ab "\\/\b\f\n\r\t\x00\x01\x1f\x7f é\u00a0\u2028日😀-_p2#') + ["word"])
LINE_TEXT = st.lists(CHARS, min_size=1, max_size=12).map("".join)
NAME = st.text(alphabet=st.sampled_from(list('aZ9 "\\\x01é日-p2')), max_size=8)
META_VALUE = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), NAME, st.lists(NAME, max_size=2)
)


@st.composite
def blocks(draw: st.DrawFn, first_line: int) -> tuple[Block, ...]:
    out = []
    number = first_line
    for _ in range(draw(st.integers(0, 3))):
        lines = []
        for text in draw(st.lists(LINE_TEXT, min_size=1, max_size=4)):
            lines.append(Line(number, text))
            number += draw(st.integers(1, 2))
        out.append(Block(draw(st.sampled_from(["text", "table", "code"])), tuple(lines)))
    return tuple(out)


@st.composite
def documents(draw: st.DrawFn) -> Document:
    paged = draw(st.booleans())
    sections = []
    for i in range(draw(st.integers(0, 5))):
        level = draw(st.integers(0 if i == 0 else 1, 3))
        heading = draw(NAME) if level else ""
        body = draw(blocks(10 * i + 1))
        sections.append(
            Section(heading, level, 10 * i + 1, 10 * i + 9, body, i + 1 if paged else 0)
        )
    metadata = draw(st.dictionaries(NAME, META_VALUE, max_size=3))
    source = draw(NAME) + (".pdf" if paged else ".md")
    return Document(source, draw(NAME), tuple(sections), metadata)


def twin(
    doc: Document, max_words: int, overlap: int, headings: bool
) -> tuple[list[bytes], list[str]]:
    chunks = chunk_document(doc, max_words=max_words, overlap=overlap)
    return [chunk_record(c) for c in chunks], [embed_text(c, headings=headings) for c in chunks]


@settings(max_examples=300, deadline=None)
@given(documents(), st.integers(1, 8), st.data(), st.booleans())
def test_generated_documents_give_the_reference_bytes(
    doc: Document, max_words: int, data: st.DataObject, headings: bool
) -> None:
    overlap = data.draw(st.integers(0, max_words - 1))
    try:
        expected = twin(doc, max_words, overlap, headings)
    except InputError:
        with pytest.raises(InputError, match="used twice"):
            chunk_records(doc, max_words=max_words, overlap=overlap, headings=headings)
        return
    titles: list[str] = []
    got = chunk_records(doc, max_words=max_words, overlap=overlap, headings=headings, titles=titles)
    assert got == expected
    chunks = chunk_document(doc, max_words=max_words, overlap=overlap)
    assert titles == [c.title if headings and c.heading_path else "" for c in chunks]
    python = _records(doc, max_words, overlap, headings, section_records_python)
    assert python == expected


@settings(max_examples=300, deadline=None)
@given(
    blocks(1), st.integers(1, 6), st.binary(max_size=12), st.integers(0, 10**12), st.booleans(),
    st.integers(1, 10**6), st.booleans(),
)  # fmt: skip
def test_one_section_native_equals_python(
    body: tuple[Block, ...],
    max_words: int,
    raw: bytes,
    position: int,
    titled: bool,
    first_part: int,
    start: bool,
) -> None:
    id_json = json.dumps(raw.decode("latin-1"), ensure_ascii=False).encode()
    middle, tail = b',"m":' + raw + b',"position":', b'","t":"' + raw + b'"}'
    title = "T > \x01é\n\n" if titled else ""
    fast: tuple[list[bytes], list[str]] = ([], [])
    slow: tuple[list[bytes], list[str]] = ([], [])
    rests: tuple[list[int] | None, list[int] | None] = ([], []) if start else (None, None)
    args = (body, max_words, 0, id_json, middle, tail, title, position)
    n = section_records(*args, *fast, first_part, rests[0])
    assert n == section_records_python(*args, *slow, first_part, rests[1])
    assert fast == slow and rests[0] == rests[1]
    assert len(fast[0]) == n


def test_a_sections_later_windows_are_numbered_on() -> None:
    body = (Block("text", (Line(3, "one two three four five"),)),)
    records: list[bytes] = []
    rest: list[int] = []
    args = (body, 2, 0, b'"a#intro"', b',"position":', b'"}', "", 40, records, [])
    assert section_records(*args, 7, rest) == 2  # "five" is left for what follows
    got = [json.loads(r.replace(b',"text"', b',"x":0,"text"')) for r in records]
    assert [(r["id"], r["position"], r["text"]) for r in got] == [
        ("a#intro-p7", 40, "one two"), ("a#intro-p8", 41, "three four")
    ]  # fmt: skip
    assert rest == [0, 0, 19]


def test_a_record_parses_back_with_its_sha256_and_window_ids() -> None:
    text = 'say "hi"\\ \x01 é 日 😀 ' * 3
    body = (Block("text", (Line(4, text),)),)
    records: list[bytes] = []
    texts: list[str] = []
    n = section_records(body, 5, 0, b'"a#x"', b',"position":', b'"}', "", 7, records, texts)
    parsed = [json.loads(r) for r in records]
    assert n == len(parsed) == len(texts) > 1
    assert [p["id"] for p in parsed] == ["a#x"] + [f"a#x-p{k}" for k in range(2, n + 1)]
    assert [p["position"] for p in parsed] == list(range(7, 7 + n))
    for p, t in zip(parsed, texts, strict=True):
        assert p["text"] == t and p["start_line"] == p["end_line"] == 4
        assert p["content_hash"] == hashlib.sha256(t.encode()).hexdigest()


def test_a_section_without_words_gives_nothing() -> None:
    records: list[bytes] = []
    assert section_records((), 5, 0, b'"a"', b"", b"", "", 0, records, []) == 0
    assert records == []


def test_a_lone_surrogate_fails_as_in_the_reference() -> None:
    body = (Block("text", (Line(1, "bad \ud800 text"),)),)
    with pytest.raises(UnicodeEncodeError):
        section_records(body, 5, 0, b'"a"', b"", b"", "", 0, [], [])
    with pytest.raises(UnicodeEncodeError):
        section_records_python(body, 5, 0, b'"a"', b"", b"", "", 0, [], [])
