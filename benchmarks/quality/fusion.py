"""Does hybrid fusion beat both of its sides on every collection, with either embedder?

Corpora: every collection of ``benchmarks/quality/corpora.py`` (answerable questions only);
the ``/usr/share/doc`` ones need the Debian packages that ship their pages (their
``benchmarks/data/NAME`` folders say which). For each corpus and embedder (``hashing``, ``minilm``) it builds
the index with docqa's own pipeline, asks the dense and the keyword retrievers for their best
``DEPTH`` rows per question (cached as JSON under the scratch folder, with each question's BM25
bound), then ranks them by each rule of ``RULES`` offline, the library's default
(``bounded_fusion`` at the embedder's own weight) among them. Figures are the harness's
recall@5 and MRR@10. ``--loco`` sweeps the dense weight of bounded fusion over a grid and, for
each corpus left out, picks the weight that loses least to the better side on the others (the
summed shortfall below ``max(dense, keyword)``, ties to the larger summed margin), then reports
it on the one left out. Run:

    .venv/bin/python benchmarks/quality/fusion.py [--corpora library,pydocs,...]
        [--embedders hashing,minilm] [--scratch /tmp/docqa-quality] [--loco] [--heading-weight N]

Rules: ``dense``, ``keyword``, ``rrf`` (k 60, top 20 of each), ``rrf-k10``, ``convex`` (min-max
per list), ``zscore`` (standardised per list, the embedder's weight), ``anchored`` (dense's top
20 reordered by bounded fusion) and ``bounded`` (the library's hybrid).
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import corpora

from docqa.build import IndexSettings, build_index
from docqa.collection import Collection
from docqa.embed import HashingEmbedder
from docqa.embed.minilm import MiniLMEmbedder
from docqa.eval import load_questions
from docqa.eval.metrics import recall_at, reciprocal_rank
from docqa.retrieve.fusion import (
    Fused,
    bounded_fusion,
    convex_fusion,
    dense_weight_for,
    reciprocal_rank_fusion,
)
from docqa.text.sections import HEADING_WEIGHT

DEPTH = 50
Scored = list[tuple[int, float]]


@dataclass(frozen=True)
class Case:
    """One question: its relevant sections, each side's ``(row, score)`` best first, and its
    BM25 bound (``BM25Index.max_scores``)."""

    relevant: tuple[str, ...]
    dense: Scored
    keyword: Scored
    bound: float


def candidates(
    name: str, embedder: str, scratch: Path, heading_weight: int = HEADING_WEIGHT
) -> tuple[list[Case], list[str]]:
    """Each answerable question's two ranked lists, and every row's section id, from an index
    whose BM25 rows count each heading path ``heading_weight`` times."""
    cached = scratch / f"cand-{name}-{embedder}.json"
    if cached.exists():
        data = json.loads(cached.read_text())
        return [_case(c) for c in data["cases"]], data["sections"]
    docs, questions_file = corpora.paths(name, scratch)
    index = scratch / f"index-{name}-{embedder}"
    if not (index / "manifest.json").exists():
        build_index([docs], index, IndexSettings(embedder=embedder, heading_weight=heading_weight))
    collection = Collection.open(index)
    dense = collection.retriever("dense", guard=False)
    keyword = collection.retriever("keyword", guard=False)
    cases = []
    for q in load_questions(questions_file):
        if q.answerable:
            lists = [
                [(h.row, h.score) for h in r.search(q.question, DEPTH)] for r in (dense, keyword)
            ]
            bound = float(collection.bm25.max_scores([q.question])[0])
            cases.append(Case(q.relevant, lists[0], lists[1], bound))
    sections = [c.section for c in collection.index.chunks]
    payload = {"cases": [c.__dict__ for c in cases], "sections": sections}
    cached.write_text(json.dumps(payload))
    return cases, sections


def _case(c: dict[str, Any]) -> Case:
    return Case(tuple(c["relevant"]), _pairs(c["dense"]), _pairs(c["keyword"]), float(c["bound"]))


def _pairs(rows: Sequence[Sequence[Any]]) -> Scored:
    return [(int(r), float(s)) for r, s in rows]


Rule = Callable[[Case, str], list[int]]


def rows_of(fused: Sequence[Fused]) -> list[int]:
    return [f.row for f in fused]


def dense_only(case: Case, _: str) -> list[int]:
    return [r for r, _ in case.dense]


def keyword_only(case: Case, _: str) -> list[int]:
    return [r for r, _ in case.keyword]


def rrf(case: Case, _: str) -> list[int]:
    lists = {"dense": [r for r, _ in case.dense[:20]], "keyword": [r for r, _ in case.keyword[:20]]}
    return rows_of(reciprocal_rank_fusion(lists, limit=10))


def rrf_small(case: Case, _: str) -> list[int]:
    """RRF with k = 10 over each side's whole list."""
    lists = {"dense": [r for r, _ in case.dense], "keyword": [r for r, _ in case.keyword]}
    return rows_of(reciprocal_rank_fusion(lists, rrf_k=10, limit=10))


def zscore(case: Case, embedder: str) -> list[int]:
    """Each side's scores standardised by its own list (mean, deviation), summed at the
    embedder's weight; a row a side did not return counts that side's lowest."""
    w = WEIGHTS[embedder]
    rows = {r for r, _ in case.dense} | {r for r, _ in case.keyword}
    total = dict.fromkeys(rows, 0.0)
    for side, weight in ((case.dense, w), (case.keyword, 1 - w)):
        if not side:
            continue
        values = [s for _, s in side]
        mean, sd = statistics.mean(values), statistics.pstdev(values) or 1.0
        z = {r: (s - mean) / sd for r, s in side}
        low = min(z.values())
        for r in rows:
            total[r] += weight * z.get(r, low)
    return sorted(rows, key=lambda r: (-total[r], r))[:10]


