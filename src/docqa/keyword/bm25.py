"""Okapi BM25 over CSR postings: built streaming from texts, searched in batches by Numba.

The formula and every convention (Lucene idf, distinct query terms, float32 scores, canonical
order, which rows are hits) are those of :mod:`docqa.keyword.reference`, the tested spec.

Terms are 64-bit token hashes (``docqa.text.hash_tokens``; building interns them into dense
ids while scanning, ``docqa.text.TermCounter``), never strings, so building makes no Python
object per token. Two distinct terms collide with probability about
``V**2 / 2**65`` for a vocabulary of ``V`` terms: 3e-8 for a million terms, 3e-6 for ten
million. A collision merges the two terms' postings; nothing else breaks.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from queue import Empty, SimpleQueue
from typing import TYPE_CHECKING, Any

import numpy as np

from docqa._checks import numba_threads, positive, questions, thread_limit, whole
from docqa.errors import IndexCorrupt, InputError
from docqa.keyword.config import ARRAYS, BM25Config
from docqa.keyword.counting import count_postings, term_batches
from docqa.keyword.stats import CorpusStats
from docqa.search import oneoff
from docqa.search.masks import mask_bools
from docqa.text import TermCounter, hash_tokens
from docqa.text.tokenize import StopWords, TokenHashes, TokenSettings
from docqa.types import TopK

if TYPE_CHECKING:
    from docqa.keyword import kernels

DENSE_SHARE = 16
"""A query whose postings number at least 1/DENSE_SHARE of the rows is scored densely (add
every posting, then one pass over all rows, ``docqa.keyword.dense``); sparser queries track the
rows they touch and prune (``kernels._one_query``). Results never depend on it."""

COLUMN_SHARE = 2
"""A term in at least 1/COLUMN_SHARE of the rows also gets a dense column of its weights (8
bytes a row: at most twice its postings' weights), which the dense path adds as one vector
add instead of a scatter."""


class BM25Index:
    """An immutable BM25 index over rows ``0..N-1`` (arrays may be read-only memory maps)."""

    def __init__(
        self,
        config: BM25Config,
        arrays: Mapping[str, np.ndarray],
        *,
        stats: CorpusStats | None = None,
        absent_ok: bool = False,
    ) -> None:
        """Use ``from_texts`` or ``from_arrays``; ``arrays`` as described in ``ARRAYS``.

        ``stats`` (a shard of a larger collection): score with the collection's N, df and
        average length instead of these rows' own, so scores equal the whole collection's.
        ``absent_ok``: these rows may hold terms ``stats`` lacks (rows deleted from the
        collection and never searched, see ``CorpusStats.df_for``).
        """
        self.config = config
        self._scratch_pool: SimpleQueue[kernels.Scratch] = SimpleQueue()  # for _search_one
        self.vocab, self.indptr, self.rows, self.tf, self.lengths = (
            arrays[name] for name in ARRAYS
        )
        df = np.diff(self.indptr)
        if stats is None:
            n, total, df_all = self.lengths.size, int(self.lengths.sum(dtype=np.int64)), df
        else:
            n, total = stats.n_docs, stats.total_length
            df_all = stats.df_for(self.vocab, absent_ok=absent_ok)
        self.corpus_docs = n  # N of the idf: this index's rows, or the whole collection's
        self.corpus_df = np.asarray(df_all, dtype=np.int64)  # each term's df, likewise
        self.avgdl = total / n if total > 0 else 1.0
        self.idf = np.log(1.0 + (n - df_all + 0.5) / (df_all + 0.5))
        self.weights = self._weights(df)
        self.max_weights = np.zeros(df.size, dtype=np.float64)  # each term's largest weight
        if self.weights.size:
            starts = self.indptr[:-1][df > 0]
            self.max_weights[df > 0] = np.maximum.reduceat(self.weights, starts)

    def _weights(self, df: np.ndarray) -> np.ndarray:
        """Each posting's term score, float64 (nnz,), by the reference formula."""
        k1, b = self.config.k1, self.config.b
        norm = k1 * (1.0 - b + b * self.lengths / self.avgdl)
        idf = np.repeat(self.idf, df)
        tf = self.tf.astype(np.float64)
        weights: np.ndarray = idf * (tf * (k1 + 1.0)) / (tf + norm[self.rows])
        return weights

    @property
    def column_of(self) -> np.ndarray:
        """Each term's row in :attr:`columns`, or -1 (int64, (V,))."""
        return self._dense_columns[0]

    @property
    def columns(self) -> np.ndarray:
        """The dense weight columns of the terms in half the rows or more (float64, (C, N))."""
        return self._dense_columns[1]

    @cached_property
    def _dense_columns(self) -> tuple[np.ndarray, np.ndarray]:
        """``(column_of int64 (V,), columns float64 (C, N))``: the dense weights of the terms in
        at least 1/COLUMN_SHARE of the rows, ``column_of[t]`` their row there (else -1). Made
        when the kernels first search (a one-off question's twin never needs them)."""
        df = np.diff(self.indptr)
        long = np.flatnonzero((df > 0) & (df * COLUMN_SHARE >= self.n_docs))
        column_of = np.full(df.size, -1, dtype=np.int64)
        column_of[long] = np.arange(long.size)
        columns = np.zeros((long.size, self.n_docs), dtype=np.float64)
        for column, t in zip(columns, long, strict=True):
            postings = slice(self.indptr[t], self.indptr[t + 1])
            column[self.rows[postings]] = self.weights[postings]
        return column_of, columns

    @property
    def n_docs(self) -> int:
        """Number of rows N."""
        return int(self.lengths.size)

    @property
    def n_terms(self) -> int:
        """Vocabulary size V."""
        return int(self.vocab.size)

    @classmethod
    def from_texts(
        cls,
        texts: Iterable[str],
        *,
        k1: float = 1.5,
        b: float = 0.75,
        stop_words: StopWords = True,
        fold_plurals: bool = True,
        batch_size: int = 2048,
        n_threads: int = 1,
    ) -> BM25Index:
        """Index ``texts`` (row i = i-th text), tokenizing ``batch_size`` texts at a time.

        Memory stays bounded by the postings plus one batch (two with ``n_threads >= 2``,
        which tokenizes the next batch in a second thread while the current one is counted;
        the result is identical). Raises ``InputError`` for a bare str, a non-str item, an
        empty collection or a bad ``batch_size`` / ``n_threads``.
        """
        tokens = TokenSettings.make(stop_words, fold_plurals)
        config = BM25Config(k1=k1, b=b, stop_words=tokens.stop_words, fold_plurals=fold_plurals)
        if isinstance(texts, str):
            raise InputError("texts must be an iterable of str, got one str; wrap it in a list")
        positive(batch_size, "batch_size")
        positive(n_threads, "n_threads")
        counter = TermCounter(**config.tokens.as_kwargs())
        batches = term_batches(iter(texts), counter, batch_size, prefetch=n_threads > 1)
        return cls(config, count_postings(batches, counter))

    @classmethod
    def from_arrays(
        cls,
        arrays: Mapping[str, np.ndarray],
        config: BM25Config | Mapping[str, Any],
        *,
        stats: CorpusStats | None = None,
        absent_ok: bool = False,
    ) -> BM25Index:
        """Rebuild from ``to_arrays`` output (e.g. read-only memory maps) and the config;
        ``stats`` and ``absent_ok`` as in ``__init__``.

        Raises ``IndexCorrupt`` naming the array that is missing or malformed.
        """
        if not isinstance(config, BM25Config):
            config = BM25Config.from_dict(config)
        return cls(config, _checked(arrays), stats=stats, absent_ok=absent_ok)

    @classmethod
    def bounds(cls, stats: CorpusStats, config: BM25Config | Mapping[str, Any]) -> BM25Index:
        """A postings-free index over ``stats``' global vocabulary: its ``max_scores`` is the
        bound of the whole collection (what the guard compares a keyword score with)."""
        empty = np.zeros(0, dtype=np.int32)
        arrays = {
            "bm25_vocab": stats.vocab,
            "bm25_indptr": np.zeros(stats.vocab.size + 1, dtype=np.int64),
            "bm25_rows": empty,
            "bm25_tf": empty,
            "bm25_lengths": empty,
        }
        return cls.from_arrays(arrays, config, stats=stats)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The CSR arrays by name (see ``ARRAYS``); the config is ``self.config.to_dict()``."""
        return {
            "bm25_vocab": self.vocab,
            "bm25_indptr": self.indptr,
            "bm25_rows": self.rows,
            "bm25_tf": self.tf,
            "bm25_lengths": self.lengths,
        }

    def query_hashes(self, queries: Sequence[str]) -> TokenHashes:
        """The queries' token hashes by this index's token settings: what ``search`` looks up.
        The parts of one sharded index share the settings, so one tokenization serves all."""
        return hash_tokens(questions(queries), **self.config.tokens.as_kwargs())

    def _query_terms(
        self, queries: Sequence[str], hashed: TokenHashes | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(hashes uint64, term ids int64 with -1 unknown, offsets int64 (n + 1,))``."""
        th = self.query_hashes(queries) if hashed is None else hashed
        pos = np.searchsorted(self.vocab, th.hashes)
        found = pos < self.vocab.size
        found[found] = self.vocab[pos[found]] == th.hashes[found]
        return th.hashes, np.where(found, pos, -1).astype(np.int64), th.offsets

    def search(
        self,
        queries: Sequence[str],
        k: int,
        *,
        mask: np.ndarray | None = None,
        n_threads: int | None = None,
        hashed: TokenHashes | None = None,
    ) -> TopK:
        """Top ``k`` rows per query: ``scores (n, c) float32``, ``ids (n, c) int64`` with
        ``c = min(k, N)`` (k is clamped to the rows before anything is allocated).
        ``hashed``: the queries' ``query_hashes``, when the caller has them (a sharded index
        tokenizes a question once for all its parts).

        Canonical order (score descending, row id ascending); only rows containing a query term
        are hits, the rest of each row is padded with ``-inf`` / ``-1``. ``mask`` restricts the
        search to some rows, keeping their original ids: a bool array of shape (N,) or an array
        of allowed row ids. ``n_threads`` (default: Numba's current setting) is restored after.
        """
        k = min(whole(k, "k"), self.n_docs)
        _, q_terms, q_offsets = self._query_terms(queries, hashed)
        allowed = mask_bools(mask, self.n_docs)
        n = q_offsets.size - 1
        if n == 0 or k == 0:
            return TopK(np.full((n, k), -np.inf, np.float32), np.full((n, k), -1, np.int64))
        wanted_threads = numba_threads(n_threads)  # checked even when one question needs none
        if n == 1 and oneoff.use_twin(
            lambda: self.n_docs + self._postings_of(q_terms), oneoff.BM25_TWIN_WORK
        ):
            return oneoff.bm25_one(self.indptr, self.rows, self.weights, self.n_docs, q_terms,
                                   int(k), allowed)  # fmt: skip
        from docqa.keyword import kernels

        postings = kernels.Postings(
            self.indptr, self.rows, self.weights, self.max_weights, *self._dense_columns
        )
        use_mask = allowed is not None
        mask_arg = allowed if allowed is not None else np.ones(1, np.bool_)
        if n == 1:
            return self._search_one(postings, q_terms, int(k), mask_arg, use_mask)
        with thread_limit(wanted_threads) as threads:
            scores, ids = kernels.search_batch(
                postings, self.n_docs, q_terms, q_offsets, int(k), mask_arg, use_mask,
                min(n, 4 * threads), DENSE_SHARE,
            )  # fmt: skip
        return TopK(scores, ids)

    def _search_one(
        self, postings: kernels.Postings, q_terms: np.ndarray, k: int, mask: np.ndarray,
        use_mask: bool,
    ) -> TopK:  # fmt: skip
        """One question on the calling thread (no thread launch), with work arrays reused
        from a pool (one set per concurrent caller): what a service's latency needs."""
        from docqa.keyword import kernels

        scores = np.full((1, k), -np.inf, dtype=np.float32)
        ids = np.full((1, k), -1, dtype=np.int64)
        scratch = _take_scratch(self._scratch_pool, self.n_docs, q_terms.size, k)
        try:
            kernels.search_one(postings, self.n_docs, q_terms, 0, q_terms.size, k, mask,
                               use_mask, DENSE_SHARE, scratch, scores[0], ids[0])  # fmt: skip
        finally:
            self._scratch_pool.put(scratch)
        return TopK(scores, ids)

    def _postings_of(self, q_terms: np.ndarray) -> int:
        """How many postings the known terms ``q_terms`` have (repeats counted each time)."""
        known = q_terms[q_terms >= 0]
        return int((self.indptr[known + 1] - self.indptr[known]).sum())

    def term_order(self, question: str) -> np.ndarray:
        """The distinct known terms of ``question`` as term ids (int64), in the order a row's
        score adds their weights: ``corpus_df`` ascending, ties in order of first appearance
        (``kernels._sorted_terms``; for one unsharded index ``corpus_df`` is the postings
        count that kernel reads). What a store needs to sum the same weights in SQL."""
        _, ids, _ = self._query_terms([question])
        known = ids[ids >= 0]
        _, first = np.unique(known, return_index=True)
        distinct = known[np.sort(first)]
        order: np.ndarray = distinct[np.argsort(self.corpus_df[distinct], kind="stable")]
        return order

    def max_scores(self, queries: Sequence[str]) -> np.ndarray:
        """Upper bound of any row's score for each query, float64 (n,); 0.0 for no terms.

        The sum over the query's distinct terms, unknown ones included (``df = 0``), of
        ``idf * (k1 + 1)``: a row's score divided by it lies in [0, 1] (1 only when k1 = 0).
        """
        hashes, q_terms, offsets = self._query_terms(queries)
        unknown_idf = math.log(1.0 + (self.corpus_docs + 0.5) / 0.5)
        term_idf = np.append(self.idf, unknown_idf)[q_terms]  # id -1 picks the unknown idf
        out = np.zeros(offsets.size - 1, dtype=np.float64)
        for i in range(out.size):
            _, first = np.unique(hashes[offsets[i] : offsets[i + 1]], return_index=True)
            out[i] = term_idf[offsets[i] + first].sum() * (self.config.k1 + 1.0)
        return out


def _checked(arrays: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The arrays by name, checked for presence, dtype, rank and consistent sizes."""
    out = {}
    for name, dtype in ARRAYS.items():
        if name not in arrays:
            raise IndexCorrupt(f"BM25 array {name!r} is missing; rebuild the index")
        a = np.asarray(arrays[name])
        if a.dtype != dtype or a.ndim != 1:
            raise IndexCorrupt(
                f"BM25 array {name!r} is {a.dtype} with shape {a.shape}, expected 1-D "
                f"{np.dtype(dtype)}; rebuild the index"
            )
        out[name] = a
    indptr, n_docs = out["bm25_indptr"], out["bm25_lengths"].size
    nnz = out["bm25_rows"].size
    if (
        indptr.size != out["bm25_vocab"].size + 1
        or indptr[0] != 0
        or indptr[-1] != nnz
        or out["bm25_tf"].size != nnz
        or (nnz and (out["bm25_rows"].min() < 0 or out["bm25_rows"].max() >= n_docs))
    ):
        raise IndexCorrupt("BM25 arrays have inconsistent sizes or row ids; rebuild the index")
    if _out_of_order(out):
        raise IndexCorrupt(
            "BM25 arrays are out of order (postings, vocabulary) or hold negative counts; "
            "rebuild the index"
        )
    return out


def _out_of_order(arrays: Mapping[str, np.ndarray]) -> bool:
    """Whether the CSR breaks an order the kernels rely on (cheap: one pass per array)."""
    vocab, tf, lengths = arrays["bm25_vocab"], arrays["bm25_tf"], arrays["bm25_lengths"]
    return bool(
        (np.diff(arrays["bm25_indptr"]) < 0).any()
        or (vocab.size > 1 and (vocab[1:] <= vocab[:-1]).any())
        or (tf.size and tf.min() < 1)
        or (lengths.size and lengths.min() < 0)
    )


def _take_scratch(
    pool: SimpleQueue[kernels.Scratch], n_docs: int, terms: int, k: int
) -> kernels.Scratch:
    """Work arrays from ``pool`` big enough for ``terms`` query terms and ``k`` hits (a pooled
    set that is too small is dropped and a larger one made)."""
    from docqa.keyword import kernels

    try:
        scratch = pool.get_nowait()
    except Empty:
        scratch = None
    if scratch is None or scratch.terms.size < terms or scratch.heap_s.size < k:
        scratch = kernels.new_scratch(n_docs, max(terms, 64), max(k, 16))
    return scratch
