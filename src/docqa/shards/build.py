"""Build a sharded index: file groups built by the normal build, then cut into shards.

1. The files (``find_files`` order, which is the row order of a one-directory build) are
   split into contiguous groups of about equal bytes; each group is built by
   ``docqa.build.build_index`` over a folder of symlinks that reproduces the files' sources,
   so its chunks are exactly those of a one-directory build.
2. The rows of all groups, in order, are cut into shards of ``shard_rows`` rows
   (``[j * shard_rows, (j + 1) * shard_rows)``), each written as an ordinary index directory
   with its own BM25 postings; shard boundaries depend only on the rows, never on the groups.
3. The collection's BM25 statistics and the top-level manifest are written, and the whole
   directory moved into place in one step (a failed build leaves the previous index).

Steps 1 and 2 are lists of independent tasks handed to a ``Runner``: in this process
(``run_here``) or as Ray tasks (``docqa.distributed.tasks``); the result is the same bytes
either way (manifest times aside).

Known limit: a group whose every file is skipped (empty, binary, not UTF-8) fails the build
with the normal build's "no documents loaded" error, where a one-directory build would skip
those files; groups are large runs of files, so this needs many bad files in a row.
"""

from __future__ import annotations

import itertools
import os
import shutil
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from docqa.build import BuildReport, IndexSettings, build_index, fingerprint, passed_over
from docqa.errors import InputError
from docqa.index import open_index, write_index
from docqa.index.files import install
from docqa.index.lock import build_lock
from docqa.index.ownership import check_replaceable, clean_debris, resolve_target
from docqa.index.reader import ChunkSequence, Index
from docqa.index.shards import shard_name, write_top_manifest
from docqa.keyword import BM25Index
from docqa.keyword.config import BM25Config
from docqa.text import SkippedFile, SkippedFileWarning, keyword_text
from docqa.text.ids import id_base
from docqa.text.loaders import check_unique, find_files
from docqa.types import Chunk

DEFAULT_SHARD_ROWS = 1 << 20
"""Rows per shard when sharding without ``--shard-rows``: 1 GiB of float32 at d = 256."""

T = TypeVar("T")
R = TypeVar("R")
Runner = Callable[[Callable[[T], R], Sequence[T]], list[R]]


