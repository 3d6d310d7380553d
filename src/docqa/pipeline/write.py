"""One build's files written as one whole index: the files streamed through the worker
processes (:mod:`docqa.pipeline.stream`), the rows of unchanged files copied from the previous
index, a fitted embedder fitted, the BM25 postings merged, and the manifest committed
(:class:`docqa.index.builder.IndexBuilder`). ``docqa.build`` decides what to write (nothing,
a delta, or this), :mod:`docqa.pipeline.delta` writes its delta's part with it too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from docqa.embed.protocol import Embedder
from docqa.errors import DocqaError, InputError
from docqa.index.builder import IndexBuilder
from docqa.index.format import TFIDF_PREFIX
from docqa.index.reader import Index
from docqa.pipeline import stream
from docqa.pipeline.postings import PostingRuns
from docqa.pipeline.previous import Scan, old_rows, trusted
from docqa.pipeline.settings import IndexSettings, Progress
from docqa.pipeline.work import Task
from docqa.text.documents import LoadReport, SkippedFile
from docqa.text.loaders import raise_nothing_loaded

# A dense TF-IDF matrix is (chunks x vocabulary): refuse one that would not fit comfortably.
MAX_DENSE_BYTES = 2 << 30
EMBED_BATCH = 2048


@dataclass(frozen=True)
class BuildReport:
    """What one ``build_index`` call did."""

    path: Path
    documents: int
    chunks: int
    skipped: tuple[SkippedFile, ...]
    embedder: str
    vocabulary: int
    embedded: int  # chunks embedded by this call
    reused: int  # chunks whose vectors came from the previous index
    seconds: float
    warnings: tuple[str, ...] = ()  # e.g. a damaged previous index that was re-embedded
    # files met in the folders that are of no type docqa reads: (suffix, count), most first
    passed_over: tuple[tuple[str, int], ...] = ()
    delta: int | None = None  # rows of the delta when the update was written as one
    # (copy, file read for it) of each page passed over as the same page in another format
    copies: tuple[tuple[str, str], ...] = ()


def passed_over(others: Counter[str]) -> tuple[tuple[str, int], ...]:
    """``others`` (see ``find_files``) as ``BuildReport.passed_over`` orders them."""
    return tuple(sorted(others.items(), key=lambda item: (-item[1], item[0])))


def verified(index: Index | None, warnings: list[str]) -> Index | None:
    """``index`` if every file's checksum and every vector's finiteness pass: a damaged
    previous index is not copied from, its files are re-embedded (``warnings`` says so), and
    the new index replaces it."""
    try:
        if index is not None:
            index.verify()  # releases the pages it read: memory stays flat
        return index
    except DocqaError as exc:
        warnings.append(f"previous index not reused, every file re-embedded: {exc}")
        return None


@dataclass(frozen=True)
class Run:
    """One build's scan and settings, as the writers of a whole index and of a delta use them."""

    scan: Scan
    stamp: str
    scanned_ns: int
    unknown: list[SkippedFile]
    passed_over: tuple[tuple[str, int], ...]
    settings: IndexSettings
    workers: int
    progress: Progress | None
    warnings: list[str]
    started: float
    checked: dict[str, int] | None = None  # files already found unchanged in ``previous``
    copies: tuple[tuple[str, str], ...] = ()  # BuildReport.copies


def write_run(
    target: Path,
    run: Run,
    previous: Index | None,
    *,
    paths: Sequence[str | Path] = (),
    allow_empty: bool = False,
    unsynced: list[Path] | None = None,
) -> BuildReport:
    """Write the index of ``run.scan``'s files at ``target``, copying the unchanged files' rows
    from ``previous``; ``allow_empty``: a delta may hold no row (else "nothing loaded").
    ``unsynced``, when given, gets what was written, not fsynced (``IndexBuilder``'s
    ``durable=False``): the caller fsyncs it with its own files."""
    settings = run.settings
    embedder = settings.make_embedder()
    durable = unsynced is None
    with IndexBuilder(target, storage=settings.storage, durable=durable) as builder:
        state = _stream_rows(
            builder, settings, embedder, previous, run.scan, run.workers, run.progress, run.checked
        )
        state.skipped[:0] = [SkippedFile(u.path, u.reason) for u in run.unknown]
        if not builder.count and not allow_empty:
            loaded = LoadReport((), tuple(state.skipped))
            raise_nothing_loaded(list(paths), loaded, read=sorted(state.files))
        if settings.embedder == "tfidf":
            fit_and_embed(builder, embedder, state.texts)
        builder.close_rows()  # the disk writes the rows while the postings merge
        vocabulary = write_bm25(builder, state)
        meta = {
            "settings": asdict(settings),
            "files": state.files,
            "fingerprint": run.stamp,
            "scanned_ns": run.scanned_ns,
            "bm25": bm25_config(),
        }
        report = BuildReport(
            path=target,
            documents=len(state.files),
            chunks=builder.count,
            skipped=tuple(state.skipped),
            embedder=embedder.name,
            vocabulary=vocabulary,
            embedded=state.embedded,
            reused=state.reused,
            seconds=0.0,
            warnings=tuple(run.warnings),
            passed_over=run.passed_over,
            copies=run.copies,
        )
        del previous, state  # the previous index's maps close here (it holds no cycle)
        builder.commit(embedder, meta)
    if unsynced is not None:
        unsynced.extend(builder.unsynced)
    return report


