"""Would a real stemmer, or pseudo-relevance feedback, lift docqa's keyword side?

One plain BM25 (k1 1.5, b 0.75, docqa's formula) over each collection's BM25 rows
(``keyword_text``: heading path counted twice), with three tokenizations of the same rows and
questions: docqa's (stop words dropped, plurals folded: equal to ``docqa search --mode
keyword``), the same tokens through the Snowball English stemmer (PyStemmer, what bm25s
uses), and each of those with RM3-style feedback (the best 5 rows' 10 heaviest terms, by
in-row frequency times IDF, searched again and mixed in at 0.5). It prints recall@5 and MRR@10
per collection and the mean. Needs ``pip install PyStemmer`` (not a docqa dependency). Run:

    .venv/bin/python benchmarks/quality/lexical.py [--corpora library,pydocs,...]
        [--scratch /tmp/docqa-quality]
"""

from __future__ import annotations

import argparse
import collections
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import Stemmer
from corpora import build, names

from docqa.collection import Collection
from docqa.eval import load_questions
from docqa.eval.metrics import recall_at, reciprocal_rank
from docqa.text.sections import keyword_text
from docqa.text.tokenize import tokenize_batch

STEMMER = Stemmer.Stemmer("english")


def tokens(texts: Sequence[str], stem: bool) -> list[list[str]]:
    """docqa's tokens of ``texts``, through Snowball when ``stem``."""
    if not stem:
        return tokenize_batch(texts, stop_words=True, fold_plurals=True)
    raw = tokenize_batch(texts, stop_words=True, fold_plurals=False)
    memo: dict[str, str] = {}
    return [[memo.setdefault(w, STEMMER.stemWord(w)) for w in t] for t in raw]


class BM25:
    """Okapi BM25 over token lists (the same formula and parameters as docqa's)."""

    def __init__(self, rows: list[list[str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.rows = rows
        self.n = len(rows)
        self.lengths = np.array([len(r) for r in rows], dtype=float)
        self.norm = k1 * (1 - b + b * self.lengths / self.lengths.mean())
        self.k1 = k1
        self.postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        found: dict[str, list[tuple[int, int]]] = collections.defaultdict(list)
        for i, row in enumerate(rows):
            for word, tf in collections.Counter(row).items():
                found[word].append((i, tf))
        for word, pairs in found.items():
            self.postings[word] = (
                np.array([r for r, _ in pairs]),
                np.array([t for _, t in pairs], dtype=float),
            )

    def idf(self, word: str) -> float:
        df = len(self.postings[word][0]) if word in self.postings else 0
        return math.log(1 + (self.n - df + 0.5) / (df + 0.5))

    def scores(self, query: Sequence[str]) -> np.ndarray:
        out = np.zeros(self.n)
        for word in set(query):
            if word in self.postings:
                rows, tf = self.postings[word]
                out[rows] += self.idf(word) * tf * (self.k1 + 1) / (tf + self.norm[rows])
        return out

    def feedback(self, query: Sequence[str], first: np.ndarray) -> np.ndarray:
        """RM3-style: the best 5 rows' 10 heaviest terms searched, mixed in at 0.5."""
        top = np.argsort(-first, kind="stable")[:5]
        weights: collections.Counter[str] = collections.Counter()
        for r in top:
            if first[r] > 0:
                for word, n in collections.Counter(self.rows[r]).items():
                    weights[word] += n / len(self.rows[r]) * self.idf(word)
        terms = weights.most_common(10)
        total = sum(w for _, w in terms) or 1.0
        second = sum((w / total) * self.scores([t]) for t, w in terms)
        return 0.5 * first + 0.5 * len(set(query)) * second


def figures(name: str, scratch: Path) -> dict[str, tuple[float, float]]:
    index, questions = build(name, "hashing", scratch)
    chunks = Collection.open(index).index.chunks
    sections = [c.section for c in chunks]
    rows = [keyword_text(c) for c in chunks]
    asked = [q for q in load_questions(questions) if q.answerable]
    out = {}
    for stem in (False, True):
        bm25 = BM25(tokens(rows, stem))
        for q, query in zip(asked, tokens([q.question for q in asked], stem), strict=True):
            first = bm25.scores(query)
            for rm3 in (False, True):
                s = bm25.feedback(query, first) if rm3 else first
                ranked = [sections[i] for i in np.lexsort((np.arange(len(s)), -s))[:10]]
                key = ("snowball" if stem else "docqa") + ("+rm3" if rm3 else "")
                r5, mrr = out.get(key, (0.0, 0.0))
                out[key] = (
                    r5 + recall_at(ranked, q.relevant, 5) / len(asked),
                    mrr + reciprocal_rank(ranked, q.relevant, 10) / len(asked),
                )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", default=",".join(names()))
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/docqa-quality"))
    args = parser.parse_args()
    means: dict[str, list[tuple[float, float]]] = collections.defaultdict(list)
    for name in args.corpora.split(","):
        cells = figures(name, args.scratch)
        print(f"{name:11s} " + "  ".join(f"{k} {a:.3f}/{b:.3f}" for k, (a, b) in cells.items()))
        for k, v in cells.items():
            means[k].append(v)
    for k, v in means.items():
        r5, mrr = (sum(x[j] for x in v) / len(v) for j in (0, 1))
        print(f"mean {k:14s} R@5 {r5:.3f}  MRR@10 {mrr:.3f}")


if __name__ == "__main__":
    main()
