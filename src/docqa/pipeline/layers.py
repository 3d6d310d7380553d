"""A delta-updated index as an update reads it (:mod:`docqa.pipeline.delta`): its base, its
delta, where each file's rows are and what the scan that wrote it saw; a plain index reads as
the base of a first delta."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from docqa.errors import DocqaError
from docqa.index.reader import Index
from docqa.index.shards import may_be_sharded, open_sharded
from docqa.pipeline.previous import Scan, old_rows
from docqa.pipeline.settings import IndexSettings
from docqa.pipeline.sources import stat_trusted

BASE, DELTA = "base", "delta"


@dataclass(frozen=True, slots=True)
class Held:
    """Where a file's rows are: its part (base or delta), the local rows, the sha256 they were
    built from, the stat the scan that recorded it saw and its ids' part before ``#`` when
    they keep its suffix (``OldFile.ids``)."""

    part: str
    rows: tuple[int, int]
    sha256: str
    stat: object = None
    ids: object = ""


@dataclass
class Layered:
    """The previous index as an update sees it: the base, the delta (None for a plain index),
    each file's rows, the base's live rows and the fingerprint and scan time it recorded."""

    base: Index
    delta: Index | None
    held: dict[str, Held]
    base_live: np.ndarray  # bool per base row
    fingerprint: object
    scanned_ns: object
    count: int
    vocabulary: int
    checked: dict[str, int] | None = None  # base files found unchanged (for a rewrite)

    def release(self) -> None:
        """Drop the opened indexes, so their maps close before the index is replaced."""
        del self.base, self.delta


def applies(settings: IndexSettings) -> bool:
    """Whether an index built with ``settings`` can be updated by a delta (see above)."""
    return settings.embedder != "tfidf" and settings.storage == "float32"


def plain(index: Index) -> Layered:
    """A plain index as the base of a first delta: all rows live, no delta."""
    held = {s: Held(BASE, r.rows, r.sha256, r.stat, r.ids) for s, r in old_rows(index).items()}
    meta = index.manifest.meta
    return Layered(
        index,
        None,
        held,
        np.ones(len(index), dtype=bool),
        meta.get("fingerprint"),
        meta.get("scanned_ns"),
        len(index),
        int(index.array("bm25_vocab").size),
    )


def previous_delta(target: Path, settings: IndexSettings) -> Layered | None:
    """The delta-updated index at ``target`` if it was built with ``settings`` and opens;
    None otherwise (no index, a plain one, or one not to reuse: then it is rewritten)."""
    if not applies(settings) or not may_be_sharded(target):
        return None
    try:
        index = open_sharded(target)  # a plain manifest with the mark in it: IndexCorrupt
    except DocqaError:
        return None
    meta = index.manifest.meta
    if index.maps is None or meta.get("settings") != asdict(settings):
        return None
    parts = {entry.path: i for i, entry in enumerate(index.manifest.shards)}
    if BASE not in parts or not set(parts) <= {BASE, DELTA}:
        return None
    base = index.shards[parts[BASE]]
    delta = index.shards[parts[DELTA]] if DELTA in parts else None
    held = _held(meta.get("files"), {BASE: len(base), DELTA: 0 if delta is None else len(delta)})
    live = index.maps[parts[BASE]] >= 0
    return Layered(
        base,
        delta,
        held,
        live,
        meta.get("fingerprint"),
        meta.get("scanned_ns"),
        len(index),
        int(index.manifest.bm25.get("n_terms", 0)),
    )


def _held(files: object, sizes: dict[str, int]) -> dict[str, Held]:
    """The well-formed records of ``files`` (a top manifest's ``meta["files"]``)."""
    out: dict[str, Held] = {}
    for source, rec in files.items() if isinstance(files, dict) else ():
        if not isinstance(rec, dict) or rec.get("part") not in sizes:
            continue
        rows, sha = rec.get("rows"), rec.get("sha256")
        if not (isinstance(rows, list) and len(rows) == 2 and isinstance(sha, str)):
            continue
        lo, hi = rows
        if type(lo) is int and type(hi) is int and 0 <= lo <= hi <= sizes[rec["part"]]:
            out[source] = Held(rec["part"], (lo, hi), sha, rec.get("stat"), rec.get("ids", ""))
    return out


def trusted_files(layered: Layered, scan: Scan) -> set[str]:
    """Sources whose stat shows them unchanged since the scan that recorded them."""
    if not scan.trust_stats:
        return set()
    return {
        s
        for s, h in layered.held.items()
        if s in scan.stats and stat_trusted(h.stat, scan.stats[s], layered.scanned_ns)
    }


def up_to_date(layered: Layered, scan: Scan, stamp: str) -> bool:
    """Whether the delta-updated index holds exactly these files, every one stat-trusted."""
    return (
        layered.fingerprint == stamp
        and layered.held.keys() == scan.stats.keys()
        and len(trusted_files(layered, scan)) == len(layered.held)
    )
