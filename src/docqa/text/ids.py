"""The part of a section id before ``#``, from a document's source. Apart from
``docqa.text.sections`` so that the loaders, which must keep two files from getting the same
ids, can ask it too (``sections`` imports the loaders). Pure.

A file's ids are its source without the suffix (``guide/loans.md`` -> ``guide/loans#...``),
unless another file read would get the same ids: files of one stem that hold different texts
(``good.md``, ``good.txt``; a folder's walk passes over a page's copies in other formats,
``docqa.text.loaders``) each keep their whole source (``good.md#...``, ``good.txt#...``).
Which files keep it depends on the set of sources alone, so every build and update of the
same files gives the same ids, whatever order they are listed in."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import PurePosixPath

__all__ = ["id_base", "id_base_reference", "id_path", "suffixed"]


def suffixed(sources: Iterable[str]) -> frozenset[str]:
    """The ``sources`` whose ids keep their suffix: those whose ``id_base`` another one shares,
    then any whose ``id_base`` is such a kept source (``good.md.txt`` beside a kept
    ``good.md``), until every file's ids differ (sources are distinct)."""
    sources = list(dict.fromkeys(sources))
    kept: set[str] = set()
    while True:
        paths = [s if s in kept else id_base(s) for s in sources]
        counts = Counter(paths)
        more = {s for s, p in zip(sources, paths, strict=True) if counts[p] > 1} - kept
        if not more:
            return frozenset(kept)
        kept |= more


def id_path(source: str, kept: frozenset[str] | set[str] = frozenset()) -> str:
    """The part of ``source``'s ids before ``#``: ``source`` itself when it is in ``kept``
    (see ``suffixed``), else its ``id_base``."""
    return source if source in kept else id_base(source)


def id_base(source: str) -> str:
    """The part of a section id before ``#``: ``source`` without its extension (a PDF's kept),
    as ``PurePosixPath`` gives it, and a gzipped file's as its unpacked name's
    (``guide.md.gz`` -> ``guide``); plain relative paths (the loaders' sources) skip the
    ``PurePosixPath``, the rest go through ``id_base_reference`` (tested equal)."""
    source = _without_gz(source)
    if not source or "//" in source or "/." in source or source[0] == "." or source[-1] == "/":
        return id_base_reference(source)
    name_at = source.rfind("/") + 1
    dot = source.rfind(".")
    if dot <= name_at or dot == len(source) - 1 or source[dot:].lower() == ".pdf":
        return source  # no suffix (a dot first in the name or last is none), or a PDF
    return source[:dot]


def _without_gz(source: str) -> str:
    """``source`` without a final ``.gz``, when a name (not ``.`` or ``..``) is left."""
    name = source.rsplit("/", 1)[-1]
    gz = name.lower().endswith(".gz") and name[:-3] not in _NO_NAME
    return source[:-3] if gz else source


_NO_NAME = ("", ".", "..")


def id_base_reference(source: str) -> str:
    """``id_base`` through ``PurePosixPath``."""
    path = PurePosixPath(source)
    if path.suffix.lower() == ".gz" and path.stem not in _NO_NAME:
        path = path.with_suffix("")
    return (path if path.suffix.lower() == ".pdf" else path.with_suffix("")).as_posix()
