"""The tokenizer: the one Python shell over the private native module ``docqa._tokenize``.

Every other module reaches the native code through this one, which validates input, owns the
error messages, compiles stop-word lists once and converts results to NumPy. The rules are
defined by :mod:`docqa.text.tokenize_reference` (the executable spec). ``TokenSettings`` is
the one description of how text is tokenized (stop words, plural folding), shared by
``tokenize``, the hashing and TF-IDF embedders and BM25.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from docqa import _tokenize
from docqa.errors import InputTypeError
from docqa.text.stopwords import ENGLISH_STOP_WORDS

StopWords = bool | Iterable[str]
"""``False`` (keep every token), ``True`` (drop the English list) or the words to drop."""


@lru_cache(maxsize=8)
def compiled_stop_words(words: frozenset[str] = ENGLISH_STOP_WORDS) -> _tokenize.Vocab:
    """The native form of a stop-word set (built once per distinct set)."""
    return _tokenize.Vocab(sorted(words))


@dataclass(frozen=True)
class TokenSettings:
    """How text is tokenized: ``stop_words`` is False, True (the English list) or a frozenset
    of words to drop; ``fold_plurals`` applies the S-stemmer. Build it with ``make`` from user
    input; a custom list equal to the English one becomes True."""

    stop_words: bool | frozenset[str] = True
    fold_plurals: bool = True

    @classmethod
    def make(cls, stop_words: StopWords, fold_plurals: bool) -> TokenSettings:
        """Validate and normalise; ``InputTypeError`` (a TypeError) for a bad stop-word list."""
        if not isinstance(stop_words, bool):
            if isinstance(stop_words, str):
                raise InputTypeError(
                    "stop_words must be True, False or a collection of words, not a str; "
                    f"wrap it in a list: [{stop_words!r}]"
                )
            words = frozenset(stop_words)
            for word in words:
                if not isinstance(word, str) or not word:
                    raise InputTypeError(f"stop words must be non-empty str, got {word!r}")
            stop_words = True if words == ENGLISH_STOP_WORDS else words
        return cls(stop_words=stop_words, fold_plurals=bool(fold_plurals))

    @classmethod
    def from_config(cls, config: Any) -> TokenSettings:
        """Inverse of ``config()``; ``KeyError`` / ``TypeError`` when a field is missing or bad."""
        return cls.make(config["stop_words"], config["fold_plurals"])

    def compiled(self) -> _tokenize.Vocab | None:
        """The native stop-word set (cached per distinct set), or None for no stop words."""
        if self.stop_words is False:
            return None
        if self.stop_words is True:
            return compiled_stop_words()
        return compiled_stop_words(self.stop_words)

    def as_kwargs(self) -> dict[str, Any]:
        """``stop_words`` / ``fold_plurals`` keywords for the functions of this module."""
        return {"stop_words": self.stop_words, "fold_plurals": self.fold_plurals}

    def config(self) -> dict[str, Any]:
        """JSON-able form: ``stop_words`` is a bool or a sorted list of words."""
        stops = self.stop_words
        return {
            "stop_words": stops if isinstance(stops, bool) else sorted(stops),
            "fold_plurals": self.fold_plurals,
        }

    def name_suffix(self) -> str:
        """``""`` for the defaults, else e.g. ``"-nostop-nofold"`` or ``"-stop1a2b3c4d"``."""
        suffix = ""
        if self.stop_words is False:
            suffix += "-nostop"
        elif self.stop_words is not True:
            digest = hashlib.sha256("\n".join(sorted(self.stop_words)).encode("utf-8"))
            suffix += "-stop" + digest.hexdigest()[:8]
        if not self.fold_plurals:
            suffix += "-nofold"
        return suffix


def _stops(stop_words: StopWords) -> _tokenize.Vocab | None:
    return TokenSettings.make(stop_words, False).compiled()


def native_batch(texts: Sequence[str]) -> _tokenize.Batch:
    """The native batch of ``texts`` (read once, shared by every native pass over them).

    ``InputTypeError`` for a single str or bytes, and, naming the index, for a non-str item.
    """
    if isinstance(texts, (str, bytes)):
        raise InputTypeError(
            f"texts must be a sequence of str, got a single {type(texts).__name__}; "
            "wrap it in a list"
        )
    try:
        return _tokenize.Batch(texts)
    except TypeError as exc:
        raise InputTypeError(str(exc)) from None


def hash64(token: bytes) -> int:
    """The 64-bit hash of one token's UTF-8 bytes (``tokenize_reference.hash64``), the key of
    every term."""
    return int(_tokenize.hash64(token))


class RowCursor:
    """Hands out grains of rows ``0..n-1`` to the threads filling them (one atomic add a
    claim), so a thread on a busy core simply claims fewer grains."""

    def __init__(self, n: int, grain: int) -> None:
        self._rows = _tokenize.Rows(0, n, grain)

    def fill_hashing_rows(
        self, batch: _tokenize.Batch, settings: TokenSettings, out: np.ndarray
    ) -> None:
        """Fill rows of ``out`` (n, dim) float32 with hashing-embedder rows of ``batch`` until
        no grain is left (the GIL is released; several threads may call it on one cursor)."""
        _tokenize.embed_hashing_rows(
            batch, self._rows, settings.compiled(), settings.fold_plurals, out
        )


def tokenize(text: str, *, stop_words: StopWords = False, fold_plurals: bool = False) -> list[str]:
    """Tokens of ``text``: lower-cased runs of ``str.isalnum`` characters.

    ``stop_words`` is False, True (the English list) or an iterable of words to drop;
    ``fold_plurals`` applies Harman's S-stemmer (see ``tokenize_reference.fold_plural``).
    """
    if not isinstance(text, str):
        raise InputTypeError(f"text must be str, got {type(text).__name__}")
    return tokenize_batch([text], stop_words=stop_words, fold_plurals=fold_plurals)[0]


def content_words(text: str) -> set[str]:
    """The distinct content words of ``text``: lower-cased tokens, English stop words dropped,
    plurals folded (how answers, claims and questions are compared word by word)."""
    return set(tokenize(text, stop_words=True, fold_plurals=True))


def tokenize_batch(
    texts: Sequence[str], *, stop_words: StopWords = False, fold_plurals: bool = False
) -> list[list[str]]:
    """``tokenize`` for many texts at once (one native call, the GIL released while scanning)."""
    return _tokenize.tokenize_batch(native_batch(texts), _stops(stop_words), bool(fold_plurals))


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
    texts: Sequence[str], *, stop_words: StopWords = False, fold_plurals: bool = False
) -> TokenHashes:
    """Tokenize ``texts`` straight into 64-bit token hashes (the object-free path)."""
    hashes, offsets = _tokenize.hash_batch(
        native_batch(texts), _stops(stop_words), bool(fold_plurals)
    )
    return TokenHashes(
        hashes=np.frombuffer(hashes, dtype=np.uint64), offsets=np.frombuffer(offsets, np.int64)
    )


def join_rows(first: TokenHashes, then: TokenHashes) -> TokenHashes:
    """Row ``i`` of ``first`` followed by row ``i`` of ``then``, for every row: the hashes of
    ``f"{a}\\n\\n{b}"`` for texts ``a`` and ``b`` (tokens never span the blank line), without
    tokenizing ``a`` again. Two scatters over the hashes; raises ``ValueError`` when the two
    hold different numbers of rows."""
    if first.offsets.size != then.offsets.size:
        raise ValueError(f"{first.offsets.size - 1} rows and {then.offsets.size - 1} rows")
    offsets = first.offsets + then.offsets
    out = np.empty(int(offsets[-1]), dtype=np.uint64)
    # token j of row i of ``first`` lands at j + then.offsets[i]; of ``then``, at j + the end
    # of row i of ``first``
    out[np.arange(first.hashes.size) + np.repeat(then.offsets[:-1], np.diff(first.offsets))] = (
        first.hashes
    )
    out[np.arange(then.hashes.size) + np.repeat(first.offsets[1:], np.diff(then.offsets))] = (
        then.hashes
    )
    return TokenHashes(hashes=out, offsets=offsets)


def hash_tokens_and_embed(
    batch: _tokenize.Batch, settings: TokenSettings, out: np.ndarray
) -> TokenHashes:
    """``hash_tokens`` of ``batch``'s texts with ``settings`` and, from the same scan, the
    hashing embedder's rows of them (``RowCursor.fill_hashing_rows``) into ``out``, a zeroed
    ``(batch.n, dim)`` float32 array: each kept token is hashed both ways once it is scanned.
    Serial (one thread); the GIL is released while scanning."""
    hashes, offsets = _tokenize.hash_and_embed_batch(
        batch, settings.compiled(), settings.fold_plurals, out
    )
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

    def __init__(self, *, stop_words: StopWords = False, fold_plurals: bool = False) -> None:
        self._stops = _stops(stop_words)
        self._fold = bool(fold_plurals)
        self._terms = _tokenize.Terms()

    def add(self, texts: Sequence[str]) -> TermIds:
        """The term ids of ``texts``' tokens; the texts count as the next documents for
        ``df``. TypeError (naming the index) for a non-str item, before anything is counted;
        after a MemoryError the counter may hold part of the batch: discard it."""
        ids, offsets = self._terms.add(native_batch(texts), self._stops, self._fold)
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
