"""Choose the guard thresholds by measurement on the labelled sample questions.

For each mode and threshold: the share of unanswerable questions refused and the share of
answerable ones wrongly refused (and recall@5 of what is left). Run:

    .venv/bin/python benchmarks/guard_sweep.py [--embedder hashing|tfidf]

The defaults in ``docqa.retrieve.guard.GuardConfig`` come from this: among the thresholds that
refuse no answerable question, those refusing the most unanswerable ones form a plateau, and
its middle is the default (a margin on both sides on so few questions).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

from docqa.build import IndexSettings, build_index
from docqa.collection import Collection
from docqa.eval import load_questions
from docqa.retrieve.guard import GuardConfig, GuardedRetriever

ROOT = Path(__file__).resolve().parent.parent
GRID = [round(x, 2) for x in np.arange(0.0, 0.61, 0.01)]


QUESTIONS = ROOT / "examples" / "questions.jsonl"


def refusals(collection: Collection, mode: str, config: GuardConfig) -> tuple[float, float]:
    """(share of unanswerable refused, share of answerable refused) under ``config``."""
    questions = load_questions(QUESTIONS)
    guarded = GuardedRetriever(collection.retriever(mode, guarded=False), config)
    refused = {q.id: not guarded.search(q.question, 5) for q in questions}
    una = [refused[q.id] for q in questions if not q.answerable]
    ans = [refused[q.id] for q in questions if q.answerable]
    return float(np.mean(una)), float(np.mean(ans))


def sweep(collection: Collection, mode: str, field: str) -> list[tuple[float, float, float]]:
    return [(t, *refusals(collection, mode, GuardConfig(**{field: t}))) for t in GRID]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--embedder", default="hashing", choices=("hashing", "tfidf"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        build_index(
            [ROOT / "examples" / "library"], Path(tmp) / "ix", IndexSettings(embedder=args.embedder)
        )
        collection = Collection.open(Path(tmp) / "ix")
        chosen = {}
        for mode, field in (("dense", "min_cosine"), ("keyword", "min_keyword")):
            print(f"\n{mode} ({args.embedder}): {field}  refused-unanswerable  refused-answerable")
            rows = sweep(collection, mode, field)
            for t, una, ans in rows[::5]:
                print(f"  {t:5.2f}  {una:6.2f}  {ans:6.2f}")
            ok = [r for r in rows if r[2] == 0.0] or rows[:1]
            top = max(r[1] for r in ok)
            plateau = [r[0] for r in ok if r[1] == top]
            pick = round((min(plateau) + max(plateau)) / 2, 2)  # the middle: a margin each way
            print(
                f"  {field}: thresholds {min(plateau):.2f}..{max(plateau):.2f} refuse {top:.2f} "
                f"of unanswerable and no answerable question; middle {pick:.2f}"
            )
            chosen[field] = pick
        for rule in ("any", "all"):
            una, ans = refusals(collection, "hybrid", GuardConfig(**chosen, rule=rule))
            print(
                f"hybrid rule={rule} {chosen}: refused unanswerable {una:.2f}, answerable {ans:.2f}"
            )


if __name__ == "__main__":
    main()
