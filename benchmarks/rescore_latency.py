"""What does MiniLM rescoring cost per question, beside BM25 alone and a MiniLM index?

Over the Python docs (``../shared/evalsets/pydocs``, 110 questions), one process, k 5, no
guard (the ranking's cost alone):

- ``keyword``: BM25 over a hashing index;
- ``rescore, first sight``: BM25's best 50 passages embedded by MiniLM and fused (each question
  with an empty passage memo and no persistent cache: every passage embedded, as the first
  question on a new index pays);
- ``rescore, seen``: the same question again (its passages already embedded);
- ``minilm hybrid``: a MiniLM index's hybrid search (the question embedded, exact top-k).

Each question runs every variant in turn (paired, alternating order per question), after a
warm-up of five questions outside the timed part; each result is checked inside it (the
rescored hits are BM25's rows, the MiniLM index's hits are real rows). Prints p50 / p90 / p99
ms per variant and the ratio of each median to keyword's. Run on a quiet machine:

    .venv/bin/python benchmarks/rescore_latency.py [--scratch /tmp/docqa-quality]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from quality.corpora import build

from docqa.collection import Collection
from docqa.embed import minilm
from docqa.eval import load_questions
from docqa.retrieve.rerank import RerankingRetriever
from docqa.retrieve.rescore import DEFAULT_RESCORE_TOP, SemanticRescorer
from docqa.types import Hit

K = 5


def timed(run: Callable[[], list[Hit]]) -> tuple[float, list[Hit]]:
    start = time.perf_counter()
    hits = run()
    return (time.perf_counter() - start) * 1000.0, hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/docqa-quality"))
    args = parser.parse_args()
    lexical_dir, questions_file = build("pydocs", "hashing", args.scratch)
    semantic_dir, _ = build("pydocs", "minilm", args.scratch)
    lexical, semantic = Collection.open(lexical_dir), Collection.open(semantic_dir)
    assert isinstance(lexical, Collection) and isinstance(semantic, Collection)
    model = minilm.shared()
    questions = [q.question for q in load_questions(questions_file)]
    keyword = lexical.retriever("keyword", guard=False)
    hybrid = semantic.retriever("hybrid", guard=False)

    def rescored(rescorer: SemanticRescorer) -> RerankingRetriever:
        return RerankingRetriever(keyword, rescorer, top_n=DEFAULT_RESCORE_TOP)

    for q in questions[:5]:  # warm-up: kernels compiled, the model's graph built
        rescored(SemanticRescorer(model, lexical.bm25, lexical.passage_text)).search(q, K)
        hybrid.search(q, K)
    times: dict[str, list[float]] = {
        "keyword": [], "rescore, first sight": [], "rescore, seen": [], "minilm hybrid": []
    }  # fmt: skip
    for i, q in enumerate(questions):
        rescorer = SemanticRescorer(model, lexical.bm25, lexical.passage_text)
        runs: list[tuple[str, Callable[[], list[Hit]]]] = [
            ("keyword", lambda q=q: keyword.search(q, K)),
            ("rescore, first sight", lambda q=q, r=rescorer: rescored(r).search(q, K)),
            ("rescore, seen", lambda q=q, r=rescorer: rescored(r).search(q, K)),
            ("minilm hybrid", lambda q=q: hybrid.search(q, K)),
        ]
        order = runs if i % 2 == 0 else [runs[0], runs[3], runs[1], runs[2]]
        pool = {h.row for h in keyword.search(q, DEFAULT_RESCORE_TOP)}
        for name, run in order:
            ms, hits = timed(run)
            if name.startswith("rescore"):
                assert {h.row for h in hits} <= pool, q
            assert all(0 <= h.row < len(lexical.chunks) for h in hits), q
            times[name].append(ms)
    base = float(np.median(times["keyword"]))
    print(f"pydocs, {len(questions)} questions, k {K}, {DEFAULT_RESCORE_TOP} rescored")
    for name, values in times.items():
        p50, p90, p99 = np.percentile(values, [50, 90, 99])
        print(f"{name:22s} p50 {p50:8.2f} ms  p90 {p90:8.2f}  p99 {p99:8.2f}  x{p50 / base:.1f}")


if __name__ == "__main__":
    main()
