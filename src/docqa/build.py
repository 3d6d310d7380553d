"""Build or update an index directory from folders of documents (the indexing-time edge).

``build_index`` streams (see :mod:`docqa.pipeline.stream`): files are read, parsed, chunked,
embedded and counted for BM25 in bounded groups, by ``workers`` processes, and appended to a
temporary index that replaces the old one atomically at the end; memory does not grow with
the collection. When an index built with the same settings is already at the target it is
updated instead: the rows of files whose sha256 did not change are copied from it unparsed
(chunk records, vectors, BM25 postings) and only changed or new files are processed;
deleted files drop out, and the result equals a full rebuild byte for byte (rows follow the
load order either way). A fitted embedder (TF-IDF) depends on the whole collection, so any
change refits and re-embeds it all, and its texts are held for the fit.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from docqa._checks import positive
from docqa.embed.choices import EMBEDDERS, make_embedder
from docqa.embed.protocol import Embedder
from docqa.errors import DocqaError, InputError
from docqa.index import open_index
from docqa.index.format import TFIDF_PREFIX
from docqa.index.lock import build_lock
from docqa.index.ownership import clean_debris, resolve_target
from docqa.index.reader import Index
from docqa.index.shards import open_any
from docqa.index.streaming import IndexBuilder
from docqa.pipeline import delta, stream
from docqa.pipeline.postings import PostingRuns
from docqa.pipeline.previous import Scan, old_rows, trusted, up_to_date
from docqa.pipeline.sources import SourceFile, Stat, discover, stat_of
from docqa.pipeline.work import Task
from docqa.text.documents import READERS, LoadReport, SkippedFile
from docqa.text.ids import suffixed
from docqa.text.loaders import _raise_nothing_loaded
from docqa.text.sections import HEADING_WEIGHT
from docqa.text.windows import check_window

Progress = Callable[[str, int, int], None]  # (stage, done, total)
# A dense TF-IDF matrix is (chunks x vocabulary): refuse one that would not fit comfortably.
MAX_DENSE_BYTES = 2 << 30
EMBED_BATCH = 2048


@dataclass(frozen=True, slots=True)
class IndexSettings:
    """How a collection is chunked and embedded; recorded in the manifest's ``meta``."""

    embedder: str = "hashing"
    dim: int = 256
    max_words: int = 120
    overlap: int = 0
    headings: bool = True
    heading_weight: int = HEADING_WEIGHT  # times a heading path counts in its BM25 row
    storage: str = "float32"  # "int8": int8 codes beside the vectors (docqa.search.compact)
    tenant_from_folder: bool = False  # chunk tenant = first folder of the file (docqa.tenants)
    # the readers' version, not a choice: an index of other readers reuses nothing (a file
    # unchanged since is read again, as a fresh build would read it)
    readers: int = field(default=READERS, init=False)

    def __post_init__(self) -> None:
        if self.embedder not in EMBEDDERS:
            raise InputError(f"unknown embedder {self.embedder!r}; choose one of {EMBEDDERS}")
        positive(self.dim, "dim")
        positive(self.heading_weight, "heading_weight")
        check_window("max_words", self.max_words, "overlap", self.overlap)
        if self.storage != "float32":  # the default needs no look at (Numba's) compact module
            self._check_storage()

    def _check_storage(self) -> None:
        from docqa.search.compact import STORAGES

        if self.storage not in STORAGES:
            raise InputError(
                f"unknown storage {self.storage!r}; choose one of {', '.join(STORAGES)}"
            )

    def make_embedder(self) -> Embedder:
        """A new embedder of these settings' kind and dimension."""
        return make_embedder(self.embedder, dim=self.dim)


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


def fingerprint(paths: Iterable[str | Path], settings: IndexSettings) -> str:
    """A digest of the files' names, sizes and modification times and of the settings: while
    it is unchanged, the index built from ``paths`` is up to date."""
    stats: list[os.stat_result] = []
    files, unknown = discover(paths, None, stats)
    return _stamp(files, [stat_of(st) for st in stats], unknown, settings)


def _stamp(
    files: list[SourceFile], stats: list[Stat], unknown: list[SkippedFile], settings: IndexSettings
) -> str:
    """``fingerprint`` of what ``discover`` found, given each file's stat."""
    items: list[Any] = [asdict(settings), [u.path for u in unknown]]
    cwd = os.getcwd()  # os.path.abspath asks for it once a file
    for (path, source), st in zip(files, stats, strict=True):
        items.append([source, os.path.normpath(os.path.join(cwd, path)), st[0], st[1]])
    return hashlib.sha256(json.dumps(items).encode("utf-8")).hexdigest()


def _previous(target: Path, settings: IndexSettings, warnings: list[str]) -> Index | None:
    """The index at ``target`` if it was built with ``settings`` and opens (its structural
    checks); ``_verified`` checks it whole before any row of it is reused."""
    if settings.embedder == "tfidf" or not (target / "manifest.json").exists():
        return None  # a fitted embedder re-embeds every row anyway: nothing is reused
    try:
        index = open_index(target)
    except DocqaError as exc:
        warnings.append(f"previous index not reused, every file re-embedded: {exc}")
        return None
    return index if index.manifest.meta.get("settings") == asdict(settings) else None


def _verified(index: Index | None, warnings: list[str]) -> Index | None:
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


