"""Which paths the index writer may replace or delete: only what is provably ours.

A target is replaced only when it is absent, an empty folder, or provably a docqa index: a
manifest that parses, names the format and a version this docqa reads, and nothing in the
folder but the files it lists (a user's folder that happens to hold a ``manifest.json`` of its
own is refused). A symlinked target is followed: its target is replaced and the link kept.
Leftovers of builds (``.<name>.tmp-<pid>-<hex>``, ``.<name>.old-<hex>``) are removed only when
they have exactly those names, are real folders, their process is gone, and they hold only
index files (a set-aside one must be a whole index).
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import stat
from pathlib import Path

from docqa.errors import IndexStoreError, InputError
from docqa.index import format as fmt


def resolve_target(path: str | os.PathLike[str]) -> Path:
    """The directory an index at ``path`` lives in: a symlink is followed (its target is
    replaced, the link kept), so a swap never turns the link into a directory."""
    target = Path(path).absolute()
    if not target.is_symlink():
        return target
    real = Path(os.path.realpath(target))
    if not real.exists():
        raise InputError(
            f"{target} is a symlink to {real}, which does not exist; create that folder "
            "or give another --index"
        )
    return real


def check_replaceable(target: Path) -> None:
    """Refuse to replace a path unless it is absent, an empty folder, or provably an index:
    a valid manifest of a readable format version, and nothing in the folder but its files."""
    try:
        st = target.lstat()
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode) and not any(target.iterdir()):
        return
    problem = _not_an_index(target) if stat.S_ISDIR(st.st_mode) else "not a folder"
    if problem:
        raise InputError(
            f"{target} exists and is not a docqa index ({problem}); "
            "choose another path or remove it yourself"
        )


def _not_an_index(folder: Path) -> str:
    """Why ``folder`` is not provably a docqa index, or ``""`` when it is one."""
    manifest = folder / fmt.MANIFEST
    if manifest.is_symlink() or not manifest.is_file():
        return f"no {fmt.MANIFEST}"
    try:
        text = manifest.read_text(encoding="utf-8")
        parsed = fmt.Manifest.from_json(text, str(manifest))
    except (IndexStoreError, OSError, UnicodeDecodeError):
        return _not_a_sharded_index(folder)
    ours = {fmt.MANIFEST, fmt.ARRAYS_DIR, *parsed.files}
    arrays = folder / fmt.ARRAYS_DIR
    found = {p.name for p in folder.iterdir()}
    if arrays.is_dir() and not arrays.is_symlink():
        found |= {f"{fmt.ARRAYS_DIR}/{p.name}" for p in arrays.iterdir()}
    elif arrays.exists() or arrays.is_symlink():
        return f"{arrays.name} is not a folder"
    extra = sorted(found - ours)
    return f"it also holds {extra[0]!r}, which is not an index file" if extra else ""


def _not_a_sharded_index(folder: Path) -> str:
    """Why ``folder`` is not provably a sharded docqa index (its top manifest, the files it
    lists, and shard folders that are each provably an index), or ``""`` when it is one."""
    from docqa.index.shards import STATS_DIR, ShardsManifest

    manifest = folder / fmt.MANIFEST
    try:
        parsed = ShardsManifest.from_json(manifest.read_text(encoding="utf-8"), str(manifest))
    except (IndexStoreError, OSError, UnicodeDecodeError):
        return f"{fmt.MANIFEST} is not a docqa index manifest this version reads"
    shards = {entry.path for entry in parsed.shards}
    ours = {fmt.MANIFEST, STATS_DIR, *shards, *parsed.files}
    found = {p.name for p in folder.iterdir()}
    stats = folder / STATS_DIR
    if stats.is_dir() and not stats.is_symlink():
        found |= {f"{STATS_DIR}/{p.name}" for p in stats.iterdir()}
    extra = sorted(found - ours)
    if extra:
        return f"it also holds {extra[0]!r}, which is not an index file"
    for name in sorted(shards):
        shard = folder / name
        problem = "a link" if shard.is_symlink() else _not_an_index(shard)
        if problem:
            return f"shard {name}: {problem}"
    return ""


_DEBRIS = re.compile(r"^\.(?P<name>.+)\.(?:(?P<tmp>tmp-(?P<pid>[0-9]+))|old)-[0-9a-f]{8}$")


def clean_debris(target: Path) -> None:
    """Remove temporary and set-aside directories of builds whose process has ended, and only
    those: the exact names this writer makes, real folders (no symlinks), and whose contents
    are nothing but index files (a set-aside one must be a whole index)."""
    for entry in target.parent.glob(f".{glob.escape(target.name)}.*-*"):
        m = _DEBRIS.match(entry.name)
        if not m or m["name"] != target.name or entry.is_symlink() or not entry.is_dir():
            continue
        if m["tmp"] and _pid_alive(m["pid"]):
            continue
        if not _only_index_files(entry, whole=not m["tmp"]):
            continue
        shutil.rmtree(entry, ignore_errors=True)


_RUN = re.compile(r"^run-[0-9]+\.[hrt]$")  # a build's spilled postings (``PostingRuns``)
_WORK_PART = re.compile(
    r"^(?:farm|group)-[0-9]+$|^\.group-[0-9]+\.(?:lock|tmp-[0-9]+-[0-9a-f]{8})$"
)


def _only_index_files(folder: Path, *, whole: bool) -> bool:
    """Whether ``folder`` holds only what the writer puts in an index (``whole``: a valid one),
    or in a build's work folder: the index files, the ``scratch`` folder of spilled postings,
    a delta's parts, or a sharded build's shards and ``.work`` folder."""
    if whole:
        return not _not_an_index(folder)
    if (folder / "base").is_dir():
        return _only_delta_files(folder)
    names = {fmt.MANIFEST, fmt.VECTORS, fmt.OFFSETS, fmt.BLOB, fmt.ARRAYS_DIR}
    for p in folder.iterdir():
        if p.is_symlink():
            return False
        if p.name == fmt.ARRAYS_DIR:
            ok = all(fmt.allowed_file(f"{fmt.ARRAYS_DIR}/{a.name}") and not a.is_symlink()
                     for a in p.iterdir())  # fmt: skip
        elif p.name == "scratch":
            ok = _all_match(p, _RUN)
        elif p.name == ".work" or p.name.startswith("shard-"):
            ok = p.is_dir() and _sharded_part(p)
        else:
            ok = p.name in names
        if not ok:
            return False
    return True


def _all_match(folder: Path, names: re.Pattern[str]) -> bool:
    return folder.is_dir() and all(
        names.match(p.name) and p.is_file() and not p.is_symlink() for p in folder.iterdir()
    )


def _sharded_part(folder: Path) -> bool:
    """Whether ``folder`` is a shard being written or a sharded build's ``.work`` folder:
    group indexes, their locks and work folders, and farms of links to the files built (a
    link is removed, never followed)."""
    if folder.name != ".work":
        return _only_index_files(folder, whole=False)
    for p in folder.iterdir():
        if not _WORK_PART.match(p.name):
            return False
        if p.name.startswith("farm-"):
            if not _only_links(p):
                return False
        elif p.name.endswith(".lock"):
            if not p.is_file() or p.is_symlink():
                return False
        elif p.is_symlink() or not p.is_dir() or not _only_index_files(p, whole=False):
            return False
    return True


def _only_links(folder: Path) -> bool:
    """Whether ``folder`` (a real folder) holds only symlinks and real folders of them."""
    if folder.is_symlink() or not folder.is_dir():
        return False
    return all(p.is_symlink() or _only_links(p) for p in folder.iterdir())


def _only_delta_files(folder: Path) -> bool:
    """Whether ``folder`` holds only what a delta update writes (``docqa.pipeline.delta``):
    the linked base, the delta (or its builder's temporary folder), the global arrays."""
    from docqa.index.shards import STATS_DIR

    for p in folder.iterdir():
        if p.is_symlink():
            return False
        if p.name in ("base", "delta") or (p.name.startswith(".delta.tmp-") and p.is_dir()):
            if not _only_index_files(p, whole=False):
                return False
        elif p.name == STATS_DIR and p.is_dir():
            if not all(a.suffix == ".npy" and a.is_file() and not a.is_symlink()
                       for a in p.iterdir()):  # fmt: skip
                return False
        elif p.name != fmt.MANIFEST:
            return False
    return True


def _pid_alive(text: str) -> bool:
    try:
        os.kill(int(text), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True
