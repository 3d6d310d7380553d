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
