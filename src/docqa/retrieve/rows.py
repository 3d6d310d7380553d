"""What a collection's rows are searched through: the ``RowSearcher`` protocol and one index's.

Every retriever and batch search reads rows through these: dense top k by inner product and
BM25 top k, both in the canonical order (score descending, row ascending), padded with
``-inf`` / ``-1``. One index directory is an ``IndexSearcher`` (its float32 or int8 vectors and
its BM25 index); a set of shards a ``docqa.shards.search.ShardSet``; Ray actors owning shards a
``docqa.distributed.search.RayShardSearcher``. All give the same rows for the same collection.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from docqa.keyword import BM25Index
from docqa.search import topk
from docqa.types import TopK

if TYPE_CHECKING:
    from docqa.search.compact import CompactMatrix


@runtime_checkable
class DenseRows(Protocol):
    """Rows ``0..n_rows-1`` searched by inner product."""

    @property
    def n_rows(self) -> int: ...

    def dense(self, queries: np.ndarray, k: int, mask: np.ndarray | None) -> TopK:
        """Top ``k`` rows by inner product for ``queries (n, d) float32``."""
        ...


class KeywordRows(Protocol):
    """Rows ``0..n_rows-1`` searched by BM25."""

    @property
    def n_rows(self) -> int: ...

    def keyword(self, questions: Sequence[str], k: int, mask: np.ndarray | None) -> TopK:
        """Top ``k`` rows by BM25 for ``questions``."""
        ...


class RowSearcher(DenseRows, KeywordRows, Protocol):
    """Batch search over rows ``0..n_rows-1``, dense and keyword."""


@dataclass
class MatrixRows:
    """``DenseRows`` over one matrix: float32 ``(N, d)`` or a ``CompactMatrix`` (its int8
    codes, the same rows), each call with ``n_threads``."""

    matrix: np.ndarray | CompactMatrix
    n_threads: int | None = None

    @property
    def n_rows(self) -> int:
        return len(self.matrix)

    def dense(self, queries: np.ndarray, k: int, mask: np.ndarray | None) -> TopK:
        return topk(self.matrix, queries, k, mask=mask, n_threads=self.n_threads)


@dataclass
class BM25Rows:
    """``KeywordRows`` over one BM25 index, each call with ``n_threads``."""

    bm25: BM25Index
    n_threads: int | None = None

    @property
    def n_rows(self) -> int:
        return self.bm25.n_docs

    def keyword(self, questions: Sequence[str], k: int, mask: np.ndarray | None) -> TopK:
        return self.bm25.search(questions, k, mask=mask, n_threads=self.n_threads)


class IndexSearcher:
    """A ``RowSearcher`` over one index: its vectors (float32 ``(N, d)`` or a
    ``CompactMatrix``) and its BM25 index."""

    def __init__(
        self,
        vectors: np.ndarray | CompactMatrix,
        bm25: BM25Index,
        n_threads: int | None = None,
    ) -> None:
        self.dense_rows = MatrixRows(vectors, n_threads)
        self.keyword_rows = BM25Rows(bm25, n_threads)

    @property
    def n_rows(self) -> int:
        return self.dense_rows.n_rows

    def dense(self, queries: np.ndarray, k: int, mask: np.ndarray | None) -> TopK:
        return self.dense_rows.dense(queries, k, mask)

    def keyword(self, questions: Sequence[str], k: int, mask: np.ndarray | None) -> TopK:
        return self.keyword_rows.keyword(questions, k, mask)
