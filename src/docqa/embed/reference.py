"""The embedders written out plainly: the executable spec the fast paths are tested against.

Hashing (``hashing_embed``), for each text:

1. tokens from ``docqa.text.tokenize_reference.tokenize`` (stop words removed, plurals folded,
   by default);
2. each token's bucket is ``zlib.crc32(token.encode("utf-8")) % dim``; add 1 to its count;
3. divide every count by ``sqrt(sum of squared counts)`` in double precision, then store as
   float32; a text with no token stays a zero row.

TF-IDF (``tfidf_fit`` / ``tfidf_embed``): the vocabulary is the sorted set of tokens seen in
the fitted texts; ``idf = ln((1 + N) / (1 + df)) + 1`` (N texts, df = texts holding the word);
a row is ``count * idf`` per vocabulary word (words never fitted are ignored), divided by the
square root of the sum of squares (added up in the order the words first occur in the text,
in double precision), then stored as float32.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterable, Sequence

import numpy as np

from docqa.text.tokenize_reference import tokenize


def _tokens(text: str, stop_words: bool | Iterable[str], fold_plurals: bool) -> list[str]:
    if isinstance(stop_words, bool):
        return tokenize(text, stop_words=stop_words, fold_plurals=fold_plurals)
    return tokenize(text, stop_words=True, fold_plurals=fold_plurals, stop_list=stop_words)


def hashing_embed(
    texts: Sequence[str],
    dim: int,
    *,
    stop_words: bool | Iterable[str] = True,
    fold_plurals: bool = True,
) -> np.ndarray:
    """``(len(texts), dim)`` float32 rows by the hashing rules in the module docstring."""
    out = np.zeros((len(texts), dim), dtype=np.float32)
    for i, text in enumerate(texts):
        counts = [0] * dim
        for token in _tokens(text, stop_words, fold_plurals):
            counts[zlib.crc32(token.encode("utf-8")) % dim] += 1
        norm = math.sqrt(sum(c * c for c in counts))
        if norm > 0:
            out[i] = [c / norm for c in counts]
    return out


def tfidf_fit(
    texts: Sequence[str],
    *,
    stop_words: bool | Iterable[str] = True,
    fold_plurals: bool = True,
) -> tuple[list[str], list[float]]:
    """``(vocabulary, idf)``: the sorted words of ``texts`` and each word's idf."""
    df: dict[str, int] = {}
    for text in texts:
        for word in set(_tokens(text, stop_words, fold_plurals)):
            df[word] = df.get(word, 0) + 1
    vocabulary = sorted(df)
    n = len(texts)
    return vocabulary, [math.log((1 + n) / (1 + df[word])) + 1 for word in vocabulary]


def tfidf_embed(
    texts: Sequence[str],
    vocabulary: list[str],
    idf: list[float],
    *,
    stop_words: bool | Iterable[str] = True,
    fold_plurals: bool = True,
) -> np.ndarray:
    """``(len(texts), len(vocabulary))`` float32 rows by the TF-IDF rules above."""
    column = {word: j for j, word in enumerate(vocabulary)}
    out = np.zeros((len(texts), len(vocabulary)), dtype=np.float32)
    for i, text in enumerate(texts):
        counts: dict[int, int] = {}
        for word in _tokens(text, stop_words, fold_plurals):
            if word in column:
                counts[column[word]] = counts.get(column[word], 0) + 1
        weights = {j: counts[j] * idf[j] for j in counts}
        total = 0.0
        for w in weights.values():
            total += w * w
        norm = math.sqrt(total)
        for j, w in weights.items():
            out[i, j] = w / norm
    return out
