"""TF-IDF over a fitted vocabulary, sparse inside: no N x V matrix is ever built.

Spec (written out plainly in ``docqa.embed.reference.tfidf_fit`` / ``tfidf_embed``): the
vocabulary is the sorted set of fitted tokens; ``idf = ln((1 + N) / (1 + df)) + 1``; a row is
``count * idf`` per vocabulary word scaled to unit length; unseen words are ignored.

How it is fast: ``fit`` tokenizes the texts once, natively, straight into term ids while
counting document frequencies and keeping each new word's bytes (``docqa.text.TermCounter``:
no Python object per token, one str per distinct word); ``embed`` tokenizes into 64-bit token
hashes (``docqa.text.hash_tokens``) and maps them to columns through a Numba hash table. Rows
come out as CSR (``embed_sparse``); ``embed`` densifies only the batch asked for. Two
different words with the same 64-bit hash would share a column (odds about V**2 / 2**65,
e.g. 1e-10 for a million words).
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from docqa.embed.protocol import check_version, register, token_settings_of
from docqa.errors import IndexCorrupt, InputError, NotFitted
from docqa.text.tokenize import TermCounter, TokenHashes, TokenSettings, hash64, hash_tokens


class SparseRows(NamedTuple):
    """CSR rows: row ``i`` holds ``data[indptr[i]:indptr[i + 1]]`` (float32, unit length) at
    columns ``indices[...]`` (int64, distinct, in the order the words first occur in the
    text, not sorted); ``indptr`` is int64 of length ``n + 1``."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    dim: int

    def dense(self) -> np.ndarray:
        """``(n, dim)`` float32 C-contiguous."""
        out = np.zeros((self.indptr.size - 1, self.dim), dtype=np.float32)
        rows = np.repeat(np.arange(self.indptr.size - 1), np.diff(self.indptr))
        out[rows, self.indices] = self.data
        return out


