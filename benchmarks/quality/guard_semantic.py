"""Could a semantic embedder's scores refuse what term statistics cannot? Measured, not kept.

The lexical guard cannot tell "Can I bring my dog to the library?" from the library's
paraphrased answerable questions (``docs/notes/2026-12-guard.md``). With MiniLM, two signals are candidates:

- **top**: the best cosine between the question and any passage (an absolute threshold);
- **standout**: how far the best cosine stands above the question's cosines to every row,
  ``z = (best - mean) / std`` over the whole collection (a collection-relative threshold, in
  the spirit of query-performance predictors such as NQC).

For each corpus this prints, per threshold, the share of answerable questions *below* it (what
the rule would cost) and of unanswerable ones below it (what it would refuse on its own), on the
four guard corpora and on the two retrieval sets whose questions are all answerable (``debdocs``,
``valgrind``: how much it costs on collections no guard rule was designed on). Run (builds the
MiniLM indexes once under the scratch folder; the embedding cache makes re-runs quick):

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/quality/guard_semantic.py [--scratch DIR]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import corpora
import numpy as np

from docqa.build import IndexSettings, build_index
from docqa.collection import Collection
from docqa.eval import load_questions

GUARD_SETS = ("library", "pydocs", "nodejs", "valgrind-guard")
ANSWERABLE_ONLY = ("debdocs", "valgrind")
THRESHOLDS = {"top": (0.3, 0.35, 0.4, 0.45), "standout": (2.0, 2.5, 3.0, 3.5)}


def signals(name: str, scratch: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per signal: its value for the answerable and for the unanswerable questions."""
    docs, questions_file = corpora.paths(name, scratch)
    index = scratch / f"{name}-minilm"
    if not (index / "manifest.json").exists():
        build_index([docs], index, IndexSettings(embedder="minilm"))
    collection = Collection.open(index)
    assert isinstance(collection, Collection)
    questions = load_questions(questions_file)
    vectors = np.asarray(collection.index.vectors, dtype=np.float64)
    asked = collection.embedder.embed([q.question for q in questions])
    scores = np.asarray(asked, dtype=np.float64) @ vectors.T
    best = scores.max(axis=1)
    values = {"top": best, "standout": (best - scores.mean(axis=1)) / scores.std(axis=1)}
    answerable = np.array([q.answerable for q in questions])
    return {k: (v[answerable], v[~answerable]) for k, v in values.items()}


def below(values: np.ndarray, threshold: float) -> str:
    return f"{float((values < threshold).mean()):.2f}" if values.size else "-"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scratch", type=Path, default=None)
    scratch = parser.parse_args().scratch
    with tempfile.TemporaryDirectory() as tmp:
        folder = scratch or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        table = {name: signals(name, folder) for name in (*GUARD_SETS, *ANSWERABLE_ONLY)}
    for signal, thresholds in THRESHOLDS.items():
        print(f"\n{signal}: share of answerable / unanswerable questions below each threshold")
        print("| corpus | " + " | ".join(f"< {t}" for t in thresholds) + " |")
        print("|---|" + "---|" * len(thresholds))
        for name, values in table.items():
            ans, una = values[signal]
            cells = " | ".join(f"{below(ans, t)} / {below(una, t)}" for t in thresholds)
            print(f"| {name} | {cells} |")


if __name__ == "__main__":
    main()
