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
from collections.abc import Iterable, Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from docqa.errors import DocqaError, InputError
from docqa.index import open_index
from docqa.index.lock import build_lock
from docqa.index.ownership import clean_debris, resolve_target
from docqa.index.reader import Index
from docqa.index.shards import open_any
from docqa.pipeline import delta, layers
from docqa.pipeline.previous import Scan, up_to_date
from docqa.pipeline.settings import IndexSettings, Progress
from docqa.pipeline.sources import SourceFile, Stat, discover, stat_of
from docqa.pipeline.write import BuildReport, Run, kept_report, passed_over, verified, write_run
from docqa.text.documents import SkippedFile
from docqa.text.ids import suffixed
from docqa.text.loaders import named_sources

__all__ = [
    "BuildReport",
    "IndexSettings",
    "Progress",
    "build_index",
    "default_index_dir",
    "default_workers",
    "ensure_index",
    "fingerprint",
    "passed_over",
]


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
    checks); ``verified`` checks it whole before any row of it is reused."""
    if settings.embedder == "tfidf" or not (target / "manifest.json").exists():
        return None  # a fitted embedder re-embeds every row anyway: nothing is reused
    try:
        index = open_index(target)
    except DocqaError as exc:
        warnings.append(f"previous index not reused, every file re-embedded: {exc}")
        return None
    return index if index.manifest.meta.get("settings") == asdict(settings) else None


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


SLOW_MARKDOWN = (
    "this install has no docqa._md4c, so Markdown is read by the slower pyromark path (the same "
    "chunks); reinstall docqa from source with a C compiler (pip install .) for the fast one"
)


def _slow_markdown(found: Sequence[SourceFile]) -> bool:
    """Whether Markdown is among ``found`` and this install lacks ``docqa._md4c``."""
    from docqa.text.markdown_md4c import available
    from docqa.text.reading import format_of

    return not available() and any(format_of(source) == "markdown" for _, source in found)


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
                 not verify, suffixed(s for _, s in found), named_sources(paths, found))  # fmt: skip
    warnings: list[str] = [SLOW_MARKDOWN] if _slow_markdown(found) else []
    run = Run(scan, stamp, scanned_ns, unknown, passed_over(others), settings, n_workers,
              progress, warnings, started, copies=tuple(copies))  # fmt: skip
    layered = layers.previous_delta(target, settings)
    if layered is not None and not rewrite and layers.up_to_date(layered, scan, stamp):
        return delta.kept(layered, run)  # (--rewrite makes a delta-updated index whole)
    if layered is None:
        previous = _previous(target, settings, warnings)
        if previous is not None and up_to_date(previous, scan, stamp):
            # nothing to copy, so nothing to verify (`--verify` trusts no stat: never here)
            kept = kept_report(previous, unknown, settings.make_embedder().name, 0.0)
            return replace(kept, passed_over=run.passed_over, copies=run.copies,
                           seconds=time.perf_counter() - started)  # fmt: skip
        layered = None if previous is None else layers.plain(previous)
        del previous
    checked = None
    if layered is not None and not rewrite and layers.applies(settings):
        report = delta.update(target, layered, run)
        if report is not None:
            if verify:
                open_any(target).verify()
            return replace(report, seconds=time.perf_counter() - started)
        checked = layered.checked
    base = None if layered is None else layered.base  # a rewrite copies the base's rows
    del layered
    report = write_run(target, replace(run, checked=checked), verified(base, warnings), paths=paths)
    if verify:
        open_index(target).verify()
    return replace(report, seconds=time.perf_counter() - started)


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
