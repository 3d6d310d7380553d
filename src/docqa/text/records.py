"""A document straight to its chunk records and embed texts, without ``Chunk`` objects: the
build's fast path. Pure.

``chunk_records(document, ...)`` gives exactly ``[writer.chunk_record(c) for c in chunks]``
and ``[embed_text(c, headings=...) for c in chunks]`` for ``chunks = chunk_document(document,
...)`` (the reference, tested equal): the same windows, ids, heading paths, line ranges and
sha256, the same JSON bytes. What it saves is the per-chunk Python around them: the parts a
document's chunks share (source, metadata, each section's heading path) are JSON-encoded once
a section, and each section's windows become their records' bytes and embed texts in one
native call (``docqa._parse.section_records``: the JSON escaping and the sha256 in C) whose
twin, ``section_records_python``, is tested equal; no ``Chunk`` or metadata mapping is built.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from json.encoder import encode_basestring

from docqa._parse import section_records, section_windows
from docqa.text.documents import Block, Document, Section, filled
from docqa.text.pieces import SectionPieces
from docqa.text.sections import (
    check_unique_ids,
    chunk_document,
    embed_text,
    heading_paths,
    section_ids,
)
from docqa.text.windows import MAX_WORDS, check_window

SectionRecords = Callable[
    [
        tuple[Block, ...], int, int, bytes, bytes, bytes, str, int, list[bytes], list[str], int,
        list[int] | None,
    ],
    int,
]  # fmt: skip
_WINDOW_ID = re.compile(r"-p[0-9]+\Z")


def _json(value: object) -> str:
    """``value`` as ``writer.chunk_record`` encodes it inside a record."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _strings(items: tuple[str, ...]) -> str:
    """``_json(list(items))`` for strings, without ``json.dumps``'s encoder object (one a
    section: the largest item in a profile of this module)."""
    return "[" + ",".join(map(encode_basestring, items)) + "]"


def chunk_records(
    document: Document,
    *,
    max_words: int = MAX_WORDS,
    overlap: int = 0,
    headings: bool = True,
    titles: list[str] | None = None,
) -> tuple[list[bytes], list[str]]:
    """``(chunk records, embed texts)`` of ``chunk_document(document, ...)``'s chunks, in order.
    ``titles``, when given, gets each chunk's heading path as one line (``Chunk.title``; ""
    without ``headings`` or a heading path), for its BM25 row (``sections.keyword_row``).

    Raises ``InputError`` as ``chunk_document`` and ``writer.chunk_record`` do (bad window
    settings, colliding ids, metadata that is not JSON): those cases are handed to them.
    """
    return _records(document, max_words, overlap, headings, section_records, titles)


def _records(
    document: Document,
    max_words: int,
    overlap: int,
    headings: bool,
    section: SectionRecords,
    titles: list[str] | None = None,
) -> tuple[list[bytes], list[str]]:
    """``chunk_records`` with each section's windows turned into records by ``section``."""
    records: list[bytes] = []
    texts: list[str] = []
    for part in record_parts(document, max_words, overlap, headings, None, section):
        records += part.records
        texts += part.texts
        if titles is not None:
            titles += part.titles
    return records, texts


@dataclass(slots=True)
class RecordPart:
    """Consecutive chunks of one document: their records, embed texts and titles (the
    ``chunk_records`` lists), and how many of the document's text characters they hold."""

    records: list[bytes] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    size: int = 0


def record_parts(
    document: Document,
    max_words: int,
    overlap: int,
    headings: bool,
    part_chars: int | None,
    section: SectionRecords = section_records,
    bodies: Iterator[Iterator[Block]] | None = None,
) -> Iterator[RecordPart]:
    """``chunk_records`` in parts, in order: a part ends once its text comes to
    ``part_chars`` characters (None: one part), after a section or, in a longer section,
    after a piece of it (``SectionPieces``: the section is windowed a piece at a time). The
    sections and blocks of a part are let go as it is made, so a caller that holds no other
    reference to ``document`` (``del`` it after this call) holds a large file's parsed
    sections and its records at most a part apart, and one section's units a piece at a time.

    ``bodies``, when given, gives each section's blocks in turn, ``document``'s sections
    holding none (a plain text read as it is chunked: ``reading.document_stream``): then no
    more than a piece of them is held at once."""
    check_window("max_words", max_words, "overlap", overlap)
    ids = section_ids(document)
    tails = _tails(document)
    if bodies is not None and (tails is None or any(map(_WINDOW_ID.search, ids))):
        document, bodies = filled(document, bodies), None  # as the reference needs it
    if tails is None:
        yield _whole(document, max_words, overlap, headings)
        return
    if any(map(_WINDOW_ID.search, ids)):
        part_chars = None  # ids may collide: the whole page is checked before it is given
    head = ',"source":' + encode_basestring(document.source) + ',"position":'
    paths = heading_paths(document)
    sections: list[Section | None] = list(document.sections)
    keep = document if part_chars is None else None  # the reference needs it on a collision
    del document
    counts: list[int] = []
    cursor = _Cursor(part_chars)
    for at, (section_id, path) in enumerate(zip(ids, paths, strict=True)):
        sec, sections[at] = sections[at], None
        assert sec is not None
        middle = (',"section":' + encode_basestring(section_id) + ',"heading_path":'
                  + _strings(path) + head).encode()  # fmt: skip
        end = tails[1][sec.page] if sec.page else tails[0]
        line = " > ".join(path) if headings and path else ""
        prefix = line + "\n\n" if headings and path else ""  # a path ("",) still gives one
        pieces = SectionPieces(sec.blocks if bodies is None else next(bodies), part_chars)
        del sec  # the pieces let its blocks go as they are windowed
        fixed = (max_words, overlap, encode_basestring(section_id).encode(), middle, end, prefix)
        last = at == len(ids) - 1
        counts.append((yield from _windowed(section, pieces, fixed, cursor, line, last)))
    if keep is not None and _collide(ids, counts):
        yield _whole(keep, max_words, overlap, headings)  # raises its error
        return
    yield cursor.part


