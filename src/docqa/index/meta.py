"""Change one entry of an index's ``meta`` in place, atomically (the rest of the index as is).

``manifest.json`` is rewritten to a temporary sibling, fsynced, and renamed over the old one
(``os.replace``, atomic on POSIX), then the directory is fsynced: a reader sees the old
manifest or the new one, never a torn one. Used by ``docqa calibrate`` to store the guard's
settings; the index's data files are not touched, so their recorded sizes stay true.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from docqa.errors import IndexNotFound, InputError
from docqa.index import format as fmt


def update_meta(root: str | Path, key: str, value: Any) -> fmt.Manifest:
    """Set ``meta[key] = value`` (JSON-ready) in the index at ``root``; return the new manifest."""
    path = Path(root) / fmt.MANIFEST
    if not path.is_file():
        raise IndexNotFound(
            f"no index at {root}; build one with `docqa index FOLDER --index {root}`"
        )
    try:
        json.dumps(value)
    except (TypeError, ValueError) as exc:
        raise InputError(f"meta {key!r} must be JSON-ready: {exc}") from None
    manifest = fmt.Manifest.from_json(path.read_text(encoding="utf-8"), str(path))
    updated = replace(manifest, meta={**manifest.meta, key: value})
    tmp = path.with_name(f".{fmt.MANIFEST}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as raw:
            raw.write(updated.to_json().encode("utf-8"))
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return updated
