"""Which files a build reads, and the ``source`` (hence the chunk ids) each one gets.

A file's source is its path relative to the folder given (or its name, for a file given
directly), as ``docqa.text.loaders.find_files`` says. When two given paths would give the
same source, or sources with the same ids from two folders (``docqa index docs/a docs/b``,
holding ``admin.md`` and ``admin.html``), every file of each
path taking part in such a clash is prefixed by that path's *label*: the folder's own name
(``a/admin.md``, ``b/admin.md``; for a file given directly, its folder's name). When the
labels clash too (``x/docs`` and ``y/docs``), more of the folder's path is used
(``x/docs/admin.md``). Paths that clash with nothing keep their plain sources, so ids stay
the same for the same command line, and adding a folder that clashes with nothing changes no
existing id.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from docqa.text.documents import SkippedFile
from docqa.text.ids import id_base
from docqa.text.loaders import check_unique, find_files

SourceFile = tuple[Path, str]


def _base(given: Path) -> Path:
    return (given if given.is_dir() else given.parent).resolve()


def _labels(bases: Sequence[Path]) -> list[str]:
    """The shortest trailing part of each folder path that tells them apart."""
    depth = 1
    while True:
        labels = ["/".join(b.parts[-depth:]).lstrip("/") or "root" for b in bases]
        if len(set(labels)) == len(labels) or depth > max(len(b.parts) for b in bases):
            return labels
        depth += 1


def discover(
    paths: Iterable[str | Path],
    others: Counter[str] | None = None,
    stats: list[os.stat_result] | None = None,
    copies: list[tuple[str, str]] | None = None,
) -> tuple[list[SourceFile], list[SkippedFile]]:
    """Files to load as ``(path, source)`` in load order, and named files of unknown types
    (``others``, when given, counts the folders' files of other types by suffix; ``stats``
    gets each file's stat, in the same order; ``copies`` the pages passed over as the same
    page in another format, as ``find_files`` says).

    Raises ``InputError`` when a path does not exist or two files still get the same source
    after labels (files whose ids alone clash keep their suffixes: ``docqa.text.ids``).
    """
    given = [Path(p) for p in paths]
    groups: list[list[SourceFile]] = []
    unknown: list[SkippedFile] = []
    for path in given:
        found, bad = find_files([path], others, stats, copies)
        groups.append(found)
        unknown.extend(bad)
    # ids met in the files of more than one folder (files of one folder whose ids would be
    # the same keep their suffixes instead: docqa.text.ids)
    folders = [_base(p) for p in given]
    held = {(id_base(s), folders[i]) for i, group in enumerate(groups) for _, s in group}
    counts = Counter(key for key, _ in held)
    clashing = [i for i, g in enumerate(groups) if any(counts[id_base(s)] > 1 for _, s in g)]
    if clashing:
        labels = _labels([folders[i] for i in clashing])
        for i, label in zip(clashing, labels, strict=True):
            groups[i] = [(p, f"{label}/{s}") for p, s in groups[i]]
    files = [item for group in groups for item in group]
    check_unique(files)
    return files, unknown


# A file's stat as an update compares it: (size, mtime_ns, ctime_ns, inode, device). The
# ctime cannot be set by a user (os.utime sets mtime and atime and bumps the ctime), so a
# file whose stat is unchanged was not written since, unless it was written in the same
# timestamp tick as the stat was taken (the "racy git" case, below).
Stat = tuple[int, int, int, int, int]
# A recorded stat is trusted only if its file was last changed this long before the scan
# that recorded it: timestamps come from a coarse clock (up to a scheduler tick behind the
# scan's clock) and some filesystems keep them coarser still (1 s on ext3, 2 s on FAT).
RACY_NS = 3_000_000_000


def stat_of(st: os.stat_result) -> Stat:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def stat_trusted(recorded: object, now: Stat, scanned_ns: object) -> bool:
    """Whether a file whose stat was ``recorded`` by a scan started at ``scanned_ns`` (as
    the previous build's manifest holds them) still holds the bytes read then, given its
    stat ``now``: the same stat, last changed at least ``RACY_NS`` before that scan. A file
    changed within the tick of the scan could be changed again with the same stat, so it
    is read and hashed (as git re-hashes "racily clean" entries)."""
    if not isinstance(recorded, list) or not isinstance(scanned_ns, int):
        return False
    if tuple(recorded) != now:
        return False
    return max(now[1], now[2]) < scanned_ns - RACY_NS
