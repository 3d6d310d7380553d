"""What the guard adds to one search: the bare retriever against the guarded one, paired.

Builds (or reuses, ``--index``) a hashing index of the pydocs evaluation corpus and asks its
110 questions, k = 5, each through the bare retriever of ``--mode`` and the guarded one back to back,
order alternating, after one untimed warm-up round. Checks inside the timed loop that a passing
verdict returns exactly the bare hits and a refusal returns none. Reports the medians and the
median of the paired differences (the guard's own cost). Run:

    .venv/bin/python benchmarks/guard_latency.py [--index DIR] [--rounds 5] [--mode keyword|hybrid|dense]

In hybrid and dense mode the guarded retriever also runs the keyword side's search for its
evidence (``keyword_evidence``), so the cost includes that search.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import guard_transfer

from docqa.build import IndexSettings, build_index
from docqa.collection import Collection
from docqa.eval import load_questions
from docqa.retrieve.guard import GuardedRetriever
from docqa.types import Retriever

K = 5


def timed(retriever: Retriever, question: str) -> tuple[float, list[str]]:
    started = time.perf_counter()
    hits = retriever.search(question, K)
    return (time.perf_counter() - started) * 1e3, [h.id for h in hits]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--index", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--mode", choices=("keyword", "hybrid", "dense"), default="keyword")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        index = args.index or Path(tmp) / "pydocs"
        if not (index / "manifest.json").exists():
            docs, _ = guard_transfer.corpus_paths("pydocs", Path(tmp))
            build_index(docs, index, IndexSettings())
        collection = Collection.open(index)
        _, questions_file = guard_transfer.corpus_paths("pydocs", Path(tmp))
        questions = [q.question for q in load_questions(questions_file)]
        bare = collection.retriever(args.mode, guard=False)
        guarded = collection.retriever(args.mode)
        assert isinstance(guarded, GuardedRetriever)
        for q in questions:  # warm-up: kernels compiled, pages mapped
            bare.search(q, K), guarded.search(q, K)
        rows: list[tuple[float, float]] = []
        for r in range(args.rounds):
            for i, q in enumerate(questions):
                first, second = (bare, guarded) if (r + i) % 2 == 0 else (guarded, bare)
                (t1, ids1), (t2, ids2) = timed(first, q), timed(second, q)
                (tb, want), (tg, got) = (
                    ((t1, ids1), (t2, ids2)) if first is bare else ((t2, ids2), (t1, ids1))
                )
                assert got in (want, []), f"guarded hits differ from the bare ones for {q!r}"
                rows.append((tb, tg))
    bare_ms = statistics.median(b for b, _ in rows)
    guarded_ms = statistics.median(g for _, g in rows)
    cost = statistics.median(g - b for b, g in rows)
    print(f"{len(rows)} paired searches over {len(collection.chunks)} chunks, k={K}")
    print(f"{args.mode}, bare:    p50 {bare_ms:.3f} ms")
    print(f"{args.mode}, guarded: p50 {guarded_ms:.3f} ms")
    print(f"the guard's own cost (median of paired differences): {cost:.3f} ms")


if __name__ == "__main__":
    main()
