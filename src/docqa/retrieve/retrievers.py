"""Retrievers: dense (embedder + exact top-k), keyword (BM25) and hybrid (fusion of both).

All share ``docqa.types.Retriever``: ``search(question, k, *, mask=None) -> list[Hit]``, best
first, at most ``k`` hits, only real rows (no padding). Each hit carries the row, chunk id,
section id, score and, under ``components``, each retriever's ``Component(score, rank)`` with
``rank`` 1-based: ``"dense"`` (cosine when the embedder's vectors are unit length),
``"keyword"`` (raw BM25 score).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from docqa._checks import positive, question, whole
from docqa.embed.protocol import Embedder
from docqa.errors import DimensionMismatch, IndexCorrupt, InputError
from docqa.keyword import BM25Index
from docqa.retrieve.fusion import (
    DEFAULT_RRF_K,
    Fused,
    bounded_fusion,
    convex_fusion,
    dense_weight_for,
    reciprocal_rank_fusion,
)
from docqa.retrieve.rows import BM25Rows, DenseRows, KeywordRows, MatrixRows
from docqa.types import Chunk, Component, Hit, Retriever, TopK

if TYPE_CHECKING:
    from docqa.search.compact import CompactMatrix

DENSE = "dense"
KEYWORD = "keyword"


def check_request(text: str, k: int) -> None:
    """Raise ``InputError`` unless ``text`` is a question (``docqa._checks.question``) and
    ``k`` an int >= 0."""
    question(text)
    whole(k, "k")


def _check_chunks(chunks: Sequence[Chunk], n_rows: int, what: str) -> None:
    """Raise ``DimensionMismatch`` unless there is one chunk per row."""
    if len(chunks) != n_rows:
        raise DimensionMismatch(
            f"{what} has {n_rows} rows but {len(chunks)} chunks were given; "
            "pass the chunks the index was built from, in row order"
        )


def check_scores(scores: np.ndarray, ids: np.ndarray, name: str, source: str | None) -> None:
    """Raise unless every real row's score (id >= 0) of one result row is finite.

    Only the k returned scores are looked at: the kernels rank a NaN or ``+inf`` score first
    (``docqa.search.topk``), so a damaged row always shows here, at no cost to the scan.
    ``source`` names the index the scores came from (``IndexCorrupt``: verify and rebuild);
    without one the matrix was the caller's (``InputError``)."""
    bad = np.flatnonzero(~np.isfinite(scores) & (ids >= 0))
    if not bad.size:
        return
    row, score = int(ids[bad[0]]), float(scores[bad[0]])
    if source is None:
        raise InputError(
            f"row {row} has a {name} score of {score}: the matrix holds NaN or inf (or values "
            "whose products overflow); give finite rows"
        )
    raise IndexCorrupt(
        f"the index at {source} gives row {row} a {name} score of {score}: its files are "
        f"damaged; check it with `docqa verify --index {source}` and rebuild it with "
        f"`docqa index FOLDER --index {source}`"
    )


def hits_of(
    result: TopK, chunks: Sequence[Chunk], name: str, source: str | None = None, *, i: int = 0
) -> list[Hit]:
    """Result row ``i`` of ``result`` as hits (padding dropped), tagged with ``name``; a score
    that is not finite stops the search (:func:`check_scores`)."""
    check_scores(result.scores[i], result.ids[i], name, source)
    hits = []
    for rank, (score, row) in enumerate(
        zip(result.scores[i].tolist(), result.ids[i].tolist(), strict=True), start=1
    ):
        if row < 0:
            break
        chunk = chunks[row]
        components = {name: Component(score, rank)}
        hits.append(Hit(row, chunk.id, chunk.section, score, components, chunk=chunk))
    return hits


class DenseRetriever:
    """Embed the question, then exact top-k by inner product over ``rows``: a matrix (N, d)
    float32, a :class:`docqa.search.CompactMatrix` (searched through its int8 codes: same
    hits), or any :class:`~docqa.retrieve.rows.DenseRows` (a set of shards, Ray actors).
    ``n_threads``: per kernel call over a matrix. ``source``: the index the rows were read
    from, named when their scores are not finite."""

    components = (DENSE,)

    def __init__(
        self,
        embedder: Embedder,
        rows: np.ndarray | CompactMatrix | DenseRows,
        chunks: Sequence[Chunk],
        *,
        n_threads: int | None = None,
        source: str | None = None,
    ) -> None:
        self.rows = rows if isinstance(rows, DenseRows) else MatrixRows(rows, n_threads)
        _check_chunks(chunks, self.rows.n_rows, "the vector matrix")
        self.embedder = embedder
        self.chunks = chunks
        self.source = source

    def search(self, question: str, k: int, *, mask: np.ndarray | None = None) -> list[Hit]:
        """The ``k`` rows nearest to the question's embedding, best first."""
        check_request(question, k)
        query = self.embedder.embed([question], query=True)
        return hits_of(self.rows.dense(query, k, mask), self.chunks, DENSE, self.source)


