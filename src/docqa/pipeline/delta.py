"""Update an index by a delta: the previous rows stay where they are, the changed files'
rows are written beside them, and every search answers as it would after a full rebuild.

An update that rewrites the whole index writes as many bytes as a full build (the vectors,
the chunk store, the postings), whatever share of the files changed. When the changed files
hold at most ``DELTA_SHARE`` of the collection's bytes, the update writes only them:

::

    manifest.json    a sharded index manifest, version 2 (docqa.index.shards): shards "base"
                     and "delta", each with a row map; the BM25 statistics of the live rows
    base/            the index the first delta was taken from, hard-linked: never rewritten
    delta/           an ordinary index of every file changed since base was written
    global/          bm25_global_*.npy, map-base.npy, map-delta.npy

A row map gives each local row its global row, -1 for a row whose file changed or went away.
Global rows are numbered in load order over the files of this build, as a rebuild numbers
them, and a map increases over its live rows; with the statistics of the live rows, every
row scores as in a rebuild, so the merged top k (score descending, then global row) is the
rebuild's (``docqa.shards.search``). The next update reads the delta as its previous index
(its unchanged rows are copied, as any update copies them) and takes the base as it is. An
update whose delta would outgrow ``DELTA_SHARE``, or ``docqa index --rewrite``, writes the
whole index again, reusing the base's unchanged rows: the same bytes as a fresh build.

The base is linked, not read: its rows keep their own checksums (``docqa verify`` checks
them; nothing is laundered into new ones), as an update with nothing to do reads nothing.
``docqa index --verify`` checks the base before linking it, and a damaged base is rewritten.

This is the scheme of Lucene's segments and deletion bitmaps, cut to one delta. It needs hard
links (a file system without them gets the whole rewrite) and the float32 rows of the
hashing or a model embedder: a fitted embedder (TF-IDF) re-embeds every row on any change,
and int8 storage is rewritten whole.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from docqa.errors import DocqaError
from docqa.index import format as fmt
from docqa.index import open_index
from docqa.index.builder import sync_files
from docqa.index.files import install, work_dir, write_manifest
from docqa.index.reader import Index
from docqa.index.shards import (
    STATS_DIR,
)
from docqa.keyword.config import ARRAYS
from docqa.keyword.stats import CorpusStats, LiveCounts, live_counts
from docqa.pipeline import stream
from docqa.pipeline.delta_maps import placed, spans_map, top_manifest, write_global
from docqa.pipeline.layers import BASE, DELTA, Layered, trusted_files
from docqa.pipeline.previous import Scan, old_rows
from docqa.pipeline.write import BuildReport, Run, verified, write_run
from docqa.text.documents import SkippedFile
from docqa.threads import Background

DELTA_SHARE = 0.125
"""The delta may hold up to this share of the collection's bytes, and the base as many rows
deleted; an update past either rewrites the whole index. A delta-updated index is searched
as two parts whose top k merge (the base's deleted rows dropped from a deeper list); on
106 MB (docs/notes/2026-12-indexing.md) dense and hybrid search stay within ~10% of one index, keyword
search costs ~0.2 ms more, and a rewrite every eighth of the bytes bounds the dead rows."""

LINK_ERRORS = (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP)


def kept(layered: Layered, run: Run) -> BuildReport:
    """The report of an update of a delta-updated index that found nothing to change."""
    import time

    report = _unchanged(layered, run, layered.base.root.parent, warnings=False)
    return replace(report, seconds=time.perf_counter() - run.started)


def _unchanged(layered: Layered, run: Run, path: Path, *, warnings: bool) -> BuildReport:
    """The report of an update that re-embedded nothing (``warnings``: with the run's)."""
    return BuildReport(
        path=path,
        documents=len(layered.held),
        chunks=layered.count,
        skipped=tuple(SkippedFile(u.path, u.reason) for u in run.unknown),
        embedder=str(layered.base.manifest.embedder.get("name", "")),
        vocabulary=layered.vocabulary,
        embedded=0,
        reused=layered.count,
        seconds=0.0,
        warnings=tuple(run.warnings) if warnings else (),
        passed_over=run.passed_over,
        copies=run.copies,
    )


def update(target: Path, layered: Layered, run: Run) -> BuildReport | None:
    """Write the update of ``layered`` (at ``target``) as a delta and install it; None when it
    does not apply (the changed files hold more than ``DELTA_SHARE`` of the bytes, or the file
    system makes no hard links): then the caller rewrites the whole index."""
    scan = run.scan
    same, changed, dead, trusted_all = _compare(layered, scan)
    total = sum(n for _, _, n in scan.sized)
    if sum(n for _, _, n in changed) > DELTA_SHARE * total or dead > DELTA_SHARE * len(
        layered.base
    ):
        return None
    if not scan.trust_stats:  # --verify trusts no stat, nor any byte of the base it links
        try:
            layered.base.verify()
        except DocqaError:
            return None  # the rewrite checks it again, says so and re-embeds every file
    if _only_stats_changed(layered, scan, same, trusted_all, bool(changed) or dead > 0):
        return _refresh(target, layered, run)
    return _install_delta(target, layered, run, same, changed)


def _compare(
    layered: Layered, scan: Scan
) -> tuple[dict[str, int], list[tuple[Path, str, int]], int, set[str]]:
    """The base's files found unchanged (those whose stat is not trusted read and hashed),
    the files the delta must hold, how many base rows the update drops, and the files whose
    stat is trusted."""
    held = {s: h for s, h in layered.held.items() if scan.same_ids(s, h.ids)}
    known = {s: h.sha256 for s, h in held.items() if h.part == BASE}
    trusted_all = trusted_files(layered, scan)
    in_base = [(p, s, n) for p, s, n in scan.sized if s in known]
    same = stream.unchanged(in_base, known, trusted_all & known.keys())
    layered.checked = same  # a rewrite need not read them again
    changed = [(p, s, n) for p, s, n in scan.sized if s not in same]
    dead = len(layered.base) - sum(
        h.rows[1] - h.rows[0] for s, h in layered.held.items() if s in same
    )
    return same, changed, dead, trusted_all


def _only_stats_changed(
    layered: Layered, scan: Scan, same: dict[str, int], trusted_all: set[str], moved: bool
) -> bool:
    """Whether every file still has its bytes (only stats changed: the maps and statistics
    stand); ``moved``: some base file changed or went away."""
    if layered.delta is None:
        return not moved
    if layered.held.keys() != scan.stats.keys():
        return False
    in_delta = {
        s: h.sha256 for s, h in layered.held.items() if h.part == DELTA and scan.same_ids(s, h.ids)
    }
    delta_files = [(p, s, n) for p, s, n in scan.sized if s in in_delta]
    unchanged = stream.unchanged(delta_files, in_delta, trusted_all)
    return len(same) + len(unchanged) == len(layered.held)


def _install_delta(
    target: Path,
    layered: Layered,
    run: Run,
    same: dict[str, int],
    changed: list[tuple[Path, str, int]],
) -> BuildReport | None:
    """Link the base beside a new delta of the ``changed`` files and install both at
    ``target``; None when the file system makes no hard links."""
    tmp = work_dir(target)
    try:  # from the mkdir on (see writer.write_index)
        tmp.mkdir()
        linked = _link_tree(layered.base.root, tmp / BASE)
        if linked is None:
            shutil.rmtree(tmp, ignore_errors=True)
            return None
        previous = verified(layered.delta, run.warnings)
        base_live = np.zeros(len(layered.base), dtype=bool)
        for source in same:
            lo, hi = layered.held[source].rows
            base_live[lo:hi] = True
        # the base's counts (a native pass over its postings, the GIL released: 5-10 ms)
        # are worked out on the other core while this one parses the changed files
        arrays = _bm25_arrays(layered.base)
        base_counts = Background(live_counts, arrays, base_live)
        try:
            report = _write_delta(
                tmp, layered, run, changed, previous, linked, (base_live, base_counts)
            )
        finally:
            base_counts.wait()
        del previous, base_counts, arrays  # the counts hold a view of the base's vocabulary
        layered.release()  # the previous index's maps close before it is replaced
        install(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return replace(report, path=target)


def _refresh(target: Path, layered: Layered, run: Run) -> BuildReport:
    """An index, plain or delta-updated, whose files all have their bytes (only their stats
    changed: touched, checked out again, racily clean): its data stays, its (top) manifest
    records the new stats (written aside and renamed over it), as a rewrite would record
    them."""
    from docqa.index.meta import replace_meta

    parted = layered.delta is not None
    files: dict[str, dict[str, object]] = {}
    for _, s, _ in run.scan.sized:
        held = layered.held[s]
        files[s] = {"sha256": held.sha256, "rows": list(held.rows), "stat": list(run.scan.stats[s])}
        if held.ids:
            files[s]["ids"] = held.ids
        if parted:
            files[s]["part"] = held.part
    report = replace(_unchanged(layered, run, target, warnings=True), documents=len(files))
    layered.release()
    replace_meta(target, {"files": files, "fingerprint": run.stamp, "scanned_ns": run.scanned_ns})
    return report


def _write_delta(
    tmp: Path,
    layered: Layered,
    run: Run,
    changed: list[tuple[Path, str, int]],
    previous: Any,
    unsynced: list[Path],
    base_counts: tuple[np.ndarray, Background[LiveCounts]],
) -> BuildReport:
    """Build ``tmp/delta`` from the ``changed`` files and write the maps, the statistics of
    the live rows (``base_counts``: the base rows kept, and their counts being worked out)
    and the top manifest over it and the linked base. Every file and folder not yet fsynced
    (``unsynced``: the linked base's folders, then the delta's files and what this writes) is
    fsynced at the end, all at once (``sync_files``: 20 serial fsyncs took 9-20 ms; the
    delta's builder alone made two rounds and four single fsyncs, ~3 ms)."""
    stats_of = {s: run.scan.stats[s] for _, s, _ in changed}
    scan = Scan(changed, stats_of, run.scan.trust_stats, run.scan.suffixed, run.scan.named)
    sub = replace(run, scan=scan, unknown=[], warnings=[])
    part = (
        write_run(tmp / DELTA, sub, previous, allow_empty=True, unsynced=unsynced)
        if changed
        else None
    )
    delta = open_index(tmp / DELTA) if part is not None else None
    base = layered.base
    files, spans, row = placed(run.scan, layered, old_rows(delta), {s for _, s, _ in changed})
    base_map = spans_map(len(base), spans[BASE])
    delta_map = spans_map(0 if delta is None else len(delta), spans[DELTA])
    parts = [(BASE, base, base_map)] + ([] if delta is None else [(DELTA, delta, delta_map)])
    kept, pending = base_counts
    assert np.array_equal(kept, base_map >= 0), "the base rows kept are the ones counted"
    counts = [pending.result()]
    if delta is not None:
        counts.append(live_counts(_bm25_arrays(delta), delta_map >= 0))
    stats = CorpusStats.of_counts(counts)
    written, entries = write_global(tmp, stats, parts)
    manifest = top_manifest(base, run, row, stats, (entries, written, files))
    write_manifest(tmp, manifest, sync=False)
    done = [*unsynced, *(tmp / rel for rel in written), tmp / fmt.MANIFEST, tmp / STATS_DIR, tmp]
    sync_files(list(dict.fromkeys(done)))
    skipped = tuple(SkippedFile(u.path, u.reason) for u in run.unknown)
    embedded = 0 if part is None else part.embedded
    delta_rows = None if delta is None else len(delta)
    del delta, base, parts
    return BuildReport(
        path=tmp,
        documents=len(files),
        chunks=row,
        skipped=skipped + (() if part is None else part.skipped),
        embedder=str(manifest.embedder.get("name", "")),
        vocabulary=int(stats.vocab.size),
        embedded=embedded,
        reused=row - embedded,
        seconds=0.0,
        warnings=tuple(run.warnings),
        passed_over=run.passed_over,
        copies=run.copies,
        delta=0 if delta_rows is None else delta_rows,
    )


def _bm25_arrays(index: Index) -> dict[str, np.ndarray]:
    return {name: index.array(name) for name in ARRAYS}


def _link_tree(src: Path, dst: Path) -> list[Path] | None:
    """Hard-link every file of the index directory ``src`` into a new ``dst``; the folders
    made (for the caller to fsync), or None when the file system refuses a link (nothing is
    copied)."""
    folders: dict[Path, None] = {}
    try:
        for rel in _files(src):
            folder = (dst / rel).parent
            if folder not in folders:
                folder.mkdir(parents=True, exist_ok=True)
                folders[folder] = None
            os.link(src / rel, dst / rel)
    except OSError as exc:
        if exc.errno in LINK_ERRORS:
            return None
        raise
    return list(folders)


def _files(root: Path) -> Iterator[Path]:
    for folder, _, names in os.walk(root):
        for name in names:
            yield (Path(folder) / name).relative_to(root)