def dense_anchored(case: Case, embedder: str) -> list[int]:
    """Dense's best 20 reordered by bounded fusion, then the rest of dense's list."""
    top = case.dense[:20]
    kept = {r for r, _ in top}
    keyword = [(r, s) for r, s in case.keyword if r in kept]
    w = WEIGHTS[embedder]
    fused = bounded_fusion(top, keyword, keyword_bound=case.bound, dense_weight=w)
    return (rows_of(fused) + [r for r, _ in case.dense[20:]])[:10]


def convex(case: Case, _: str) -> list[int]:
    return rows_of(convex_fusion({"dense": case.dense, "keyword": case.keyword}, limit=10))


def bounded(weight: float | None = None) -> Rule:
    """The library's default; ``weight`` None: the embedder's own (``dense_weight_for``)."""

    def rule(case: Case, embedder: str) -> list[int]:
        w = WEIGHTS[embedder] if weight is None else weight
        fused = bounded_fusion(case.dense, case.keyword, keyword_bound=case.bound, dense_weight=w)
        return rows_of(fused[:10])

    return rule


WEIGHTS = {"hashing": dense_weight_for(HashingEmbedder), "minilm": dense_weight_for(MiniLMEmbedder)}
GRID = [round(0.1 * i, 1) for i in range(11)]

RULES: dict[str, Rule] = {
    "dense": dense_only,
    "keyword": keyword_only,
    "rrf": rrf,
    "rrf-k10": rrf_small,
    "convex": convex,
    "zscore": zscore,
    "anchored": dense_anchored,
    "bounded": bounded(),
}


def figures(
    cases: Sequence[Case], sections: Sequence[str], rule: Rule, embedder: str
) -> tuple[float, float]:
    """Mean recall@5 and MRR@10 of ``rule`` over ``cases``."""
    r5 = mrr = 0.0
    for case in cases:
        ranked = [sections[row] for row in rule(case, embedder)[:10]]
        r5 += recall_at(ranked, case.relevant, 5)
        mrr += reciprocal_rank(ranked, case.relevant, 10)
    return r5 / len(cases), mrr / len(cases)


Data = dict[tuple[str, str], tuple[list[Case], list[str]]]


def shortfall(data: Data, corpus: str, embedder: str, rule: Rule) -> tuple[float, float]:
    """How far ``rule`` falls below the better side (summed over R@5 and MRR@10; 0 if not),
    and its summed margin over the better side (negative when below)."""
    cases, sections = data[(corpus, embedder)]
    d, k, x = (figures(cases, sections, r, embedder) for r in (dense_only, keyword_only, rule))
    margins = [x[j] - max(d[j], k[j]) for j in (0, 1)]
    return sum(max(0.0, -m) for m in margins), sum(margins)


def cost(data: Data, corpora: Sequence[str], embedder: str, w: float) -> tuple[float, float]:
    """Summed shortfall of ``bounded(w)`` on ``corpora``, then minus its summed margin."""
    parts = [shortfall(data, c, embedder, bounded(w)) for c in corpora]
    return sum(p[0] for p in parts), -sum(p[1] for p in parts)


def loco(data: Data, corpora: Sequence[str], embedder: str) -> None:
    """For each corpus left out: the grid weight losing least on the others, then its figures."""
    for out in corpora:
        rest = [c for c in corpora if c != out]

        w = min(GRID, key=lambda w, rest=rest: cost(data, rest, embedder, w))
        cases, sections = data[(out, embedder)]
        r5, mrr = figures(cases, sections, bounded(w), embedder)
        short, margin = shortfall(data, out, embedder, bounded(w))
        print(
            f"  {embedder:8s} leave out {out:9s}: weight {w:.1f} -> R@5 {r5:.3f} MRR@10 {mrr:.3f} "
            f"(shortfall {short:.3f}, margin {margin:+.3f})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", default="library,pydocs,nodejs,debdocs,valgrind")
    parser.add_argument("--embedders", default="hashing,minilm")
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/docqa-quality"))
    parser.add_argument("--loco", action="store_true", help="leave-one-corpus-out weights")
    parser.add_argument(
        "--heading-weight",
        type=int,
        default=HEADING_WEIGHT,
        help="times a heading path counts in a BM25 row (give each its own --scratch)",
    )
    args = parser.parse_args()
    args.scratch.mkdir(parents=True, exist_ok=True)
    corpora, embedders = args.corpora.split(","), args.embedders.split(",")
    data: Data = {}
    print(
        f"R@5 / MRR@10  {'corpus':9s} {'embedder':8s} {'n':>4s} "
        + " ".join(f"{n:>13s}" for n in RULES)
    )
    for embedder in embedders:
        for name in corpora:
            data[(name, embedder)] = cases, sections = candidates(
                name, embedder, args.scratch, args.heading_weight
            )
            cells = [figures(cases, sections, rule, embedder) for rule in RULES.values()]
            row = " ".join(f"{r5:.3f} / {m:.3f}" for r5, m in cells)
            print(f"              {name:9s} {embedder:8s} {len(cases):4d} {row}", flush=True)
    if args.loco:
        print("leave-one-corpus-out dense weight of bounded fusion (grid 0.0..1.0):")
        for embedder in embedders:
            loco(data, corpora, embedder)


if __name__ == "__main__":
    main()