class KeywordRetriever:
    """BM25 search over ``bm25``'s rows, or over ``rows`` (a set of shards, Ray actors) with
    ``bm25`` the collection's term statistics (its bound, ``max_keyword_score``);
    ``chunks[row]`` names each hit; ``n_threads`` and ``source`` as for
    :class:`DenseRetriever`."""

    components = (KEYWORD,)

    def __init__(
        self,
        bm25: BM25Index,
        chunks: Sequence[Chunk],
        *,
        rows: KeywordRows | None = None,
        n_threads: int | None = None,
        source: str | None = None,
    ) -> None:
        self.rows = BM25Rows(bm25, n_threads) if rows is None else rows
        _check_chunks(chunks, self.rows.n_rows, "the BM25 index")
        self.bm25 = bm25
        self.chunks = chunks
        self.source = source

    def search(self, question: str, k: int, *, mask: np.ndarray | None = None) -> list[Hit]:
        """Rows containing a question term, best BM25 score first (none for no terms)."""
        check_request(question, k)
        result = self.rows.keyword([question], k, mask)
        return hits_of(result, self.chunks, KEYWORD, self.source)

    def max_keyword_score(self, question: str) -> float:
        """Upper bound of any row's BM25 score for ``question`` (see ``BM25Index.max_scores``)."""
        return float(self.bm25.max_scores([question])[0])


FUSIONS = ("bounded", "convex", "rrf")
FUSION_DEPTH = 50


class HybridRetriever:
    """Fusion of a dense and a keyword retriever.

    ``fusion="bounded"`` (the default): each side is asked for ``max(k, depth)`` hits (50) and
    they are fused by ``bounded_fusion``: ``w * cosine + (1 - w) * BM25 / max_keyword_score``,
    with ``w`` from ``weights`` if given, else ``dense_weight_for`` the dense retriever's
    embedder (lower for a lexical embedder). The keyword retriever must have
    ``max_keyword_score`` (``KeywordRetriever`` does). ``fusion="convex"``: the same depth,
    fused by ``convex_fusion`` of min-max normalised scores (equal weights unless ``weights``
    says otherwise). ``fusion="rrf"``: each side is asked for ``over_fetch * k`` hits and
    fused by reciprocal rank (``weights`` None: plain RRF). A fused hit's ``score`` is its
    fused score; its ``components`` hold each retriever's score and rank where it found the row.

    Why bounded by default: it is the rule that stays at or above the better side on the most
    collections and with both embedders; see docs/notes/2026-12-semantic.md for the figures.
    """

    components = (DENSE, KEYWORD)

    def __init__(
        self,
        dense: Retriever,
        keyword: Retriever,
        *,
        fusion: str = "bounded",
        over_fetch: int = 4,
        depth: int = FUSION_DEPTH,
        rrf_k: float = DEFAULT_RRF_K,
        weights: Mapping[str, float] | None = None,
    ) -> None:
        positive(over_fetch, "over_fetch")
        positive(depth, "depth")
        if fusion not in FUSIONS:
            raise InputError(f"unknown fusion {fusion!r}; choose one of {', '.join(FUSIONS)}")
        if fusion == "bounded" and not hasattr(keyword, "max_keyword_score"):
            raise InputError(
                "bounded fusion needs a keyword retriever with max_keyword_score "
                "(a KeywordRetriever); pass fusion='convex' or 'rrf' for another one"
            )
        self.dense = dense
        self.keyword = keyword
        self.fusion = fusion
        self.over_fetch = over_fetch
        self.depth = depth
        self.rrf_k = rrf_k
        self.weights = weights

    def dense_weight(self) -> float:
        """``w`` of bounded fusion: from ``weights`` if given, else from the embedder."""
        if self.weights is None:
            return dense_weight_for(getattr(self.dense, "embedder", None))
        wd, wk = self.weights.get(DENSE), self.weights.get(KEYWORD)
        if wd is None or wk is None or not (wd >= 0 and wk >= 0 and wd + wk > 0):
            raise InputError(f"weights must give {DENSE!r} and {KEYWORD!r}, >= 0, not both 0")
        return float(wd) / float(wd + wk)

    def _fuse(self, question: str, fetched: Mapping[str, list[Hit]], k: int) -> list[Fused]:
        scored = {n: [(h.row, h.score) for h in hits] for n, hits in fetched.items()}
        if self.fusion == "bounded":
            return bounded_fusion(
                scored[DENSE],
                scored[KEYWORD],
                keyword_bound=self.max_keyword_score(question),
                dense_weight=self.dense_weight(),
                limit=k,
                names=(DENSE, KEYWORD),
            )
        if self.fusion == "convex":
            return convex_fusion(scored, weights=self.weights, limit=k)
        return reciprocal_rank_fusion(
            {name: [h.row for h in hits] for name, hits in fetched.items()},
            rrf_k=self.rrf_k,
            weights=self.weights,
            limit=k,
        )

    def search(self, question: str, k: int, *, mask: np.ndarray | None = None) -> list[Hit]:
        """The ``k`` best rows by fused score, best first."""
        check_request(question, k)
        fetch = k * self.over_fetch if self.fusion == "rrf" else max(k, self.depth)
        fetched = {
            DENSE: self.dense.search(question, fetch, mask=mask),
            KEYWORD: self.keyword.search(question, fetch, mask=mask),
        }
        by_row = {name: {h.row: h for h in hits} for name, hits in fetched.items()}
        fused = self._fuse(question, fetched, k)
        out = []
        for f in fused:
            found = {name: by_row[name][f.row] for name in f.ranks}
            first = next(iter(found.values()))
            components = {n: Component(h.score, f.ranks[n]) for n, h in found.items()}
            out.append(Hit(f.row, first.id, first.section, f.score, components, chunk=first.chunk))
        return out

    def max_keyword_score(self, question: str) -> float:
        """The keyword retriever's bound for ``question`` (raises if it has none)."""
        bound = getattr(self.keyword, "max_keyword_score", None)
        if bound is None:
            raise InputError("the keyword retriever has no max_keyword_score; use KeywordRetriever")
        return float(bound(question))