def default_workers() -> int:
    """The cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _check_workers(workers: int | None) -> int:
    if workers is None:
        return default_workers()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InputError(f"workers must be an int >= 1, got {workers!r}")
    return workers


def build_index(
    paths: Sequence[str | Path],
    index_dir: str | Path,
    settings: IndexSettings | None = None,
    *,
    progress: Progress | None = None,
    verify: bool = False,
    workers: int | None = None,
    rewrite: bool = False,
) -> BuildReport:
    """Load ``paths``, chunk, embed and write (or update) the index at ``index_dir``.

    ``workers`` (default: the cores available) parse and embed in parallel; the index is the
    same bytes for any number. ``progress`` is called as ``("files", done, total)`` and
    ``("bytes", done, total)``. Ctrl-C or an error leaves the previous index as it was.

    An update whose changed files are a small share of the collection is written as a delta
    beside the previous rows (:mod:`docqa.pipeline.delta`: every search answers as after a
    rebuild); a larger one, or any with ``rewrite``, writes the whole index, the same bytes
    as a fresh build.
    """
    settings = settings or IndexSettings()
    n_workers = _check_workers(workers)
    target = resolve_target(index_dir)
    with build_lock(target):  # a second build of the same index raises IndexBusy
        if target.parent.is_dir():  # what killed builds left, whichever way this one goes
            clean_debris(target)
        return _build_locked(paths, target, settings, progress, verify, n_workers, rewrite)


def _build_locked(
    paths: Sequence[str | Path],
    target: Path,
    settings: IndexSettings,
    progress: Progress | None,
    verify: bool,
    n_workers: int,
    rewrite: bool = False,
) -> BuildReport:
    started = time.perf_counter()
    scanned_ns = time.time_ns()  # before any file is looked at (see sources.stat_trusted)
    others: Counter[str] = Counter()
    met: list[os.stat_result] = []
    copies: list[tuple[str, str]] = []
    found, unknown = discover(paths, others, met, copies)
    stats = [stat_of(st) for st in met]
    stamp = _stamp(found, stats, unknown, settings)
    scan = Scan([(p, s, st[0]) for (p, s), st in zip(found, stats, strict=True)],
                 {s: st for (_, s), st in zip(found, stats, strict=True)},
                 not verify, suffixed(s for _, s in found))  # fmt: skip
    warnings: list[str] = []
    run = Run(scan, stamp, scanned_ns, unknown, passed_over(others), settings, n_workers,
              progress, warnings, started, copies=tuple(copies))  # fmt: skip
    layered = delta.previous_delta(target, settings)
    if layered is not None and not rewrite and delta.up_to_date(layered, scan, stamp):
        return delta.kept(layered, run)  # (--rewrite makes a delta-updated index whole)
    if layered is None:
        previous = _previous(target, settings, warnings)
        if previous is not None and up_to_date(previous, scan, stamp):
            # nothing to copy, so nothing to verify (`--verify` trusts no stat: never here)
            kept = _kept(previous, unknown, settings.make_embedder().name, 0.0)
            return replace(kept, passed_over=run.passed_over, copies=run.copies,
                           seconds=time.perf_counter() - started)  # fmt: skip
        layered = None if previous is None else delta.plain(previous)
        del previous
    checked = None
    if layered is not None and not rewrite and delta.applies(settings):
        report = delta.update(target, layered, run)
        if report is not None:
            if verify:
                open_any(target).verify()
            return replace(report, seconds=time.perf_counter() - started)
        checked = layered.checked
    base = None if layered is None else layered.base  # a rewrite copies the base's rows
    del layered
    report = _write(target, replace(run, checked=checked), _verified(base, warnings), paths=paths)
    if verify:
        open_index(target).verify()
    return replace(report, seconds=time.perf_counter() - started)


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


def _write(
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
        state = _stream(
            builder, settings, embedder, previous, run.scan, run.workers, run.progress, run.checked
        )
        state.skipped[:0] = [SkippedFile(u.path, u.reason) for u in run.unknown]
        if not builder.count and not allow_empty:
            loaded = LoadReport((), tuple(state.skipped))
            _raise_nothing_loaded(list(paths), loaded, read=sorted(state.files))
        if settings.embedder == "tfidf":
            _fit_and_embed(builder, embedder, state.texts)
        builder.close_rows()  # the disk writes the rows while the postings merge
        vocabulary = _write_bm25(builder, state)
        meta = {
            "settings": asdict(settings),
            "files": state.files,
            "fingerprint": run.stamp,
            "scanned_ns": run.scanned_ns,
            "bm25": _bm25_config(),
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


def _kept(
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


def _stream(
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


def _fit_and_embed(builder: IndexBuilder, embedder: Embedder, texts: list[str]) -> None:
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


def _bm25_config() -> dict[str, Any]:
    from docqa.keyword.config import BM25Config

    return BM25Config().to_dict()


def _write_bm25(builder: IndexBuilder, state: stream.Pass) -> int:
    """Merge the spilled postings into the BM25 CSR arrays; returns the vocabulary size."""
    from docqa.keyword.config import ARRAYS

    sinks = {n: builder.array(n, d) for n, d in ARRAYS.items() if n != "bm25_lengths"}
    return state.runs.merge(lambda name, block: sinks[name].append(block), state.old_postings())


def ensure_index(
    paths: Sequence[str | Path],
    index_dir: str | Path,
    settings: IndexSettings | None = None,
    *,
    progress: Progress | None = None,
) -> BuildReport | None:
    """Build or update the index unless it is already up to date with ``paths`` (same files,
    sizes, modification times and settings); returns None when nothing was done."""
    settings = settings or IndexSettings()
    target = Path(index_dir)
    if (target / "manifest.json").exists():
        try:
            index = open_any(target)
            if index.manifest.meta.get("fingerprint") == fingerprint(paths, settings):
                return None
        except DocqaError:
            pass
    return build_index(paths, target, settings, progress=progress)


def default_index_dir(cwd: str | os.PathLike[str] | None = None) -> Path:
    """``.docqa/index`` under the current folder."""
    return Path(cwd or os.getcwd()) / ".docqa" / "index"
