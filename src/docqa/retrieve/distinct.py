"""Hits whose passages say different things: a passage whose text a better hit already holds
word for word is left out, and the next one comes up in its place.

Manuals repeat themselves: FFmpeg's Debian pages hold every chapter twice (``ffmpeg-all.html``
beside ``ffmpeg-filters.html``, and again in ``ffplay-all.html`` and ``ffprobe-all.html``),
git's, borg's and PostgreSQL's hold hundreds of passages written out twice. Without this, one
passage filled four of five places and the answer read the same text three times. Two hits
are the same passage when their chunks' texts are (``Chunk.content_hash``); the heading path
may differ, and the better-ranked copy is the one kept (ties: the lower row, the canonical
order). A hit without its chunk is never left out.

One procedure serves every path (one question, the PostgreSQL store, a batch): the first ``k``
distinct hits of the ranking the search gives for ``m`` rows, ``m`` starting at
:data:`FETCH` times ``k`` and doubled while copies leave fewer than ``k`` and the last search
returned all ``m`` it was asked for (``distinct_search``; ``distinct_batch`` runs it for many
questions in rounds). So a batch equals its questions searched one by one, and a question is
searched twice only when its best rows hold more copies than :data:`FETCH` allows for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from docqa._checks import whole
from docqa.types import Hit, Retriever

FETCH = 4
"""Rows asked for per hit wanted, at first: a passage written four times (FFmpeg's) still
leaves ``k`` distinct ones in one search. Asking for more costs little: hybrid search reads
each side's best 50 rows whatever ``k`` is, and the question is embedded once a search."""

Search = Callable[[int], list[Hit]]
"""The ranking for one question, cut at the given number of rows."""
SearchMany = Callable[[list[str], int], list[list[Hit]]]
"""The rankings of some questions, each cut at the given number of rows."""


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


def _settled(hits: list[Hit], m: int, k: int) -> list[Hit] | None:
    """The first ``k`` distinct hits of a ranking cut at ``m`` rows, or None when copies left
    fewer and the ranking may go on (all ``m`` rows came back): ask again for ``2 m``."""
    out = distinct(hits)
    return out[:k] if len(out) >= k or len(hits) < m else None


def distinct_search(search: Search, k: int) -> list[Hit]:
    """The first ``k`` distinct hits of ``search``'s ranking."""
    m = FETCH * whole(k, "k")
    while (found := _settled(search(m), m, k)) is None:
        m *= 2
    return found


def distinct_batch(search: SearchMany, questions: list[str], k: int) -> list[list[Hit]]:
    """:func:`distinct_search` for every question, in rounds: all of them for ``FETCH * k``
    rows, then those whose copies left too few together for twice as many, and so on (each
    question asks for the rows it would ask for alone, so the hits are the same)."""
    m = FETCH * whole(k, "k")
    out: list[list[Hit] | None] = [None] * len(questions)
    waiting = list(range(len(questions)))
    while True:
        ranked = search([questions[i] for i in waiting], m)
        for i, hits in zip(waiting, ranked, strict=True):
            out[i] = _settled(hits, m, k)
        waiting = [i for i in waiting if out[i] is None]
        if not waiting:
            return [hits for hits in out if hits is not None]
        m *= 2


class DistinctRetriever:
    """``inner``'s hits with each passage once (:func:`distinct_search`)."""

    def __init__(self, inner: Retriever) -> None:
        self.inner = inner
        self.components = getattr(inner, "components", ())

    def search(self, question: str, k: int, *, mask: np.ndarray | None = None) -> list[Hit]:
        """The ``k`` best hits of distinct passages, best first."""
        return distinct_search(lambda m: self.inner.search(question, m, mask=mask), k)
