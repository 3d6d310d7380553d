"""Fit the extractive answer's sentence weights, and say how they do on collections left out.

For every answerable question with ``must_contain`` (the passages ``docqa ask`` would read,
cached by ``answers.py``), each quotable unit of the prompt is described by
``extractive.FEATURES`` and labelled by whether quoting it says a ``must_contain`` string (in
its text, or in the heading its passage's run opens with). A conditional logit (a softmax over
the units of one question, L2 penalty 1) is fitted by Newton's method: the weights under which
the units holding the fact are the likeliest picks.

Two sets of weights: by words alone (hashing index, no meaning model) and with MiniLM judging
meaning (the prompts of a MiniLM index and of a hashing index, pooled; each reported apart).
Leave-one-corpus-out: each collection's facts are measured with weights fitted on the other
collections only, beside the weights in ``extractive.WEIGHTS`` (what ``docqa ask`` uses now)
and beside the oracle (some quotable unit holds the fact). The prompts of a hashing index with
``--rescore`` are measured, not fitted on. Last, the weights fitted on every collection, to
paste into ``extractive.WEIGHTS``. Run (after ``answers.py`` has cached the prompts):

    .venv/bin/python benchmarks/quality/sentences.py [--corpora library,pydocs,...]
        [--context window|section]

``--context section``: the prompts read whole sections (``answers.py --context section``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import answers
import numpy as np
from answers import prompts
from corpora import names

from docqa.embed.protocol import Embedder
from docqa.models.extractive import (
    FEATURES,
    WEIGHTS,
    Candidates,
    ExtractiveModel,
    candidates,
    heading,
    pick,
    quote,
)
from docqa.prompt import Passage
from docqa.support import without_citations

L2 = 1.0
Case = tuple[Candidates, list[Passage], list[str]]


def cases(
    name: str, embedder: str, mode: str, scratch: Path, meaning: Embedder | None
) -> list[Case | None]:
    """Per labelled question: its candidates, passages and lower-cased ``must_contain``
    (None: refused, or no unit may be quoted: no passage holds enough of the question, or by
    words alone no unit holds a question word)."""
    out: list[Case | None] = []
    for c in prompts(name, embedder, mode, scratch):
        if not c["must_contain"]:
            continue
        passages = [Passage(*p) for p in c["passages"]]
        found = candidates(c["question"], passages, meaning) if passages else None
        must = [s.lower() for s in c["must_contain"]]
        out.append(None if found is None else (found, passages, must))
    return out


def labels(case: Case) -> np.ndarray:
    """Per quotable unit, whether quoting it says a must_contain string: its text, or the
    heading its passage's run opens with (:func:`docqa.models.extractive.heading`)."""
    found, passages, must = case
    said = [
        f"{heading(passages[found.found[i].passage].title)} {found.found[i].text}".lower()
        for i in found.order
    ]
    return np.array([any(m in s for m in must) for s in said])


def fit(groups: list[Case | None]) -> np.ndarray:
    """The conditional logit's weights over the questions with a unit holding the fact."""
    data = [(c[0].features, labels(c)) for c in groups if c is not None]
    data = [(x, y / y.sum()) for x, y in data if y.any() and len(y) > 1]
    w = np.zeros(len(FEATURES))
    for _ in range(100):
        grad, hess = -L2 * w, -L2 * np.eye(len(w))
        for x, target in data:
            s = x @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            grad += x.T @ (target - p)
            mean = x.T @ p
            hess -= (x.T * p) @ x - np.outer(mean, mean)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w


def facts(groups: list[Case | None], w: np.ndarray) -> float:
    """Share of the questions whose reply under weights ``w`` says every must_contain."""
    right = 0
    for c in groups:
        if c is not None:
            found, passages, must = c
            said = without_citations(quote(pick(found, found.features @ w), passages)).lower()
            right += all(m in said for m in must)
    return right / max(1, len(groups))


def oracle(groups: list[Case | None]) -> float:
    return sum(c is not None and labels(c).any() for c in groups) / max(1, len(groups))


def report(
    title: str, sets: dict[str, list[list[Case | None]]], shipped: np.ndarray, fitted: int
) -> None:
    """Per collection and prompt set: facts with the shipped weights, with weights fitted
    without the collection, and the oracle; then the means. Only the first ``fitted`` sets
    of each collection are fitted on; the others are measured only."""
    kinds = len(next(iter(sets.values())))
    print(f"\n{title}\n{'corpus':12s} set    n  shipped  left-out  oracle")
    rows: list[list[tuple[float, float, float]]] = [[] for _ in range(kinds)]
    for name, groups in sets.items():
        w = fit([c for other, gs in sets.items() if other != name for g in gs[:fitted] for c in g])
        for j, mine in enumerate(groups):
            row = (facts(mine, shipped), facts(mine, w), oracle(mine))
            rows[j].append(row)
            print(
                f"{name:12s} {j:3d} {len(mine):4d}  {row[0]:.3f}    {row[1]:.3f}     {row[2]:.3f}"
            )
    for j in range(kinds):
        mean = np.mean(rows[j], axis=0)
        print(f"{'mean':12s} {j:3d}       {mean[0]:.3f}    {mean[1]:.3f}     {mean[2]:.3f}")
    every = fit([c for gs in sets.values() for g in gs[:fitted] for c in g])
    print("fitted on every collection:", ", ".join(f"{x:.2f}" for x in every))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", default=",".join(names()))
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/docqa-quality"))
    parser.add_argument("--context", choices=("window", "section"), default="window")
    args = parser.parse_args()
    answers.CONTEXT = args.context
    corpora = args.corpora.split(",")
    model = ExtractiveModel.auto().meaning
    words: dict[str, Any] = {
        n: [cases(n, "hashing", "hybrid", args.scratch, None)] for n in corpora
    }
    report("by words alone (set 0: hashing index)", words, np.array(WEIGHTS[False]), 1)
    if model is None:
        print("\nMiniLM is not installed: no weights with meaning")
        return
    sources = (("minilm", "hybrid"), ("hashing", "hybrid"), ("hashing", "hybrid+rescore"))
    both = {n: [cases(n, e, m, args.scratch, model) for e, m in sources] for n in corpora}
    title = (
        "with MiniLM judging meaning (set 0: MiniLM index, 1: hashing index, both fitted on;"
        " 2: hashing index with --rescore, measured only)"
    )
    report(title, both, np.array(WEIGHTS[True]), 2)


if __name__ == "__main__":
    main()
