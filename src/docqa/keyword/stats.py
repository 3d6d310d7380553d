"""Collection-wide BM25 statistics, so that each shard of an index scores as the whole would.

BM25's idf needs the number of rows ``N`` and each term's document frequency ``df``; its length
normalisation needs the average row length. Over a sharded index these are sums over the
shards: ``CorpusStats`` holds them (terms as the same 64-bit hashes as ``BM25Index.vocab``,
ascending) and ``BM25Index(..., stats=...)`` scores one shard's postings with them. Given the
same statistics, a row's score is bit-identical whichever shard holds it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from docqa import _tokenize
from docqa.errors import IndexCorrupt

if TYPE_CHECKING:
    from docqa.keyword.bm25 import BM25Index

STATS_ARRAYS = {"bm25_global_vocab": np.uint64, "bm25_global_df": np.int64}


def live_df(indptr: np.ndarray, rows: np.ndarray, live: np.ndarray) -> np.ndarray:
    """Each term's document frequency over the rows with ``live`` true (``indptr (V + 1,)``
    int64 and ``rows (nnz,)`` int32: an index's postings; ``live (N,)`` bool). One native pass
    over the postings (4 of the 14 ms the gather of ``live_df_reference`` takes over 3.8M
    postings); ``IndexCorrupt`` when a posting names a row the mask does not hold."""
    if live.all():
        return np.diff(indptr).astype(np.int64)
    out = np.empty(max(indptr.size - 1, 0), dtype=np.int64)
    bad = _tokenize.live_df(
        np.ascontiguousarray(indptr, dtype=np.int64),
        np.ascontiguousarray(rows, dtype=np.int32),
        np.ascontiguousarray(live, dtype=np.bool_).view(np.uint8),
        out,
    )
    if bad >= 0:
        raise IndexCorrupt(
            f"BM25 posting {bad} names a row the index does not hold; "
            "rebuild the index with `docqa index FOLDER --index DIR --rewrite`"
        )
    return out


def live_df_reference(indptr: np.ndarray, rows: np.ndarray, live: np.ndarray) -> np.ndarray:
    """The slow twin of ``live_df``: every posting's row looked up in ``live`` at once, the
    dead ones taken off their terms' counts."""
    df = np.diff(indptr).astype(np.int64)
    gone = np.flatnonzero(~live[rows])
    if gone.size:
        terms = np.searchsorted(indptr, gone, side="right") - 1
        df -= np.bincount(terms, minlength=df.size)
    return df


