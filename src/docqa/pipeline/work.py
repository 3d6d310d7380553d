"""One unit of build work: a group of files in, their chunk records, vectors and BM25
postings out. Pure apart from reading the files; runs in a worker process or in the caller.

What a group gives depends only on its files and the settings, never on which process ran it
or how many there are, so the index is the same bytes for every worker count.
"""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from docqa import _tokenize
from docqa.embed.hashing import HashingEmbedder
from docqa.tenants import folder_tenant
from docqa.text.documents import SkippedFile
from docqa.text.reading import decoded, document_stream, read_bytes
from docqa.text.records import RecordPart, record_parts
from docqa.text.sections import HEADING_WEIGHT, heading_copies
from docqa.text.tokenize import TokenHashes, TokenSettings, hash_tokens, join_rows

PART_CHARS = 2 << 20
"""A file's text is chunked, embedded and counted in parts of about this many characters
(``parts``): a large file's records, texts, vectors and postings are held a part at a time,
beside what is left of its parsed sections."""
# how BM25 tokenizes (``docqa.keyword.BM25Index.from_texts``'s settings)
BM25_TOKENS = TokenSettings(stop_words=True, fold_plurals=True)


@dataclass(frozen=True, slots=True)
class Task:
    """Files ``(path, source)`` to process; ``known`` maps a source to the sha256 its rows in
    the previous index were built from (those files are reused, not parsed); ``verified``
    names the known files whose bytes the caller already checked against that sha256."""

    files: tuple[tuple[Path, str], ...]
    max_words: int
    overlap: int
    headings: bool
    embedder: object  # an Embedder, or None for one that is fitted after the whole pass
    known: Mapping[str, str]
    keep_texts: bool = False
    tenant_from_folder: bool = False  # each document's tenant is its first folder
    verified: Mapping[str, int] = field(default_factory=dict)  # source -> size: known
    # files the caller has already read and found unchanged (reused without reading)
    heading_weight: int = HEADING_WEIGHT  # times a heading path counts in its BM25 row
    suffixed: frozenset[str] = frozenset()  # sources whose ids keep their suffix (text.ids)
    named: frozenset[str] = frozenset()  # sources given by name (read even when "noindex")


@dataclass(frozen=True, slots=True)
class FileResult:
    """What became of one file: ``chunks`` rows (0 when skipped or reused); ``ids``: the
    part of its ids before ``#`` when they keep its suffix (``docqa.text.ids.suffixed``)."""

    source: str
    size: int
    sha256: str
    chunks: int
    reused: bool = False
    skipped: str = ""
    ids: str = ""
    more: bool = False  # the file's chunks go on in the next result (``parts``)


@dataclass(frozen=True, slots=True)
class Postings:
    """BM25 postings of a group's rows, sorted by (term hash, row) - so the main process
    merges sorted groups instead of sorting postings: ``hashes`` uint64,
    ``rows`` int32 (0-based within the group), ``tf`` int32; ``lengths`` int32 tokens per row."""

    hashes: np.ndarray
    rows: np.ndarray
    tf: np.ndarray
    lengths: np.ndarray


@dataclass(frozen=True, slots=True)
class Result:
    """A processed group: per-file outcomes in order, and for the new rows their chunk records
    end to end (``record_lengths`` int64 bytes each), vectors ``(n, dim)`` float32 (``None``
    for a fitted embedder), postings, and the embed texts when ``Task.keep_texts``."""

    files: tuple[FileResult, ...]
    records: bytes
    record_lengths: np.ndarray
    vectors: np.ndarray | None
    postings: Postings
    texts: tuple[str, ...] = ()


def postings_of(texts: Sequence[str]) -> Postings:
    """Each text's distinct BM25 terms and their counts (stop words dropped, plurals folded:
    ``BM25_TOKENS``), counted natively (``docqa._tokenize.count_postings``;
    ``postings_reference`` is its tested twin)."""
    return postings_of_hashes(hash_tokens(texts, **BM25_TOKENS.as_kwargs()))


