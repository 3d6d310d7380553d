"""Does the best BM25 score stand out for answerable questions only? Measured, not kept.

The issue suggests judging a question by its scores relative to the collection's own
distribution. With MiniLM that is ``guard_semantic.py``'s standout; this is the lexical one:
for each question the guard passes in keyword mode, ``z = (best - mean) / std`` of the BM25
scores of every row (the plain reference BM25 over the chunk texts, 0 where no term matches).
A rule "refuse below z" would help only if the unanswerable questions the guard passes sat
below the answerable ones. Printed per corpus: min, 10th percentile and median of z for the
answerable and the unanswerable questions the guard passes, and on the sample library each
passing question's z. Run:

    .venv/bin/python benchmarks/quality/guard_bm25_standout.py [--corpora library,pydocs,...]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

import guard_transfer
import numpy as np

from docqa.keyword.reference import ReferenceBM25


def standouts(name: str, scratch: Path) -> list[tuple[str, bool, float]]:
    """(question, answerable, z) for each question the default keyword guard passes."""
    collection, questions = guard_transfer.open_corpus(name, scratch)
    texts = [collection.index.chunk(i).text for i in range(len(collection.index))]
    reference, guarded = ReferenceBM25(texts), collection.retriever("keyword")
    out = []
    for q in questions:
        if not guarded.search(q.question, guard_transfer.K):
            continue
        terms = reference.query_terms(q.question)
        scores = np.array([reference.score(terms, row) or 0.0 for row in range(len(texts))])
        z = (scores.max() - scores.mean()) / (scores.std() or 1.0)
        out.append((q.question, q.answerable, float(z)))
    return out


def summary(values: list[float]) -> str:
    if not values:
        return "-"
    values = sorted(values)
    return (
        f"n={len(values)}: min {values[0]:.1f}, p10 {values[len(values) // 10]:.1f}, "
        f"median {statistics.median(values):.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpora", default=guard_transfer.CORPORA)
    names = parser.parse_args().corpora.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        print("| corpus | answerable passed: z | unanswerable passed: z |\n|---|---|---|")
        library: list[tuple[str, bool, float]] = []
        for name in names:
            rows = standouts(name, Path(tmp))
            library = rows if name == "library" else library
            ans = [z for _, a, z in rows if a]
            una = [z for _, a, z in rows if not a]
            print(f"| {name} | {summary(ans)} | {summary(una)} |")
    for question, answerable, z in library:
        print(f"- {'answerable' if answerable else 'UNANSWERABLE'} z = {z:.1f}: {question}")


if __name__ == "__main__":
    main()
