"""Choose the guard thresholds by measurement on the labelled sample questions.

For each mode and threshold: the share of unanswerable questions refused and the share of
answerable ones wrongly refused (and recall@5 of what is left). Run:

    .venv/bin/python benchmarks/guard_sweep.py [--embedder hashing|tfidf]

The defaults in ``docqa.retrieve.guard.GuardConfig`` are the thresholds this prints as best:
the largest that refuses no answerable question, ties to the one refusing most unanswerable.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

from docqa.collection import Collection
from docqa.eval import load_questions
from docqa.indexing import IndexSettings, build_index
from docqa.retrieve.guard import GuardConfig, GuardedRetriever

ROOT = Path(__file__).resolve().parent.parent
GRID = [round(x, 2) for x in np.arange(0.0, 0.81, 0.05)]


def sweep(collection: Collection, mode: str, field: str) -> list[tuple[float, float, float]]:
    questions = load_questions(ROOT / "examples" / "questions.jsonl")
    inner = collection.retriever(mode, guarded=False)
    rows = []
    for t in GRID:
        guarded = GuardedRetriever(inner, GuardConfig(**{field: t}, rule="any"))
        refused = {q.id: not guarded.search(q.question, 5) for q in questions}
        una = [refused[q.id] for q in questions if not q.answerable]
        ans = [refused[q.id] for q in questions if q.answerable]
        rows.append((t, float(np.mean(una)), float(np.mean(ans))))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--embedder", default="hashing", choices=("hashing", "tfidf"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        build_index([ROOT / "examples" / "library"], Path(tmp) / "ix",
                    IndexSettings(embedder=args.embedder))
        collection = Collection.open(Path(tmp) / "ix")
        for mode, field in (("dense", "min_cosine"), ("keyword", "min_keyword")):
            print(f"\n{mode} ({args.embedder}): {field}  refused-unanswerable  refused-answerable")
            rows = sweep(collection, mode, field)
            for t, una, ans in rows:
                print(f"  {t:5.2f}  {una:6.2f}  {ans:6.2f}")
            ok = [r for r in rows if r[2] == 0.0]
            best = max(ok, key=lambda r: (r[1], r[0])) if ok else None
            print(f"  best {field}: {best}")


if __name__ == "__main__":
    main()