def merge_counts(
    vocab_a: np.ndarray, df_a: np.ndarray, vocab_b: np.ndarray, df_b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The union of two ascending term arrays (each without repeats) with their counts added:
    a merge by binary search of the smaller into the larger (1 of the 3 ms ``np.unique`` of
    both takes at 100k terms). Equal to ``merge_counts_reference``."""
    if vocab_b.size > vocab_a.size:
        vocab_a, df_a, vocab_b, df_b = vocab_b, df_b, vocab_a, df_a
    vocab_a = np.asarray(vocab_a, dtype=np.uint64)
    vocab_b = np.asarray(vocab_b, dtype=np.uint64)
    df_a = np.asarray(df_a, dtype=np.int64)
    df_b = np.asarray(df_b, dtype=np.int64)
    pos = np.searchsorted(vocab_a, vocab_b)
    both = pos < vocab_a.size
    both[both] = vocab_a[pos[both]] == vocab_b[both]
    summed = df_a.copy()
    summed[pos[both]] += df_b[both]  # positions are distinct: the terms are
    new = ~both
    return np.insert(vocab_a, pos[new], vocab_b[new]), np.insert(summed, pos[new], df_b[new])


def merge_counts_reference(
    vocab_a: np.ndarray, df_a: np.ndarray, vocab_b: np.ndarray, df_b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The slow twin of ``merge_counts``: ``np.unique`` of both, the counts added per term."""
    terms, inverse = np.unique(np.concatenate([vocab_a, vocab_b]), return_inverse=True)
    summed = np.zeros(terms.size, dtype=np.int64)
    np.add.at(summed, inverse.ravel(), np.concatenate([df_a, df_b]).astype(np.int64))
    return terms.astype(np.uint64), summed


@dataclass(frozen=True, eq=False)
class LiveCounts:
    """One part's contribution to the statistics of its live rows: its ``vocab`` (ascending),
    each term's ``df`` over the live rows, the live ``rows`` and their ``tokens``."""

    vocab: np.ndarray
    df: np.ndarray
    rows: int
    tokens: int


def live_counts(arrays: Mapping[str, np.ndarray], live: np.ndarray) -> LiveCounts:
    """``LiveCounts`` of the BM25 ``arrays`` of some rows and the bool mask of the live ones."""
    return LiveCounts(
        arrays["bm25_vocab"],
        live_df(arrays["bm25_indptr"], arrays["bm25_rows"], live),
        int(np.count_nonzero(live)),
        int(arrays["bm25_lengths"][live].sum(dtype=np.int64)),
    )


@dataclass(frozen=True, eq=False)
class CorpusStats:
    """``n_docs`` rows holding ``total_length`` tokens; ``vocab (V,) uint64`` ascending term
    hashes with ``df (V,) int64`` rows containing each."""

    n_docs: int
    total_length: int
    vocab: np.ndarray
    df: np.ndarray

    @classmethod
    def of(cls, parts: Sequence[BM25Index]) -> CorpusStats:
        """The statistics of the rows of all ``parts`` together (empty parts allowed)."""
        vocab = np.concatenate([p.vocab for p in parts] or [np.zeros(0, np.uint64)])
        df = np.concatenate([np.diff(p.indptr) for p in parts] or [np.zeros(0, np.int64)])
        terms, inverse = np.unique(vocab, return_inverse=True)
        summed = np.zeros(terms.size, dtype=np.int64)
        np.add.at(summed, inverse.ravel(), df.astype(np.int64))
        n = sum(p.n_docs for p in parts)
        total = sum(int(p.lengths.sum(dtype=np.int64)) for p in parts)
        return cls(n, total, terms.astype(np.uint64), summed)

    @classmethod
    def of_live(cls, parts: Sequence[tuple[Mapping[str, np.ndarray], np.ndarray]]) -> CorpusStats:
        """The statistics of the live rows of ``parts``: each the BM25 arrays of some rows
        (``docqa.keyword.ARRAYS``) and a bool mask of those rows still in the collection.
        Terms left in no live row are dropped, so the result is what ``of`` gives for an
        index of the live rows alone."""
        return cls.of_counts([live_counts(arrays, live) for arrays, live in parts])

    @classmethod
    def of_counts(cls, parts: Sequence[LiveCounts]) -> CorpusStats:
        """``of_live`` of parts whose ``live_counts`` are given (worked out apart, e.g. the
        base's beside the parse of a delta)."""
        vocab, df = np.zeros(0, np.uint64), np.zeros(0, np.int64)
        for part in parts:
            vocab, df = merge_counts(vocab, df, part.vocab, part.df)
        kept = df > 0
        n, total = sum(p.rows for p in parts), sum(p.tokens for p in parts)
        return cls(n, total, vocab[kept], df[kept])

    @property
    def avgdl(self) -> float:
        """Mean tokens per row, 1.0 for a collection without tokens (as ``BM25Index``)."""
        return self.total_length / self.n_docs if self.total_length > 0 else 1.0

    def df_for(self, vocab: np.ndarray, *, absent_ok: bool = False) -> np.ndarray:
        """Global ``df (V,) int64`` of each term in ``vocab``; ``IndexCorrupt`` if one is absent,
        unless ``absent_ok`` (a part whose deleted rows hold terms no live row does: those
        terms get df 0, and only deleted rows, never searched, hold them)."""
        pos = np.searchsorted(self.vocab, vocab)
        ok = pos < self.vocab.size
        ok[ok] = self.vocab[pos[ok]] == vocab[ok]
        if absent_ok:
            some = np.zeros(vocab.size, dtype=np.int64)
            some[ok] = self.df[pos[ok]]
            return some
        if not ok.all():
            raise IndexCorrupt(
                "a shard holds terms missing from the collection's BM25 statistics; "
                "rebuild the index with `docqa index FOLDER --index DIR`"
            )
        out: np.ndarray = self.df[pos].astype(np.int64)
        return out

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The term arrays by name (see ``STATS_ARRAYS``); counts go in the manifest."""
        return {"bm25_global_vocab": self.vocab, "bm25_global_df": self.df}

    @classmethod
    def from_arrays(
        cls, n_docs: int, total_length: int, arrays: Mapping[str, np.ndarray]
    ) -> CorpusStats:
        """Inverse of ``to_arrays``; ``IndexCorrupt`` names a malformed array."""
        for name, dtype in STATS_ARRAYS.items():
            a = arrays.get(name)
            if a is None or a.dtype != dtype or a.ndim != 1:
                raise IndexCorrupt(f"BM25 statistics array {name!r} is missing or malformed")
        vocab, df = arrays["bm25_global_vocab"], arrays["bm25_global_df"]
        if vocab.size != df.size or n_docs < 0 or total_length < 0:
            raise IndexCorrupt("BM25 statistics have inconsistent sizes; rebuild the index")
        return cls(int(n_docs), int(total_length), vocab, df)
