"""Hits whose passages say different things: a passage whose text a better hit already holds
word for word is left out, and the next one comes up in its place; so is a passage from a
file of another format that repeats most of a better hit's text.

Manuals repeat themselves: FFmpeg's Debian pages hold every chapter twice (``ffmpeg-all.html``
beside ``ffmpeg-filters.html``, and again in ``ffplay-all.html`` and ``ffprobe-all.html``),
git's, borg's and PostgreSQL's hold hundreds of passages written out twice. Without this, one
passage filled four of five places and the answer read the same text three times. Two hits
are the same passage when their chunks' texts are (``Chunk.content_hash``); the heading path
may differ, and the better-ranked copy is the one kept (ties: the lower row, the canonical
order). A hit without its chunk is never left out.

A folder may also hold one manual in two formats under other names: zsh's Debian package ships
``zsh.pdf`` beside its HTML pages and ``FAQ.gz`` beside the FAQ's pages, and the answer read
each passage twice, the PDF's a few words off the page's. A passage is such a copy when its
file's format (``Chunk.metadata["format"]``) is not the better hit's and at least
:data:`COPIED` of its runs of :data:`RUN` words (lower-cased) are in the better hit's text. Of
zsh's 840 PDF passages, 820 have an HTML passage holding half or more of their runs (623 nine
tenths or more), 9 one between a tenth and a half, 11 none. Passages of one format are never
compared so: two of CMake's commands or of Node's functions documented in the same sentences
(``add_library``'s ALIAS section and ``add_executable``'s, ``zlib.gzip`` and
``zlib.gzipSync``) are different answers.

One procedure serves every path (one question, the PostgreSQL store, a batch): the first ``k``
distinct hits of the ranking the search gives for ``m`` rows, ``m`` starting at
:data:`FETCH` times ``k`` and doubled while copies leave fewer than ``k`` and the last search
returned all ``m`` it was asked for (``distinct_search``; ``distinct_batch`` runs it for many
questions in rounds). So a batch equals its questions searched one by one, and a question is
searched twice only when its best rows hold more copies than :data:`FETCH` allows for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from docqa._checks import whole
from docqa.types import Chunk, Hit, Retriever

FETCH = 4
"""Rows asked for per hit wanted, at first: a passage written four times (FFmpeg's) still
leaves ``k`` distinct ones in one search. Asking for more costs little: hybrid search reads
each side's best 50 rows whatever ``k`` is, and the question is embedded once a search."""

Search = Callable[[int], list[Hit]]
"""The ranking for one question, cut at the given number of rows."""
SearchMany = Callable[[list[str], int], list[list[Hit]]]
"""The rankings of some questions, each cut at the given number of rows."""


RUN = 8
"""Words in a run, the unit two passages of different formats are compared by."""
COPIED = 0.5
"""The share of a passage's runs a better hit of another format holds that makes it a copy."""
_WORD = re.compile(r"\w+")


def distinct(hits: Sequence[Hit]) -> list[Hit]:
    """``hits`` in order, each passage's first copy only (see the module docstring)."""
    seen: set[str] = set()
    kept: list[Chunk] = []
    runs: dict[str, set[tuple[str, ...]]] = {}  # by content hash, each made once a call
    out = []
    for hit in hits:
        chunk = hit.chunk
        if chunk is not None:
            if chunk.content_hash in seen or _copied(chunk, kept, runs):
                continue
            seen.add(chunk.content_hash)
            kept.append(chunk)
        out.append(hit)
    return out


def _copied(chunk: Chunk, kept: list[Chunk], runs: dict[str, set[tuple[str, ...]]]) -> bool:
    """Whether a kept chunk of another format holds :data:`COPIED` of ``chunk``'s runs (a
    chunk whose format is not recorded is compared with none); ``runs`` caches each chunk's
    runs by its content hash."""
    fmt = chunk.metadata.get("format")
    others = [k for k in kept if k.metadata.get("format") not in (fmt, None)]
    if fmt is None or not others:
        return False
    mine = _runs_of(chunk, runs)
    return any(len(mine & _runs_of(k, runs)) >= COPIED * len(mine) for k in others)


def _runs_of(chunk: Chunk, runs: dict[str, set[tuple[str, ...]]]) -> set[tuple[str, ...]]:
    found = runs.get(chunk.content_hash)
    if found is None:
        found = runs[chunk.content_hash] = _runs(chunk.text)
    return found


def _runs(text: str) -> set[tuple[str, ...]]:
    """The runs of :data:`RUN` lower-cased words of ``text`` (all of it when shorter)."""
    words = _WORD.findall(text.lower())
    return {tuple(words[i : i + RUN]) for i in range(max(1, len(words) - RUN + 1))}


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