def postings_of_hashes(th: TokenHashes) -> Postings:
    """``postings_of`` from the texts' token hashes (tokenized with ``BM25_TOKENS``)."""
    hashes, rows, tf = _tokenize.count_postings(th.hashes, th.offsets)
    return Postings(
        np.frombuffer(hashes, np.uint64),
        np.frombuffer(rows, np.int32),
        np.frombuffer(tf, np.int32),
        np.diff(th.offsets).astype(np.int32),
    )


def postings_reference(texts: Sequence[str]) -> Postings:
    """``postings_of`` with numpy: a stable argsort of every token hash, then its runs."""
    th = hash_tokens(texts, stop_words=True, fold_plurals=True)
    lengths = np.diff(th.offsets).astype(np.int32)
    rows = np.repeat(np.arange(len(texts), dtype=np.int32), lengths)
    order = np.argsort(th.hashes, kind="stable")  # rows are ascending already
    hashes, rows = th.hashes[order], rows[order]
    new = np.ones(hashes.size, dtype=bool)
    new[1:] = (hashes[1:] != hashes[:-1]) | (rows[1:] != rows[:-1])
    starts = np.flatnonzero(new)
    tf = np.diff(np.append(starts, hashes.size)).astype(np.int32)
    return Postings(hashes[starts], rows[starts], tf, lengths)


def run(task: Task) -> Result:
    """The task's parts (``parts``) as one ``Result``: their rows end to end, the postings
    sorted by (term hash, row) again."""
    got = list(parts(task))
    if len(got) == 1:
        return got[0]
    offsets = np.cumsum([0] + [r.record_lengths.size for r in got])
    hashes = np.concatenate([r.postings.hashes for r in got])
    rows = np.concatenate([r.postings.rows + o for r, o in zip(got, offsets, strict=False)])
    order = np.lexsort((rows, hashes))
    vectors = [r.vectors for r in got if r.vectors is not None]
    files = [f for r in got for f in r.files]
    return Result(
        files=_joined(files),
        records=b"".join(bytes(r.records) for r in got),
        record_lengths=np.concatenate([r.record_lengths for r in got]),
        vectors=np.concatenate(vectors) if vectors else None,
        postings=Postings(
            hashes[order],
            rows[order].astype(np.int32),
            np.concatenate([r.postings.tf for r in got])[order],
            np.concatenate([r.postings.lengths for r in got]),
        ),
        texts=tuple(t for r in got for t in r.texts),
    )


def _joined(files: list[FileResult]) -> tuple[FileResult, ...]:
    """``files`` with each file given in parts as one (its chunks summed)."""
    out: list[FileResult] = []
    chunks = 0
    for f in files:
        if f.more:
            chunks += f.chunks
        else:
            out.append(replace(f, chunks=chunks + f.chunks))
            chunks = 0
    return tuple(out)


def parts(task: Task) -> Iterator[Result]:
    """Read, parse, chunk, embed and count the task's files (skips and reuses noted), as one
    ``Result``, or several when a file's text is past ``PART_CHARS``: its chunks are then
    embedded and counted a part at a time, each part ending a ``Result`` with a
    ``FileResult`` of ``more=True`` (the file goes on in the next one).

    The cyclic garbage collector is paused meanwhile: parsing makes millions of small
    acyclic objects that reference counting frees, and the collector's passes over them
    cost a fifth of the parse."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        group = _Group()
        for path, source in task.files:
            for outcome in _one_file(task, path, source, group):
                group.outcomes.append(outcome)
                if outcome.more:
                    yield group.result(task)
        yield group.result(task)
    finally:
        if enabled:
            gc.enable()


@dataclass(slots=True)
class _Group:
    """What the files of a task (or of its part being made) have given so far."""

    outcomes: list[FileResult] = field(default_factory=list)
    records: list[bytes] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)

    def add(self, part: RecordPart) -> int:
        """Take a part's chunks; how many."""
        self.records += part.records
        self.texts += part.texts
        self.titles += part.titles
        return len(part.records)

    def result(self, task: Task) -> Result:
        """The ``Result`` of what was taken (embedded and counted), which is then let go."""
        more = [heading_copies(t, task.heading_weight) for t in self.titles]
        vectors, postings = vectors_and_postings(task.embedder, self.texts, more)
        blob = b"".join(self.records)
        lengths = np.fromiter(map(len, self.records), np.int64, len(self.records))
        texts = tuple(self.texts) if task.keep_texts else ()
        files = tuple(self.outcomes)
        self.outcomes, self.records, self.texts, self.titles = [], [], [], []
        return Result(files, blob, lengths, vectors, postings, texts)


