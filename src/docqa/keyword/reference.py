"""BM25 written out plainly: the executable spec that ``BM25Index`` is tested against.

For a corpus of ``N`` documents, each the token list of ``tokenize_reference.tokenize`` (stop
words removed and plurals folded when asked), with ``dl`` its number of tokens and ``avgdl``
the mean of ``dl`` (1.0 when every document is empty):

- ``df(t)`` is the number of documents containing term ``t``;
- ``idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))`` (Lucene's, always > 0);
- a document's score for a query is the sum, over the query's *distinct* terms (a repeated
  query term counts once) taken by ``df`` ascending, ties in order of first appearance, of
  ``idf(t) * (tf * (k1 + 1)) / (tf + k1 * (1 - b + b * dl / avgdl))``, computed in float64
  and rounded to float32;
- only documents containing at least one query term are hits; they are ranked by the float32
  score descending, then row id ascending, and padded with ``-inf`` / ``-1`` to ``k``.

``max_score`` bounds any document's score for a query: the sum over its distinct terms
(unknown terms included, with ``df = 0``) of ``idf(t) * (k1 + 1)``, the limit of a term's
score as its tf grows. The weak-retrieval guard divides the best score by it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

from docqa.text.tokenize_reference import tokenize
from docqa.types import TopK


class ReferenceBM25:
    """BM25 over token lists, one document at a time, in plain Python."""

    def __init__(
        self,
        texts: Sequence[str],
        *,
        k1: float = 1.5,
        b: float = 0.75,
        stop_words: bool = True,
        fold_plurals: bool = True,
    ) -> None:
        self.k1 = k1
        self.b = b
        self.stop_words = stop_words
        self.fold_plurals = fold_plurals
        self.docs = [Counter(self.tokens(text)) for text in texts]
        self.lengths = [sum(doc.values()) for doc in self.docs]
        total = sum(self.lengths)
        self.avgdl = total / len(self.docs) if total > 0 else 1.0
        self.df: Counter[str] = Counter()
        for doc in self.docs:
            self.df.update(doc.keys())

    def tokens(self, text: str) -> list[str]:
        """The terms of ``text`` under this index's tokenizer settings."""
        return tokenize(text, stop_words=self.stop_words, fold_plurals=self.fold_plurals)

    def idf(self, term: str) -> float:
        """Lucene's idf of ``term`` (``df = 0`` for a term no document has)."""
        n, df = len(self.docs), self.df[term]
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def query_terms(self, query: str) -> list[str]:
        """The distinct terms of ``query`` by df ascending, ties in order of first appearance."""
        return sorted(dict.fromkeys(self.tokens(query)), key=lambda term: self.df[term])

    def score(self, terms: list[str], row: int) -> float | None:
        """Float64 score of document ``row`` for distinct ``terms``; None when it has none."""
        doc, total, matched = self.docs[row], 0.0, False
        norm = self.k1 * (1.0 - self.b + self.b * self.lengths[row] / self.avgdl)
        for term in terms:
            tf = doc.get(term, 0)
            if tf:
                matched = True
                total += self.idf(term) * (tf * (self.k1 + 1.0)) / (tf + norm)
        return total if matched else None

    def max_score(self, query: str) -> float:
        """Upper bound of any document's score for ``query`` (0.0 for a query with no terms)."""
        return sum(self.idf(term) * (self.k1 + 1.0) for term in self.query_terms(query))

    def search(
        self, queries: Sequence[str], k: int, *, allowed: Sequence[int] | None = None
    ) -> TopK:
        """Top k per query over the rows in ``allowed`` (all rows when None), canonical order;
        k is clamped to the number of rows."""
        k = min(k, len(self.docs))
        rows = range(len(self.docs)) if allowed is None else sorted(set(allowed))
        scores = np.full((len(queries), k), -np.inf, dtype=np.float32)
        ids = np.full((len(queries), k), -1, dtype=np.int64)
        for qi, query in enumerate(queries):
            terms, hits = self.query_terms(query), []
            for row in rows:
                s = self.score(terms, row)
                if s is not None:
                    hits.append((float(np.float32(s)), row))
            hits.sort(key=lambda hit: (-hit[0], hit[1]))
            for j, (s, row) in enumerate(hits[:k]):
                scores[qi, j] = s
                ids[qi, j] = row
        return TopK(scores, ids)
