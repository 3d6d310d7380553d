"""What the guard adds to one search: the bare retriever against the guarded one, paired.

Builds (or reuses, ``--index``) a hashing index of the pydocs evaluation corpus and asks its
110 questions, k = 5, each through the bare retriever of ``--mode`` and the guarded one back
to back, order alternating (``paired.py``), after one untimed warm-up round. Checks after each
pair (outside the timed part) that a passing verdict returns exactly the bare hits and a
refusal returns none. Reports the medians and the median of the paired differences (the
guard's own cost). Run:

    .venv/bin/python benchmarks/guard_latency.py [--index DIR] [--rounds 5] [--mode keyword|hybrid|dense]

In hybrid and dense mode the guarded retriever also runs the keyword side's search for its
evidence (``keyword_evidence``), so the cost includes that search.

``--baseline lexical`` pairs the guard with the same guard without its drift check
(``GuardConfig(drift=False)``) instead of the bare retriever: what the drift check costs, over
a MiniLM index (``--index``: the passages' stored rows) or over the default hashing index with
MiniLM installed (it judges beside the index, embedding the passages' texts). The check runs
only for questions with a word the collection never uses, so the p90 is printed beside the
median, and the figures of the questions it ran for apart.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from paired import interleaved_rounds
from quality.corpora import PYDOCS

from docqa.build import IndexSettings, build_index
from docqa.collection import Collection
from docqa.eval import load_questions
from docqa.retrieve.guard import GuardConfig, GuardedRetriever
from docqa.types import Hit

K = 5


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--index", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--mode", choices=("keyword", "hybrid", "dense"), default="keyword")
    parser.add_argument("--baseline", choices=("bare", "lexical"), default="bare")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        index = args.index or Path(tmp) / "pydocs"
        if not (index / "manifest.json").exists():
            build_index([PYDOCS / "corpus"], index, IndexSettings())
        collection = Collection.open(index)
        questions = [q.question for q in load_questions(PYDOCS / "questions.jsonl")]
        bare = collection.retriever(
            args.mode, guard=False if args.baseline == "bare" else GuardConfig(drift=False)
        )
        guarded = collection.retriever(args.mode)
        assert isinstance(guarded, GuardedRetriever)
        drifting = set()  # the questions the drift check runs for
        for q in questions:  # warm-up: kernels compiled, pages mapped
            bare.search(q, K), guarded.search(q, K)
            if guarded.last_verdict and any(
                r.startswith(("drift:", "drift (")) and "not checked" not in r
                for r in guarded.last_verdict.reasons
            ):
                drifting.add(q)
        n = len(questions)

        def check(r: int, hits: dict[str, list[Hit]]) -> None:
            want, got = ([h.id for h in hits[name]] for name in ("bare", "guarded"))
            assert got in (want, []), (
                f"guarded hits differ from the baseline's for {questions[r % n]!r}"
            )

        fns = {"bare": bare, "guarded": guarded}
        times = interleaved_rounds(
            {name: (lambda r, s=s: s.search(questions[r % n], K)) for name, s in fns.items()},
            args.rounds * n,
            check=check,
        )
        rows = [(1e3 * t["bare"], 1e3 * t["guarded"]) for t in times]
        asked = [questions[r % n] for r in range(len(times))]
    base = [b for b, _ in rows]
    guard = [g for _, g in rows]
    diffs = [g - b for b, g in rows]
    print(f"{len(rows)} paired searches over {len(collection.chunks)} chunks, k={K}")
    print(f"{args.mode}, {args.baseline}: p50 {p(base, 50):.3f} ms, p90 {p(base, 90):.3f} ms")
    print(f"{args.mode}, guarded: p50 {p(guard, 50):.3f} ms, p90 {p(guard, 90):.3f} ms")
    what = "the guard's own cost" if args.baseline == "bare" else "the drift check's cost"
    print(f"{what} (paired differences): p50 {p(diffs, 50):.3f} ms, p90 {p(diffs, 90):.3f} ms")
    ran = [d for d, q in zip(diffs, asked, strict=True) if q in drifting]
    if ran:
        print(
            f"the drift check ran for {len(drifting)} of {len(questions)} questions; their "
            f"paired differences: p50 {p(ran, 50):.3f} ms, p90 {p(ran, 90):.3f} ms"
        )


def p(values: list[float], q: int) -> float:
    """The ``q``-th percentile of ``values``."""
    return (
        statistics.quantiles(values, n=100, method="inclusive")[q - 1]
        if q != 50
        else (statistics.median(values))
    )


if __name__ == "__main__":
    main()
