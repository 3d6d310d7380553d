"""The summary line of ``docqa index``, apart from ``render`` so that a quiet build imports
no rich (~0.13 s of a build's serial start-up)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from docqa.controls import escape_controls

if TYPE_CHECKING:
    from docqa.build import BuildReport


def build_summary(r: BuildReport) -> str:
    skipped = "; ".join(f"{s.path}: {s.reason}" for s in r.skipped) or "none"
    line = (
        f"indexed {r.documents} documents, {r.chunks} chunks ({r.embedded} embedded, "
        f"{r.reused} reused) into {_shown_path(r.path)}; skipped {len(r.skipped)} ({skipped}); "
        f"embedder {r.embedder}; vocabulary {r.vocabulary} terms; {r.seconds:.2f} s"
    )
    return escape_controls("\n".join([line, *(f"warning: {w}" for w in r.warnings)]))


def _shown_path(path: Any) -> str:
    """``path`` relative to the current folder when it lies inside it (as the user typed it),
    else as it is."""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(path)
    return rel if not rel.startswith("..") else str(path)