def kept_report(
    previous: Index, unknown: list[SkippedFile], embedder: str, seconds: float
) -> BuildReport:
    """The report of an update that found nothing to change (the index is left as it is)."""
    return BuildReport(
        path=previous.root,
        documents=len(old_rows(previous)),
        chunks=len(previous),
        skipped=tuple(SkippedFile(u.path, u.reason) for u in unknown),
        embedder=embedder,
        vocabulary=int(previous.array("bm25_vocab").size),
        embedded=0,
        reused=len(previous),
        seconds=seconds,
    )


def _stream_rows(
    builder: IndexBuilder,
    settings: IndexSettings,
    embedder: Embedder,
    previous: Index | None,
    scan: Scan,
    workers: int,
    progress: Progress | None,
    checked: dict[str, int] | None = None,
) -> stream.Pass:
    """Process every file group and append its rows to ``builder``, in load order
    (``checked``: the files a delta update already found unchanged in ``previous``)."""
    fitted = settings.embedder == "tfidf"  # fitted on every text after the pass
    old = {} if fitted else old_rows(previous)
    state = stream.Pass(
        builder,
        PostingRuns(builder.scratch),
        builder.array("bm25_lengths", np.int32),
        previous,
        {s: rec.rows for s, rec in old.items()},
        scan.stats,
    )
    sized = scan.sized
    cut = list(stream.groups(sized))
    known = {s: rec.sha256 for s, rec in old.items() if scan.same_ids(s, rec.ids)}
    verified = (
        stream.unchanged(sized, known, trusted(scan, old, previous)) if checked is None else
        {s: n for s, n in checked.items() if s in known}
    )  # fmt: skip
    tasks = (
        Task(
            tuple(group),
            settings.max_words,
            settings.overlap,
            settings.headings,
            None if fitted else embedder,
            {s: known[s] for _, s in group if s in known},
            keep_texts=fitted,
            tenant_from_folder=settings.tenant_from_folder,
            verified={s: verified[s] for _, s in group if s in verified},
            heading_weight=settings.heading_weight,
            suffixed=frozenset(s for _, s in group if s in scan.suffixed),
            named=frozenset(s for _, s in group if s in scan.named),
        )
        for group in cut
    )
    to_parse = sum(n for _, s, n in sized if s not in verified)
    workers = workers if to_parse >= stream.POOL_BYTES else 1  # not worth starting a pool
    total_bytes = sum(n for _, _, n in sized)
    done_files = done_bytes = 0
    with stream.gc_paused(), state:  # the state closes the old files it copied from
        for result in stream.results(tasks, min(workers, len(cut))):
            state.take(result)
            done_files += sum(not f.more for f in result.files)  # (a part of a file: more)
            done_bytes += sum(f.size for f in result.files)
            if progress:
                progress("files", done_files, len(sized))
                progress("bytes", min(done_bytes, total_bytes), total_bytes)
    return state


def fit_and_embed(builder: IndexBuilder, embedder: Embedder, texts: list[str]) -> None:
    """Fit TF-IDF on every chunk text, then embed in batches; its state goes with the index."""
    from docqa.embed.tfidf import TfidfEmbedder

    assert isinstance(embedder, TfidfEmbedder)
    embedder.fit(texts)
    if len(texts) * embedder.dim * 4 > MAX_DENSE_BYTES:
        raise InputError(
            f"a TF-IDF index of {len(texts)} chunks x {embedder.dim} words would need "
            f"{len(texts) * embedder.dim * 4 >> 20} MiB; use --embedder hashing"
        )
    for start in range(0, len(texts), EMBED_BATCH):
        builder.append_vectors(embedder.embed(texts[start : start + EMBED_BATCH]))
    for name, arr in embedder.state().items():
        builder.array(TFIDF_PREFIX + name, arr.dtype).append(arr)


def bm25_config() -> dict[str, Any]:
    from docqa.keyword.config import BM25Config

    return BM25Config().to_dict()


def write_bm25(builder: IndexBuilder, state: stream.Pass) -> int:
    """Merge the spilled postings into the BM25 CSR arrays; returns the vocabulary size."""
    from docqa.keyword.config import ARRAYS

    sinks = {n: builder.array(n, d) for n, d in ARRAYS.items() if n != "bm25_lengths"}
    return state.runs.merge(lambda name, block: sinks[name].append(block), state.old_postings())
