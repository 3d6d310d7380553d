"""The part of a section id before ``#``, from a document's source. Apart from
``docqa.text.sections`` so that the loaders, which must keep two files from getting the same
ids, can ask it too (``sections`` imports the loaders). Pure."""

from __future__ import annotations

from pathlib import PurePosixPath

__all__ = ["id_base", "id_base_reference"]


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