@register("tfidf")
class TfidfEmbedder:
    """``fit(texts)`` then ``embed(texts) -> (len(texts), dim) float32`` where ``dim`` is the
    vocabulary size. Fitted state round-trips through ``state()`` / ``from_state``."""

    VERSION = 1
    lexical = True  # word counts: fused with BM25 at a lower weight (retrieve.fusion)

    def __init__(
        self, *, stop_words: bool | Iterable[str] = True, fold_plurals: bool = True
    ) -> None:
        self._tokens = TokenSettings.make(stop_words, fold_plurals)
        self._vocabulary: list[str] = []
        self._idf = np.zeros(0, dtype=np.float64)
        self._keys = np.zeros(0, dtype=np.uint64)
        self._table = np.full(2, -1, dtype=np.int64)
        self._fingerprint = ""

    # -- fitting ------------------------------------------------------------------------------

    def fit(self, texts: Sequence[str]) -> TfidfEmbedder:
        """Learn the sorted vocabulary and idf of ``texts``; returns ``self``.

        Raises InputError if ``texts`` hold no kept token at all."""
        self._fit(texts)
        return self

    def fit_embed_sparse(self, texts: Sequence[str]) -> SparseRows:
        """``fit(texts)`` then ``embed_sparse(texts)``, tokenizing ``texts`` once (the way an
        index is built: fit on the chunks, then embed the same chunks)."""
        columns, offsets = self._fit(texts)
        return self._csr(columns, offsets)

    def _hash(self, texts: Sequence[str]) -> TokenHashes:
        """Token hashes of ``texts`` (TypeError naming the index of a non-str item)."""
        return hash_tokens(texts, **self._tokens.as_kwargs())

    def _fit(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Fit on ``texts`` in one native pass (term ids, document frequencies and each
        term's word, see ``TermCounter``); returns every token's vocabulary column and the
        texts' offsets into them."""
        counter = TermCounter(**self._tokens.as_kwargs())
        found = counter.add(texts)
        words = counter.words()
        if not words:
            raise InputError(
                f"cannot fit TF-IDF: the {len(texts)} texts hold no word after "
                "stop-word removal; fit on real text or pass stop_words=False"
            )
        order = np.array(sorted(range(len(words)), key=words.__getitem__), dtype=np.int64)
        column_of = np.empty(order.size, dtype=np.int64)
        column_of[order] = np.arange(order.size)
        self._set(
            [words[t] for t in order.tolist()],
            _idf(counter.df()[order], len(texts)),
            counter.keys()[order],
        )
        return column_of[found.ids], found.offsets

    def _set(self, vocabulary: list[str], idf: np.ndarray, keys: np.ndarray) -> None:
        self._vocabulary = vocabulary
        self._idf = idf
        self._keys = np.ascontiguousarray(keys, dtype=np.uint64)
        self._table = _build_table(self._keys)
        digest = hashlib.sha256("\n".join(vocabulary).encode("utf-8"))
        digest.update(idf.tobytes())
        self._fingerprint = digest.hexdigest()[:8]

    # -- the Embedder protocol ----------------------------------------------------------------

    @property
    def fitted(self) -> bool:
        """True once ``fit`` or ``from_state`` has given it a vocabulary."""
        return bool(self._vocabulary)

    def _check_fitted(self) -> None:
        if not self._vocabulary:
            raise NotFitted(
                "TfidfEmbedder is not fitted; call fit(texts) first or restore it "
                "with TfidfEmbedder.from_state(state, config)"
            )

    @property
    def name(self) -> str:
        """``"tfidf-<dim><settings>-<fingerprint of vocabulary and idf>-v<version>"``."""
        self._check_fitted()
        return f"tfidf-{self.dim}{self._tokens.name_suffix()}-{self._fingerprint}-v{self.VERSION}"

    @property
    def dim(self) -> int:
        self._check_fitted()
        return len(self._vocabulary)

    @property
    def vocabulary(self) -> list[str]:
        """The sorted words; column ``j`` of a row is ``vocabulary[j]``."""
        return list(self._vocabulary)

    @property
    def idf(self) -> np.ndarray:
        """``(dim,)`` float64 idf of each vocabulary word (a copy)."""
        return self._idf.copy()

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        """``(len(texts), dim)`` float32 C-contiguous unit rows (zero rows for texts with no
        vocabulary word); ``query`` changes nothing."""
        return self.embed_sparse(texts).dense()

    def embed_sparse(self, texts: Sequence[str]) -> SparseRows:
        """The rows of ``embed`` as CSR, for batches too large to hold densely."""
        self._check_fitted()
        return self._rows(self._hash(texts))

    def _rows(self, hashed: TokenHashes) -> SparseRows:
        return self._csr(_columns(hashed.hashes, self._table, self._keys), hashed.offsets)

    def _csr(self, columns: np.ndarray, offsets: np.ndarray) -> SparseRows:
        indptr, indices, data = _csr_rows(columns, offsets, self._idf)
        return SparseRows(indptr, indices, data, len(self._vocabulary))

    # -- saving and restoring -----------------------------------------------------------------

    def config(self) -> dict[str, Any]:
        """JSON-able settings; with ``state()`` they rebuild this embedder."""
        return {"kind": "tfidf", "version": self.VERSION, **self._tokens.config()}

    def state(self) -> dict[str, np.ndarray]:
        """The fitted arrays: ``vocabulary_utf8`` uint8 (the sorted words' UTF-8 bytes, end to
        end), ``vocabulary_offsets`` int64 ``(dim + 1,)`` (word ``j`` is bytes
        ``offsets[j]:offsets[j + 1]``), ``idf`` float64 ``(dim,)``."""
        self._check_fitted()
        encoded = [w.encode("utf-8") for w in self._vocabulary]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
        blob = np.frombuffer(b"".join(encoded), dtype=np.uint8).copy()
        return {"vocabulary_utf8": blob, "vocabulary_offsets": offsets, "idf": self._idf.copy()}

    @classmethod
    def from_config(
        cls, config: dict[str, Any], state: dict[str, np.ndarray] | None = None
    ) -> TfidfEmbedder:
        """The fitted embedder saved as ``config()`` and ``state()``."""
        check_version(config, "tfidf", cls.VERSION)
        if state is None:
            raise InputError(
                "a TF-IDF embedder needs its fitted state (vocabulary and idf) to "
                "be rebuilt; pass state=embedder.state()"
            )
        tokens = token_settings_of(config)
        embedder = cls(stop_words=tokens.stop_words, fold_plurals=tokens.fold_plurals)
        embedder._set(*_restore(state))
        return embedder

    @classmethod
    def from_state(
        cls, state: dict[str, np.ndarray], config: dict[str, Any] | None = None
    ) -> TfidfEmbedder:
        """``from_config(config, state)``; ``config`` defaults to the default settings."""
        return cls.from_config(cls().config() if config is None else config, state)

    def __repr__(self) -> str:
        what = self.name if self._vocabulary else "unfitted"
        return f"TfidfEmbedder({what!r})"


def _restore(state: dict[str, np.ndarray]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """``(vocabulary, idf, keys)`` from ``state``; IndexCorrupt naming what is wrong."""
    try:
        blob = np.asarray(state["vocabulary_utf8"], dtype=np.uint8).tobytes()
        offsets = np.asarray(state["vocabulary_offsets"], dtype=np.int64)
        idf = np.array(state["idf"], dtype=np.float64)
    except (KeyError, TypeError, ValueError) as exc:
        raise IndexCorrupt(
            f"TF-IDF state lacks or mangles an array ({exc!r}); rebuild the index"
        ) from exc
    n = idf.size
    if (
        offsets.shape != (n + 1,)
        or n == 0
        or offsets[0] != 0
        or offsets[-1] != len(blob)
        or np.any(np.diff(offsets) <= 0)
        or not np.all(np.isfinite(idf))
        or idf.min() < 1
    ):
        raise IndexCorrupt(
            f"TF-IDF state is inconsistent: {n} idf values, offsets of shape "
            f"{offsets.shape} over {len(blob)} bytes; rebuild the index"
        )
    bounds = offsets.tolist()
    pieces = [blob[a:b] for a, b in itertools.pairwise(bounds)]
    try:
        vocabulary = [p.decode("utf-8") for p in pieces]
    except UnicodeDecodeError as exc:
        raise IndexCorrupt(f"TF-IDF vocabulary is not UTF-8 ({exc}); rebuild the index") from exc
    if any(a >= b for a, b in itertools.pairwise(vocabulary)):
        raise IndexCorrupt("TF-IDF vocabulary is not sorted and unique; rebuild the index")
    keys = np.fromiter((hash64(p) for p in pieces), dtype=np.uint64, count=n)
    return vocabulary, idf, keys


# -- kernels (Numba; arrays in, arrays out) ---------------------------------------------------


@njit(cache=True)
def _slot(table: np.ndarray, keys: np.ndarray, h: np.uint64) -> int:
    """The slot of hash ``h`` in an open-addressing ``table`` of term ids (-1 = empty)."""
    mask = table.size - 1
    s = np.int64(h & np.uint64(mask))
    while table[s] >= 0 and keys[table[s]] != h:
        s = (s + 1) & mask
    return int(s)


@njit(cache=True)
def _rehash(keys: np.ndarray, n: int, size: int) -> np.ndarray:
    """A table of ``size`` slots (a power of two) holding term ids ``0..n-1``."""
    table = np.full(size, -1, dtype=np.int64)
    for t in range(n):
        table[_slot(table, keys, keys[t])] = t
    return table


def _build_table(keys: np.ndarray) -> np.ndarray:
    size = 2
    while size < 2 * keys.size:
        size *= 2
    return _rehash(keys, keys.size, size)


def _idf(df: np.ndarray, n: int) -> np.ndarray:
    """``ln((1 + n) / (1 + df)) + 1`` as float64, by ``math.log`` exactly as the reference
    does (one call per vocabulary word: cheap, and no JIT compile)."""
    return np.array([math.log((1 + n) / (1 + d)) + 1 for d in df.tolist()], dtype=np.float64)


@njit(cache=True)
def _columns(hashes: np.ndarray, table: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Each token hash's vocabulary column, -1 for a word not in the vocabulary."""
    out = np.empty(hashes.size, dtype=np.int64)
    for p in range(hashes.size):
        out[p] = table[_slot(table, keys, hashes[p])]
    return out


@njit(cache=True)
def _csr_rows(
    columns: np.ndarray, offsets: np.ndarray, idf: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR ``(indptr, indices, data)`` of unit rows ``count * idf`` from each token's column
    (-1 = not in the vocabulary, skipped): a row's columns in the order their words first
    occur in the text; the norm summed in that order in double precision; values stored as
    float32."""
    n = offsets.size - 1
    indptr = np.zeros(n + 1, dtype=np.int64)
    indices = np.empty(columns.size, dtype=np.int64)
    data = np.empty(columns.size, dtype=np.float32)
    counts = np.zeros(idf.size, dtype=np.int64)
    nnz = 0
    for i in range(n):
        start = nnz
        for p in range(offsets[i], offsets[i + 1]):
            c = columns[p]
            if c >= 0:
                if counts[c] == 0:
                    indices[nnz] = c
                    nnz += 1
                counts[c] += 1
        total = 0.0
        for q in range(start, nnz):
            w = counts[indices[q]] * idf[indices[q]]
            total += w * w
        norm = math.sqrt(total)
        for q in range(start, nnz):
            c = indices[q]
            data[q] = (counts[c] * idf[c]) / norm
            counts[c] = 0
        indptr[i + 1] = nnz
    return indptr, indices[:nnz].copy(), data[:nnz].copy()
