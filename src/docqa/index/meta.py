"""Change one entry of an index's ``meta`` in place, atomically (the rest of the index as is).

``manifest.json`` is rewritten by :func:`docqa.index.files.write_manifest` (a temporary
sibling, fsynced, renamed over the old one, the directory fsynced): a reader sees the old
manifest or the new one, never a torn one. Used by ``docqa calibrate`` to store the guard's
settings; the index's data files are not touched, so their recorded sizes stay true.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from docqa.errors import InputError
from docqa.index import format as fmt
from docqa.index.files import write_manifest
from docqa.index.shards import ShardsManifest, is_sharded


def update_meta(root: str | Path, key: str, value: Any) -> fmt.Manifest | ShardsManifest:
    """Set ``meta[key] = value`` (JSON-ready) in the index at ``root``; return the new manifest."""
    return replace_meta(root, {key: value})


def replace_meta(root: str | Path, changes: Mapping[str, Any]) -> fmt.Manifest | ShardsManifest:
    """Set every ``meta[key] = value`` of ``changes`` in one rewrite of the manifest."""
    path = Path(root) / fmt.MANIFEST
    if not path.is_file():
        raise fmt.no_index(Path(root))
    for key, value in changes.items():
        try:
            json.dumps(value)
        except (TypeError, ValueError) as exc:
            raise InputError(f"meta {key!r} must be JSON-ready: {exc}") from None
    text = path.read_text(encoding="utf-8")
    if is_sharded(path.parent):  # a sharded or delta-updated index: its top manifest
        top = ShardsManifest.from_json(text, str(path))
        updated: fmt.Manifest | ShardsManifest = replace(top, meta={**top.meta, **changes})
    else:
        manifest = fmt.Manifest.from_json(text, str(path))
        updated = replace(manifest, meta={**manifest.meta, **changes})
    write_manifest(path.parent, updated)
    return updated