def run_here(fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """The local ``Runner``: one task after another, in this process."""
    return [fn(item) for item in items]


@dataclass(frozen=True)
class GroupTask:
    """Build files ``[(path, source), ...]`` into ``work/group-NNNNN``."""

    number: int
    files: tuple[tuple[str, str], ...]
    work: str
    settings: IndexSettings


@dataclass(frozen=True)
class GroupResult:
    path: str
    rows: int
    documents: int
    skipped: tuple[SkippedFile, ...]
    files: dict[str, Any]  # the group manifest's meta["files"]


@dataclass(frozen=True)
class CutTask:
    """Write global rows ``[lo, hi)`` of the groups as shard directory ``path``."""

    path: str
    lo: int
    hi: int
    groups: tuple[tuple[str, int], ...]  # (group index directory, its first global row)
    settings: IndexSettings


def plan_groups(paths: Sequence[str | Path], n_groups: int) -> list[tuple[tuple[str, str], ...]]:
    """The files of ``paths`` in load order, split into up to ``n_groups`` contiguous runs of
    about equal bytes; ``InputError`` when two files would get the same source or ids."""
    found, _ = find_files(paths)
    check_unique(found)
    if not found:
        where = ", ".join(map(str, paths))
        raise InputError(
            "no .md, .rst, .adoc, .txt, .html, .htm or .pdf files or manual pages (also gzipped) "
            f"found in {where}"
        )
    sizes = np.cumsum([p.stat().st_size + 1 for p, _ in found])
    cuts = np.searchsorted(sizes, sizes[-1] * np.arange(1, n_groups) / n_groups, side="right")
    bases = [id_base(s) for _, s in found]
    # files of one stem stay in one group: their ids keep their suffixes only beside each other
    moved = {next((j for j in range(c, len(found)) if bases[j] != bases[j - 1]), len(found))
             for c in cuts.tolist() if c > 0}  # fmt: skip
    bounds = [0, *sorted(moved - {0, len(found)}), len(found)]
    items = [(str(p.absolute()), s) for p, s in found]
    return [tuple(items[a:b]) for a, b in itertools.pairwise(bounds)]


def build_group(task: GroupTask) -> GroupResult:
    """Step 1 for one group (a Ray task in a distributed build: module-level, picklable)."""
    work = Path(task.work)
    farm = work / f"farm-{task.number:05d}"
    for path, source in task.files:
        link = farm / source
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.is_symlink():
            link.symlink_to(path)
    target = work / f"group-{task.number:05d}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkippedFileWarning)  # they are in the report
        report = build_index([farm], target, task.settings)
    shutil.rmtree(farm, ignore_errors=True)
    files = dict(open_index(target).manifest.meta.get("files", {}))
    return GroupResult(str(target), report.chunks, report.documents, report.skipped, files)


class _Rows(ChunkSequence):
    """Global rows ``[lo, hi)`` of consecutive group indexes: chunks lazily, and ``vectors``
    as a sliceable ``(hi - lo, d)`` view (the writer streams both block by block)."""

    def __init__(self, groups: Sequence[tuple[Index, int]], lo: int, hi: int) -> None:
        self.parts = [
            (ix, max(lo, off) - off, min(hi, off + len(ix)) - off)
            for ix, off in groups
            if off < hi and off + len(ix) > lo
        ]
        self.n = hi - lo
        self.shape = (self.n, groups[0][0].manifest.dim)

    def __len__(self) -> int:
        return self.n

    def chunk(self, row: int) -> Chunk:
        """The chunk of global row ``lo + row``."""
        i = row
        for ix, a, b in self.parts:
            if i < b - a:
                return ix.chunk(a + i)
            i -= b - a
        raise IndexError(i)

    def __iter__(self) -> Iterator[Chunk]:
        for ix, a, b in self.parts:
            yield from ix.chunks[a:b]

    def vectors(self, i: slice) -> np.ndarray:
        start, stop, _ = i.indices(self.n)
        out, seen = [], 0
        for ix, a, b in self.parts:
            lo, hi = max(start - seen, 0), min(stop - seen, b - a)
            if lo < hi:
                out.append(np.asarray(ix.vectors[a + lo : a + hi]))
            seen += b - a
        return np.concatenate(out) if out else np.zeros((0, self.shape[1]), np.float32)


class _VectorView:
    def __init__(self, rows: _Rows) -> None:
        self.rows, self.shape = rows, rows.shape

    def __getitem__(self, i: slice) -> np.ndarray:
        return self.rows.vectors(i)


def cut_shard(task: CutTask) -> str:
    """Step 2 for one shard (a Ray task in a distributed build); returns its path."""
    groups = [(open_index(path), off) for path, off in task.groups]
    rows = _Rows(groups, task.lo, task.hi)
    settings = task.settings
    bm25 = BM25Index.from_texts(
        keyword_text(c, headings=settings.headings, heading_weight=settings.heading_weight)
        for c in rows
    )
    files = {}
    for ix, off in groups:
        for source, rec in ix.manifest.meta.get("files", {}).items():
            a, b = max(off + rec["rows"][0], task.lo), min(off + rec["rows"][1], task.hi)
            if a < b:
                files[source] = {"sha256": rec["sha256"], "rows": [a - task.lo, b - task.lo]}
    meta = {
        "settings": asdict(task.settings),
        "files": files,
        "bm25": bm25.config.to_dict(),
        "rows": [task.lo, task.hi],
    }
    embedder = dict(groups[0][0].manifest.embedder)
    write_index(task.path, rows, _VectorView(rows), embedder=embedder,
                arrays=bm25.to_arrays(), meta=meta)  # fmt: skip
    return task.path


def build_sharded(
    paths: Sequence[str | Path],
    index_dir: str | Path,
    settings: IndexSettings | None = None,
    *,
    shard_rows: int = DEFAULT_SHARD_ROWS,
    groups: int = 1,
    runner: Runner[Any, Any] = run_here,
) -> BuildReport:
    """Build ``paths`` into a sharded index at ``index_dir`` (see the module doc); ``groups``
    file groups are built by ``runner`` (the result does not depend on it)."""
    settings = settings or IndexSettings()
    _check_sharding(settings, shard_rows, groups)
    started = time.perf_counter()
    stamp = fingerprint(paths, settings)
    target = resolve_target(index_dir)
    with build_lock(target):  # a second build of the same index raises IndexBusy
        check_replaceable(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        clean_debris(target)
        built, top = _build_locked(paths, target, settings, shard_rows, groups, runner, stamp)
    return _report(target, built, settings, paths, int(top.bm25["n_terms"]), started)


def _build_locked(
    paths: Sequence[str | Path],
    target: Path,
    settings: IndexSettings,
    shard_rows: int,
    groups: int,
    runner: Runner[Any, Any],
    stamp: str,
) -> tuple[list[GroupResult], Any]:
    """The groups built, cut into shards in a work folder, installed at ``target``."""
    tmp = target.parent / f".{target.name}.tmp-{_tag()}"
    work = tmp / ".work"
    try:
        work.mkdir(parents=True)
        plan = plan_groups(paths, groups)
        tasks = [GroupTask(i, files, str(work), settings) for i, files in enumerate(plan)]
        built: list[GroupResult] = runner(build_group, tasks)
        names = _cut_all(built, tmp, shard_rows, settings, runner)
        shutil.rmtree(work)
        meta = {"settings": asdict(settings), "fingerprint": stamp, "shard_rows": shard_rows}
        top = write_top_manifest(tmp, names, BM25Config().to_dict(), meta)
        install(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return built, top


def _cut_all(
    built: Sequence[GroupResult],
    tmp: Path,
    shard_rows: int,
    settings: IndexSettings,
    runner: Runner[Any, Any],
) -> list[str]:
    """Step 2 over every shard; returns the shard directory names in row order."""
    offsets = np.cumsum([0, *(g.rows for g in built)]).tolist()
    total = int(offsets[-1])
    groups = tuple((g.path, int(off)) for g, off in zip(built, offsets, strict=False))
    n_shards = max(1, -(-total // shard_rows))
    names = [shard_name(j) for j in range(n_shards)]
    tasks = [
        CutTask(str(tmp / names[j]), j * shard_rows, min(total, (j + 1) * shard_rows),
                groups, settings)
        for j in range(n_shards)
    ]  # fmt: skip
    runner(cut_shard, tasks)
    return names


def _check_sharding(settings: IndexSettings, shard_rows: int, groups: int) -> None:
    if settings.embedder != "hashing":
        raise InputError(
            f"a sharded index needs the hashing embedder ({settings.embedder!r} is fitted to the "
            "whole collection); use --embedder hashing or drop --shard-rows / --ray"
        )
    for name, value in (("shard_rows", shard_rows), ("groups", groups)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InputError(f"{name} must be an int >= 1, got {value!r}")


def _tag() -> str:
    return f"{os.getpid()}-{os.urandom(4).hex()}"


def _report(
    target: Path,
    built: Sequence[GroupResult],
    settings: IndexSettings,
    paths: Sequence[str | Path],
    n_terms: int,
    started: float,
) -> BuildReport:
    others: Counter[str] = Counter()
    copies: list[tuple[str, str]] = []
    _, unknown = find_files(paths, others, None, copies)
    rows = sum(g.rows for g in built)
    return BuildReport(
        path=target,
        documents=sum(g.documents for g in built),
        chunks=rows,
        skipped=tuple(unknown) + tuple(s for g in built for s in g.skipped),
        embedder=settings.make_embedder().name,
        vocabulary=n_terms,
        embedded=rows,
        reused=0,
        seconds=time.perf_counter() - started,
        passed_over=passed_over(others),
        copies=tuple(copies),
    )
