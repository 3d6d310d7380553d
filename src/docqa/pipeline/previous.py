"""What an update knows of the previous build: each file's record in its manifest (the
sha256 its rows were built from, the rows, the stat its scan saw), this build's scan, and
which files the stat pre-check (:func:`docqa.pipeline.sources.stat_trusted`) lets through
unread."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from docqa.index.reader import Index
from docqa.pipeline.sources import Stat, stat_trusted


@dataclass(frozen=True, slots=True)
class OldFile:
    """A file's record in the previous index: the sha256 its rows were built from, the rows,
    the stat its scan saw (a list, as JSON gives it; None for an older manifest) and the part
    of its ids before ``#`` when they keep its suffix ("" else: ``docqa.text.ids``)."""

    sha256: str
    rows: tuple[int, int]
    stat: object = None
    ids: object = ""


def old_rows(previous: Index | None) -> dict[str, OldFile]:
    """The records of the files in ``previous`` whose recorded rows are well formed and lie
    inside it (anything else is simply processed again)."""
    if previous is None:
        return {}
    files = previous.manifest.meta.get("files")
    out: dict[str, OldFile] = {}
    n = len(previous)
    for source, record in files.items() if isinstance(files, dict) else ():
        rows = record.get("rows") if isinstance(record, dict) else None
        if not (isinstance(rows, list) and len(rows) == 2):
            continue
        start, stop = rows
        if type(start) is int and type(stop) is int and 0 <= start <= stop <= n:
            sha = record.get("sha256")
            if isinstance(sha, str):
                out[source] = OldFile(sha, (start, stop), record.get("stat"), record.get("ids", ""))
    return out


@dataclass(frozen=True, slots=True)
class Scan:
    """The files found, in load order, as ``(path, source, size)``; each one's stat; whether
    an unchanged stat may stand for unchanged bytes (not under ``--verify``); the sources
    whose ids keep their suffix (``docqa.text.ids.suffixed`` of every file found); the
    sources given by name (``docqa.text.loaders.named_sources``)."""

    sized: list[tuple[Path, str, int]]
    stats: dict[str, Stat]
    trust_stats: bool
    suffixed: frozenset[str] = frozenset()
    named: frozenset[str] = frozenset()

    def same_ids(self, source: str, ids: object) -> bool:
        """Whether ``source``'s rows recorded with ``ids`` (``OldFile.ids``) have the ids
        this build gives it: rows whose ids changed are built again, not reused."""
        return ids == (source if source in self.suffixed else "")


def trusted(scan: Scan, old: dict[str, OldFile], previous: Index | None) -> set[str]:
    """Sources whose stat shows them unchanged since the previous build (not read again)."""
    if not scan.trust_stats or previous is None:
        return set()
    scanned_ns = previous.manifest.meta.get("scanned_ns")
    return {
        s
        for s, rec in old.items()
        if s in scan.stats and stat_trusted(rec.stat, scan.stats[s], scanned_ns)
    }


def up_to_date(previous: Index, scan: Scan, stamp: str) -> bool:
    """Whether ``previous`` was built from exactly these files (same fingerprint) and every
    one of them is stat-trusted unchanged: then a rebuild would write the same bytes."""
    meta = previous.manifest.meta
    old = old_rows(previous)
    return (
        meta.get("fingerprint") == stamp
        and old.keys() == scan.stats.keys()
        and len(trusted(scan, old, previous)) == len(old)
    )
