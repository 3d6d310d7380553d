"""How often does the offline answer hold the key fact? Per collection, embedder and mode.

For every answerable question with ``must_contain`` it retrieves the top ``k`` passages with the
default guard (as ``docqa ask`` does), answers with the extractive model (judging meaning with
MiniLM when installed, unless ``--meaning none``) and counts the answer as right when it
holds every ``must_contain`` string (case-insensitive) in its own words (not inside a cited
id, as ``docqa eval --answers`` counts it); a refusal counts as wrong. It prints facts /
answerable with recall@5 and MRR@10 of the same retriever, per collection, and the mean over
the collections given. Retrieved passages are cached under
``--scratch`` (``prompts-*.json``), so a change to the answerer re-runs in seconds. Run:

    .venv/bin/python benchmarks/quality/answers.py [--corpora library,pydocs,...]
        [--embedders hashing,minilm] [--modes keyword,hybrid,hybrid+rescore,dense]
        [--scratch /tmp/docqa-quality] [-k 3] [--context window|section]

``hybrid+rescore`` is hybrid mode with MiniLM rescoring BM25's best 50 passages
(``docqa ask --rescore``), meant for a lexical index.
"""

from __future__ import annotations

import argparse
import functools
import json
from pathlib import Path
from typing import Any

from corpora import build, names

from docqa.answering import answer_hits
from docqa.collection import Collection
from docqa.context import SectionContext
from docqa.embed.choices import make_embedder
from docqa.embed.protocol import Embedder
from docqa.eval import load_questions
from docqa.eval.metrics import recall_at, reciprocal_rank
from docqa.models.extractive import ExtractiveModel, reply
from docqa.prompt import Passage, build_prompt, read_prompt
from docqa.support import without_citations
from docqa.types import Retriever

K = 3
CONTEXT = "window"


def retrievers(collection: Collection, mode: str) -> tuple[Retriever, Retriever]:
    """The guarded and the unguarded retriever of ``mode``; ``hybrid+rescore``: hybrid with
    MiniLM rescoring BM25's best passages (a model is loaded once per process)."""
    if mode == "hybrid+rescore":
        model = _minilm()
        return (
            collection.retriever("hybrid", rescore=model),
            collection.retriever("hybrid", guard=False, rescore=model),
        )
    return collection.retriever(mode), collection.retriever(mode, guard=False)


@functools.cache
def _minilm() -> Embedder:
    """MiniLM behind the persistent embedding cache (``DOCQA_CACHE_DIR``), as the CLI uses it."""
    return make_embedder("minilm")


def prompts(name: str, embedder: str, mode: str, scratch: Path) -> list[dict[str, Any]]:
    """Per answerable question: its text, must_contain, relevant sections, the sections of
    the top 10 unguarded hits, and the passages of the guarded top ``K`` (empty: refused),
    widened to their sections when ``CONTEXT`` is ``"section"`` (``docqa ask --context
    section``, its default budget)."""
    tail = ("" if K == 3 else f"-k{K}") + ("" if CONTEXT == "window" else f"-{CONTEXT}")
    cached = scratch / f"prompts-{name}-{embedder}-{mode}{tail}.json"
    if cached.exists():
        return list(json.loads(cached.read_text()))
    index, questions = build(name, embedder, scratch)
    collection = Collection.open(index)
    guarded, ranked = retrievers(collection, mode)
    widen = SectionContext(collection.index.chunks) if CONTEXT == "section" else None
    out = []
    for q in load_questions(questions):
        if not q.answerable:
            continue
        hits = answer_hits(guarded, q.question, K)  # the passages `docqa ask` reads
        hits = widen(hits) if widen is not None else hits
        shown = read_prompt(build_prompt(q.question, hits))[0] if hits else []
        out.append(
            {
                "question": q.question,
                "must_contain": list(q.must_contain),
                "relevant": list(q.relevant),
                "ranked": [h.section for h in ranked.search(q.question, 10)],
                "passages": [[p.id, p.title, p.text] for p in shown],
            }
        )
    cached.write_text(json.dumps(out))
    return out


def figures(
    cases: list[dict[str, Any]], meaning: Embedder | None
) -> tuple[float, float, float, int]:
    """recall@5, MRR@10 over all answerable questions; facts over those with must_contain."""
    r5 = sum(recall_at(c["ranked"], c["relevant"], 5) for c in cases) / len(cases)
    mrr = sum(reciprocal_rank(c["ranked"], c["relevant"], 10) for c in cases) / len(cases)
    labelled = [c for c in cases if c["must_contain"]]
    right = 0
    for c in labelled:
        passages = [Passage(*p) for p in c["passages"]]
        text = reply(c["question"], passages, meaning) if passages else ""
        text = without_citations(text).lower()
        right += all(s.lower() in text for s in c["must_contain"])
    return r5, mrr, right / max(1, len(labelled)), len(labelled)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", default=",".join(names()))
    parser.add_argument("--embedders", default="hashing")
    parser.add_argument("--modes", default="hybrid")
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/docqa-quality"))
    parser.add_argument("-k", type=int, default=3, help="passages in the prompt (docqa ask: 3)")
    parser.add_argument(
        "--context",
        choices=("window", "section"),
        default="window",
        help="what the answer reads: the retrieved windows, or their whole sections",
    )
    parser.add_argument(
        "--meaning",
        choices=("auto", "none"),
        default="auto",
        help="auto: the answer judges sentences' meaning with MiniLM when installed, as "
        "`docqa ask` does; none: by words alone (a bare install)",
    )
    args = parser.parse_args()
    global K, CONTEXT
    K, CONTEXT = args.k, args.context
    meaning = ExtractiveModel.auto().meaning if args.meaning == "auto" else None
    print(f"{'corpus':12s} {'embedder':8s} {'mode':8s} {'n':>4s}  R@5    MRR@10 facts")
    for embedder in args.embedders.split(","):
        for mode in args.modes.split(","):
            rows = []
            for name in args.corpora.split(","):
                cases = prompts(name, embedder, mode, args.scratch)
                r5, mrr, facts, n = figures(cases, meaning)
                rows.append((r5, mrr, facts))
                print(
                    f"{name:12s} {embedder:8s} {mode:8s} {n:4d}  {r5:.3f}  {mrr:.3f}  {facts:.3f}"
                )
            mean = [sum(r[j] for r in rows) / len(rows) for j in range(3)]
            print(
                f"{'mean':12s} {embedder:8s} {mode:8s} {'':4s}  "
                + "  ".join(f"{m:.3f}" for m in mean)
            )


if __name__ == "__main__":
    main()
