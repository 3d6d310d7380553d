"""Hits whose passages say different things: a passage whose text a better hit already holds
word for word is left out, and the next one comes up in its place.

Manuals repeat themselves: FFmpeg's Debian pages hold every chapter twice (``ffmpeg-all.html``
beside ``ffmpeg-filters.html``, and again in ``ffplay-all.html`` and ``ffprobe-all.html``),
git's, borg's and PostgreSQL's hold hundreds of passages written out twice. Without this, one
passage filled four of five places and the answer read the same text three times. Two hits
are the same passage when their chunks' texts are (``Chunk.content_hash``); the heading path
may differ, and the better-ranked copy is the one kept (ties: the lower row, the canonical
order). A hit without its chunk is never left out.

``distinct_search`` is the one procedure every path runs (one question, a batch, the
PostgreSQL store): the first ``k`` distinct hits of the ranking the search gives for ``m``
rows, ``m`` starting at ``k`` and doubled while copies leave fewer than ``k`` and the last
search returned all ``m`` it was asked for. So a batch equals its questions searched one by
one, and nothing is searched twice when no passage repeats.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from docqa._checks import whole
from docqa.types import Hit, Retriever

Search = Callable[[int], list[Hit]]
"""The ranking for one question, cut at the given number of rows."""


def distinct(hits: Sequence[Hit]) -> list[Hit]:
    """``hits`` in order, each passage's first copy only (see the module docstring)."""
    seen: set[str] = set()
    out = []
    for hit in hits:
        key = hit.chunk.content_hash if hit.chunk is not None else None
        if key is not None:
            if key in seen:
                continue
            seen.add(key)
        out.append(hit)
    return out


def distinct_search(search: Search, k: int, first: list[Hit] | None = None) -> list[Hit]:
    """The first ``k`` distinct hits of ``search``'s ranking; ``first``: its answer for ``k``
    rows, when the caller has it (a batch)."""
    m = whole(k, "k")
    hits = search(m) if first is None else first
    while True:
        out = distinct(hits)
        if len(out) >= k or len(hits) < m:
            return out[:k]
        m *= 2
        hits = search(m)


class DistinctRetriever:
    """``inner``'s hits with each passage once (:func:`distinct_search`)."""

    def __init__(self, inner: Retriever) -> None:
        self.inner = inner
        self.components = getattr(inner, "components", ())

    def search(self, question: str, k: int, *, mask: np.ndarray | None = None) -> list[Hit]:
        """The ``k`` best hits of distinct passages, best first."""
        return distinct_search(lambda m: self.inner.search(question, m, mask=mask), k)
