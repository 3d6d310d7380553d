"""A document straight to its chunk records and embed texts, without ``Chunk`` objects: the
build's fast path. Pure.

``chunk_records(document, ...)`` gives exactly ``[writer._chunk_record(c) for c in chunks]``
and ``[embed_text(c, headings=...) for c in chunks]`` for ``chunks = chunk_document(document,
...)`` (the reference, tested equal): the same windows, ids, heading paths, line ranges and
sha256, the same JSON bytes. What it saves is the per-chunk Python around them: the parts a
document's chunks share (source, metadata, each section's heading path) are JSON-encoded once,
each chunk's record is one string concatenation of pre-encoded parts, and no ``Chunk`` or
metadata mapping is built per chunk.
"""

from __future__ import annotations

import hashlib
import json
from json.encoder import encode_basestring

from docqa._parse import section_windows
from docqa.text.documents import Document
from docqa.text.sections import (
    _check_unique,
    chunk_document,
    embed_text,
    heading_paths,
    section_ids,
)
from docqa.text.windows import check_window


def _json(value: object) -> str:
    """``value`` as ``writer._chunk_record`` encodes it inside a record."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _strings(items: tuple[str, ...]) -> str:
    """``_json(list(items))`` for strings, without ``json.dumps``'s encoder object (one a
    section: the largest item in a profile of this module)."""
    return "[" + ",".join(map(encode_basestring, items)) + "]"


def chunk_records(
    document: Document, *, max_words: int = 120, overlap: int = 0, headings: bool = True
) -> tuple[list[bytes], list[str]]:
    """``(chunk records, embed texts)`` of ``chunk_document(document, ...)``'s chunks, in order.

    Raises ``InputError`` as ``chunk_document`` and ``writer._chunk_record`` do (bad window
    settings, colliding ids, metadata that is not JSON): those cases are handed to them.
    """
    check_window("max_words", max_words, "overlap", overlap)
    try:
        metadata = {**document.metadata, "title": document.title}
        meta_json = _json(metadata)
        pages = {s.page for s in document.sections if s.page}
        page_json = {p: _json({**metadata, "page": p}) for p in pages}
    except (TypeError, ValueError):
        return _reference(document, max_words, overlap, headings)
    ids: list[str] = []
    records: list[bytes] = []
    texts: list[str] = []
    head = ',"source":' + encode_basestring(document.source) + ',"position":'
    sections = zip(document.sections, section_ids(document), heading_paths(document), strict=True)
    for section, section_id, path in sections:
        section_json = encode_basestring(section_id)
        middle = ',"section":' + section_json + ',"heading_path":' + _strings(path) + head
        tail = '","metadata":' + (page_json[section.page] if section.page else meta_json) + "}"
        title = " > ".join(path) + "\n\n" if headings and path else ""
        windows = section_windows(section.blocks, max_words, overlap)
        for part, (text, start_line, end_line) in enumerate(windows, start=1):
            chunk_id = section_id if part == 1 else f"{section_id}-p{part}"
            ids.append(chunk_id)
            sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
            records.append(
                (
                    '{"id":'
                    + (section_json if part == 1 else encode_basestring(chunk_id))
                    + middle
                    + f'{len(records)},"start_line":{start_line},"end_line":{end_line},"text":'
                    + encode_basestring(text)
                    + ',"content_hash":"'
                    + sha
                    + tail
                ).encode("utf-8")
            )
            texts.append(title + text if title else text)
    if len(set(ids)) != len(ids):
        return _reference(document, max_words, overlap, headings)  # raises its InputError
    return records, texts


def _reference(
    document: Document, max_words: int, overlap: int, headings: bool
) -> tuple[list[bytes], list[str]]:
    """``chunk_records`` by way of ``Chunk`` objects: the twin it is tested equal to."""
    from docqa.index.writer import _chunk_record

    chunks = chunk_document(document, max_words=max_words, overlap=overlap)
    _check_unique(document, chunks)
    return [_chunk_record(c) for c in chunks], [embed_text(c, headings=headings) for c in chunks]