def _one_file(task: Task, path: Path, source: str, group: _Group) -> Iterator[FileResult]:
    """Read, parse and chunk one file, its chunks taken by ``group``: what became of it, after
    each part but the last a ``FileResult`` of ``more=True`` (the caller makes the part's
    ``Result`` then). The file's bytes go once decoded, its sections as they are chunked (a
    plain text's made from its text as they are: ``reading.document_stream``)."""
    ids = source if source in task.suffixed else ""
    if source in task.verified:
        yield FileResult(source, task.verified[source], task.known[source], 0, True, ids=ids)
        return
    data = read_bytes(path)
    if isinstance(data, SkippedFile):
        yield FileResult(source, 0, "", 0, skipped=data.reason)
        return
    sha, size = hashlib.sha256(data).hexdigest(), len(data)
    if task.known.get(source) == sha:
        yield FileResult(source, size, sha, 0, reused=True, ids=ids)
        return
    content = decoded(source, data, named=source in task.named)
    del data  # a large file's bytes go before its text is parsed
    if isinstance(content, SkippedFile):
        yield FileResult(source, size, sha, 0, skipped=content.reason)
        return
    streamed = document_stream(source, content, sha)  # a plain text's blocks as chunked
    del content
    if isinstance(streamed, SkippedFile):
        yield FileResult(source, size, sha, 0, skipped=streamed.reason)
        return
    doc, bodies = streamed
    del streamed
    doc = replace(doc, ids=ids) if ids else doc
    if task.tenant_from_folder:
        doc = folder_tenant(doc)
    chunked = record_parts(doc, task.max_words, task.overlap, task.headings, PART_CHARS,
                           bodies=bodies)  # fmt: skip
    del doc, bodies  # the parts let its sections go as they are chunked
    part = next(chunked)
    for following in chunked:
        yield FileResult(source, 0, sha, group.add(part), ids=ids, more=True)
        part = following
    yield FileResult(source, size, sha, group.add(part), ids=ids)


def vectors_and_postings(
    embedder: object, texts: list[str], more: Sequence[str] = ()
) -> tuple[np.ndarray | None, Postings]:
    """The texts' vectors (``None`` without an embedder or a text) and BM25 postings, row
    ``i``'s BM25 text being ``texts[i]`` and, after a blank line, ``more[i]`` when ``more`` is
    given (the heading path again: ``sections.keyword_row``). A hashing embedder that
    tokenizes as BM25 does gives both from one scan of the texts
    (``HashingEmbedder.embed_and_hash``), ``more`` hashed beside it; the twin is
    ``vectors_and_postings_reference``."""
    if isinstance(embedder, HashingEmbedder) and embedder.token_settings == BM25_TOKENS and texts:
        vectors, th = embedder.embed_and_hash(texts)
        if any(more):
            th = join_rows(th, hash_tokens(more, **BM25_TOKENS.as_kwargs()))
        return vectors, postings_of_hashes(th)
    return vectors_and_postings_reference(embedder, texts, more)


def vectors_and_postings_reference(
    embedder: object, texts: list[str], more: Sequence[str] = ()
) -> tuple[np.ndarray | None, Postings]:
    """``vectors_and_postings`` with the texts tokenized twice: ``embed``, then ``postings_of``
    of each text joined to its ``more`` by a blank line."""
    embed = getattr(embedder, "embed", None)
    rows = [f"{t}\n\n{m}" if m else t for t, m in zip(texts, more, strict=True)] if more else texts
    return (embed(texts) if embed is not None and texts else None), postings_of(rows)


def ignore_interrupts() -> None:
    """Worker initializer: Ctrl-C is the parent's to handle (it stops the pool), and SIGTERM
    (the pool's ``terminate``) ends the worker at once, whatever handler a forked worker had
    from its parent (``docqa watch``'s raises KeyboardInterrupt, whose traceback the worker
    would print)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
