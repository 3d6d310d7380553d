"""Does the guard transfer? Refusals per corpus and mode, constants chosen leaving a corpus out.

Corpora (each with answerable and unanswerable labelled questions):

- ``library``: ``examples/library`` with ``examples/questions.jsonl`` (32 + 6);
- ``pydocs``: the Python 3.11 HTML docs, ``../shared/evalsets/pydocs`` (95 + 15);
- ``nodejs``: 12 pages of the Node.js API docs shipped by Debian's ``nodejs`` package
  (``/usr/share/doc/nodejs/api``, pages in ``benchmarks/data/nodejs/pages.txt``) with
  ``benchmarks/data/nodejs/questions.jsonl`` (26 + 14), written before any score was seen.

For every ``min_coverage`` on a grid, with and without the unknown-term check, it reports the share
of unanswerable questions refused and of answerable ones kept, per corpus and mode (k = 5,
hashing embedder). Leave-one-corpus-out: for each corpus, the constant is the one that meets
the target (refuse >= 0.75, keep >= 0.90) in the most (corpus, mode) cells of the *other*
corpora, ties to the largest kept share; it is then reported on the left-out corpus. Run:

    .venv/bin/python benchmarks/guard_transfer.py [--corpora library,pydocs,nodejs]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from docqa.build import IndexSettings, build_index
from docqa.collection import MODES, Collection
from docqa.eval import Question, load_questions
from docqa.retrieve.guard import GuardConfig, judge
from docqa.types import Hit

ROOT = Path(__file__).resolve().parent.parent
NODE_DOCS = Path("/usr/share/doc/nodejs/api")
PYDOCS = next(
    (
        p / "shared" / "evalsets" / "pydocs"
        for p in ROOT.parents
        if (p / "shared" / "evalsets").is_dir()
    ),
    ROOT.parent / "shared" / "evalsets" / "pydocs",
)
GRID = [round(0.05 * i, 2) for i in range(13)]
TARGET_REFUSE, TARGET_KEEP = 0.75, 0.90
K = 5


def corpus_paths(name: str, scratch: Path) -> tuple[list[Path], Path]:
    """The documents and the questions file of corpus ``name``."""
    if name == "library":
        return [ROOT / "examples" / "library"], ROOT / "examples" / "questions.jsonl"
    if name == "pydocs":
        return [PYDOCS / "corpus"], PYDOCS / "questions.jsonl"
    pages = (ROOT / "benchmarks" / "data" / "nodejs" / "pages.txt").read_text().split()
    folder = scratch / "nodejs-docs"
    folder.mkdir(exist_ok=True)
    for page in pages:
        shutil.copy(NODE_DOCS / f"{page}.md", folder / f"{page}.md")
    return [folder], ROOT / "benchmarks" / "data" / "nodejs" / "questions.jsonl"


Cell = tuple[float, float, float]  # (unanswerable refused, answerable kept, kept when found)


def rates(
    collection: Collection, hits: dict[str, list[Hit]], qs: Sequence[Question], cfg: GuardConfig
) -> Cell:
    passed = {q.id: judge(q.question, hits[q.id], cfg, collection.bm25).passed for q in qs}
    una = [not passed[q.id] for q in qs if not q.answerable]
    ans = [passed[q.id] for q in qs if q.answerable]
    found = [passed[q.id] for q in qs if {h.section for h in hits[q.id]} & set(q.relevant)]
    return sum(una) / len(una), sum(ans) / len(ans), sum(found) / max(len(found), 1)


def table(corpora: Sequence[str], scratch: Path) -> dict[tuple[str, str, int | None, float], Cell]:
    """Every (corpus, mode, unknown_from, min_coverage) cell."""
    out = {}
    for name in corpora:
        docs, questions_file = corpus_paths(name, scratch)
        build_index(docs, scratch / f"{name}-index", IndexSettings())
        collection = Collection.open(scratch / f"{name}-index")
        qs = load_questions(questions_file)
        for mode in MODES:
            bare = collection.retriever(mode, guard=False)
            hits = {q.id: bare.search(q.question, K) for q in qs}
            for unknown in (None, 2000):
                for c in GRID:
                    cfg = GuardConfig(min_coverage=c, unknown_from=unknown)
                    out[name, mode, unknown, c] = rates(collection, hits, qs, cfg)
    return out


def meets(cell: Cell) -> bool:
    return cell[0] >= TARGET_REFUSE and cell[1] >= TARGET_KEEP


def choose(
    cells: dict[tuple[str, str, int | None, float], Cell], on: Sequence[str]
) -> tuple[int | None, float]:
    """The (unknown_from, min_coverage) meeting the target in most cells of corpora ``on``."""

    def score(key: tuple[int | None, float]) -> tuple[int, float]:
        picked = [cells[c, m, key[0], key[1]] for c in on for m in MODES]
        return sum(map(meets, picked)), sum(kept for _, kept, _ in picked)

    return max(((n, c) for n in (None, 2000) for c in GRID), key=score)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpora", default="library,pydocs,nodejs")
    corpora = parser.parse_args().corpora.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        cells = table(corpora, Path(tmp))
    default = GuardConfig()
    print(
        f"defaults (unknown_from={default.unknown_from}, min_coverage={default.min_coverage}), k={K}:"
    )
    print(
        "| corpus | mode | refused unanswerable | kept answerable | kept, relevant in top 5 | target |"
    )
    print("|---|---|---|---|---|---|")
    for c in corpora:
        for m in MODES:
            cell = cells[c, m, default.unknown_from, default.min_coverage]
            print(
                f"| {c} | {m} | {cell[0]:.2f} | {cell[1]:.2f} | {cell[2]:.2f} | {'met' if meets(cell) else 'NOT met'} |"
            )
    print("\nleave one corpus out (constants chosen on the others, reported on the one left out):")
    print("| left out | chosen on | unknown_from | min_coverage | dense | keyword | hybrid |")
    print("|---|---|---|---|---|---|---|")
    for held in corpora:
        rest = [c for c in corpora if c != held]
        unknown, cov = choose(cells, rest)
        shown = [cells[held, m, unknown, cov] for m in MODES]
        row = " | ".join(f"{u:.2f} / {k:.2f}" for u, k, _ in shown)
        print(f"| {held} | {'+'.join(rest)} | {unknown} | {cov} | {row} |")
    print("\n(cells: refused unanswerable / kept answerable)")
    print("\nsweep, unknown_from=None: min_coverage -> refused/kept per corpus and mode")
    for cov in GRID:
        line = "  ".join(
            f"{c[:4]}-{m[:3]} {cells[c, m, None, cov][0]:.2f}/{cells[c, m, None, cov][1]:.2f}"
            for c in corpora
            for m in MODES
        )
        print(f"{cov:4.2f}  {line}")


if __name__ == "__main__":
    main()
