"""The tokenizer: a thin typed shell over the private native module ``docqa._tokenize``.

The rules are defined by :mod:`docqa.text.tokenize_reference` (the executable spec); this
module validates input, compiles the stop-word list once and converts results to NumPy.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from docqa import _tokenize
from docqa.text.stopwords import ENGLISH_STOP_WORDS


@lru_cache(maxsize=8)
def compiled_stop_words(words: frozenset[str] = ENGLISH_STOP_WORDS) -> _tokenize.Vocab:
    """The native form of a stop-word set (built once per distinct set)."""
    return _tokenize.Vocab(sorted(words))


def _stops(stop_words: bool | Iterable[str]) -> _tokenize.Vocab | None:
    if stop_words is False:
        return None
    if stop_words is True:
        return compiled_stop_words()
    if isinstance(stop_words, str):
        raise TypeError(
            "stop_words must be True, False or an iterable of words, got a single str; "
            f"wrap it in a list: [{stop_words!r}]"
        )
    words = frozenset(stop_words)
    for word in words:
        if not isinstance(word, str) or not word:
            raise TypeError(f"stop words must be non-empty str, got {word!r}")
    return compiled_stop_words(words)


def _batch(texts: Sequence[str]) -> _tokenize.Batch:
    if isinstance(texts, str):
        raise TypeError("expected a sequence of str, got a single str; wrap it in a list")
    return _tokenize.Batch(texts)


def tokenize(
    text: str, *, stop_words: bool | Iterable[str] = False, fold_plurals: bool = False
) -> list[str]:
    """Tokens of ``text``: lower-cased runs of ``str.isalnum`` characters.

    ``stop_words`` is False, True (the English list) or an iterable of words to drop;
    ``fold_plurals`` applies Harman's S-stemmer (see ``tokenize_reference.fold_plural``).
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, got {type(text).__name__}")
    return tokenize_batch([text], stop_words=stop_words, fold_plurals=fold_plurals)[0]


def tokenize_batch(
    texts: Sequence[str], *, stop_words: bool | Iterable[str] = False, fold_plurals: bool = False
) -> list[list[str]]:
    """``tokenize`` for many texts at once (one native call, the GIL released while scanning)."""
    return _tokenize.tokenize_batch(_batch(texts), _stops(stop_words), bool(fold_plurals))


@dataclass(frozen=True)
class TokenHashes:
    """Hashed tokens of a batch, no Python object per token.

    ``hashes`` is uint64 (``tokenize_reference.hash64`` of each token, in order); text ``i``
    owns ``hashes[offsets[i]:offsets[i + 1]]``; ``offsets`` is int64 of length ``n + 1``.
    """

    hashes: np.ndarray
    offsets: np.ndarray

    def of(self, i: int) -> np.ndarray:
        """The hashes of text ``i``."""
        return self.hashes[self.offsets[i] : self.offsets[i + 1]]


def hash_tokens(
    texts: Sequence[str], *, stop_words: bool | Iterable[str] = False, fold_plurals: bool = False
) -> TokenHashes:
    """Tokenize ``texts`` straight into 64-bit token hashes (the object-free path)."""
    hashes, offsets = _tokenize.hash_batch(_batch(texts), _stops(stop_words), bool(fold_plurals))
    return TokenHashes(
        hashes=np.frombuffer(hashes, dtype=np.uint64), offsets=np.frombuffer(offsets, np.int64)
    )


@dataclass(frozen=True)
class TermIds:
    """Tokens of a batch as term ids (int64): text ``i`` owns ``ids[offsets[i]:offsets[i + 1]]``."""

    ids: np.ndarray
    offsets: np.ndarray


class TermCounter:
    """A vocabulary grown while tokenizing: each token becomes a dense term id (0, 1, 2, ...
    in first-seen order, across calls), and every term keeps its word and document frequency.

    One native pass per batch, no Python object per token; only ``words()`` builds a str per
    distinct term. Terms are keyed by ``tokenize_reference.hash64``: two words with the same
    64-bit hash (odds about V**2 / 2**65) would share an id and the first one's word.
    """

    def __init__(
        self, *, stop_words: bool | Iterable[str] = False, fold_plurals: bool = False
    ) -> None:
        self._stops = _stops(stop_words)
        self._fold = bool(fold_plurals)
        self._terms = _tokenize.Terms()

    def add(self, texts: Sequence[str]) -> TermIds:
        """The term ids of ``texts``' tokens; the texts count as the next documents for
        ``df``. TypeError (naming the index) for a non-str item, before anything is counted;
        after a MemoryError the counter may hold part of the batch: discard it."""
        ids, offsets = self._terms.add(_batch(texts), self._stops, self._fold)
        return TermIds(
            ids=np.frombuffer(ids, dtype=np.int64), offsets=np.frombuffer(offsets, np.int64)
        )

    @property
    def n_terms(self) -> int:
        """Distinct terms seen so far."""
        return int(self._terms.n_terms)

    @property
    def n_docs(self) -> int:
        """Texts added so far."""
        return int(self._terms.n_docs)

    def words(self) -> list[str]:
        """Each term's word, by term id."""
        return list(self._terms.words())

    def keys(self) -> np.ndarray:
        """Each term's hash64 (uint64), by term id."""
        return np.frombuffer(self._terms.keys(), dtype=np.uint64)

    def df(self) -> np.ndarray:
        """Each term's document frequency (int64), by term id."""
        return np.frombuffer(self._terms.df(), dtype=np.int64)