@dataclass
class _Cursor:
    """Where ``record_parts`` is: the part being filled and the next chunk's position."""

    part_chars: int | None
    part: RecordPart = field(default_factory=RecordPart)
    position: int = 0

    def full(self, more: bool) -> RecordPart | None:
        """The part, replaced by a new one, when it holds ``part_chars`` characters and
        ``more`` records will follow; else None."""
        if self.part_chars is None or self.part.size < self.part_chars or not more:
            return None
        done, self.part = self.part, RecordPart()
        return done


def _windowed(
    section: SectionRecords,
    pieces: SectionPieces,
    fixed: tuple[int, int, bytes, bytes, bytes, str],
    cursor: _Cursor,
    line: str,
    last: bool,
) -> Generator[RecordPart, None, int]:
    """One section's records, a piece at a time, appended to ``cursor``'s part, yielding each
    part that fills (``fixed``: ``section``'s max_words, overlap, id, middle, end and prefix;
    ``last``: the document's last section). Returns how many windows the section made."""
    first = 1
    while not pieces.done:
        blocks, rest = pieces.next()
        part = cursor.part
        n = section(blocks, *fixed, cursor.position, part.records, part.texts, first, rest)
        del blocks
        pieces.took(n, rest)
        first, cursor.position = first + n, cursor.position + n
        part.titles += [line] * n
        part.size += pieces.size
        full = cursor.full(more=not pieces.done or not last)
        if full is not None:
            yield full
    return first - 1


def _tails(document: Document) -> tuple[bytes, dict[int, bytes]] | None:
    """The end of each record of ``document`` (its metadata), and of a PDF page's by page;
    None when the metadata is not JSON (the reference then raises its error)."""
    try:
        metadata = {**document.metadata, "title": document.title}
        tail = ('","metadata":' + _json(metadata) + "}").encode()
        pages = {s.page for s in document.sections if s.page}
        by_page = {
            p: ('","metadata":' + _json({**metadata, "page": p}) + "}").encode() for p in pages
        }
    except (TypeError, ValueError):
        return None
    return tail, by_page


def _whole(document: Document, max_words: int, overlap: int, headings: bool) -> RecordPart:
    """The whole of ``document`` as one part, by way of ``Chunk`` objects (``_reference``)."""
    titles: list[str] = []
    records, texts = _reference(document, max_words, overlap, headings, titles)
    return RecordPart(records, texts, titles)


def _collide(ids: list[str], counts: list[int]) -> bool:
    """Whether two chunk ids are the same: a window id (``<section>-p2``, ...) that is another
    section's id; only possible when a section id ends like a window id (``_WINDOW_ID``)."""
    chunk_ids = [
        i if part == 1 else f"{i}-p{part}"
        for i, n in zip(ids, counts, strict=True)
        for part in range(1, n + 1)
    ]
    return len(set(chunk_ids)) != len(chunk_ids)


def section_records_python(
    blocks: tuple[Block, ...],
    max_words: int,
    overlap: int,
    id_json: bytes,
    middle: bytes,
    tail: bytes,
    title: str,
    position: int,
    records: list[bytes],
    texts: list[str],
    first_part: int = 1,
    rest: list[int] | None = None,
) -> int:
    """The twin of the native ``docqa._parse.section_records`` (tested equal): a section's
    windows appended to ``records`` and ``texts`` as their JSON bytes and embed texts, the
    first numbered ``first_part``; ``rest`` as for ``section_windows``."""
    windows = section_windows(blocks, max_words, overlap, rest)
    for part, (text, start_line, end_line) in enumerate(windows, start=first_part):
        chunk_id = id_json if part == 1 else id_json[:-1] + f'-p{part}"'.encode()
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        at = position + part - first_part
        records.append(
            b'{"id":'
            + chunk_id
            + middle
            + f'{at},"start_line":{start_line},"end_line":{end_line},"text":'.encode()
            + encode_basestring(text).encode("utf-8")
            + b',"content_hash":"'
            + sha.encode()
            + tail
        )
        texts.append(title + text if title else text)
    return len(windows)


def _reference(
    document: Document,
    max_words: int,
    overlap: int,
    headings: bool,
    titles: list[str] | None = None,
) -> tuple[list[bytes], list[str]]:
    """``chunk_records`` by way of ``Chunk`` objects: the twin it is tested equal to."""
    from docqa.index.writer import chunk_record

    chunks = chunk_document(document, max_words=max_words, overlap=overlap)
    check_unique_ids(document, chunks)
    if titles is not None:
        titles.extend(c.title if headings and c.heading_path else "" for c in chunks)
    return [chunk_record(c) for c in chunks], [embed_text(c, headings=headings) for c in chunks]
