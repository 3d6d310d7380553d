"""Does the guard transfer? Refusals per corpus and mode, constants chosen leaving a corpus out.

Corpora (each with answerable and unanswerable labelled questions):

- ``library``: ``examples/library`` with ``examples/questions.jsonl`` (32 + 6);
- ``pydocs``: the Python 3.11 HTML docs, ``shared/evalsets/pydocs`` (95 + 15);
- ``nodejs``: 12 pages of the Node.js API docs shipped by Debian's ``nodejs`` package
  (``/usr/share/doc/nodejs/api``, pages in ``benchmarks/data/nodejs/pages.txt``) with
  ``benchmarks/data/nodejs/questions.jsonl`` (26 + 14), written before any score was seen;
- ``valgrind-guard``: 10 pages of the Valgrind HTML manual shipped by Debian's ``valgrind`` package
  (``/usr/share/doc/valgrind/html``, ``benchmarks/data/valgrind-guard/``; 22 + 12), questions
  written before any score was seen, after the guard's rules were designed.
- ``pipdocs``: the Markdown pages of pip's documentation shipped by Debian's ``python3-pip``
  package (``/usr/share/doc/python3-pip/html``, some gzipped and read as shipped;
  ``benchmarks/data/pipdocs/``; 22 + 12), questions written before any score was seen, in the
  eighth pass;
- ``libxslt``: 16 pages of libxslt's site and
  tutorials shipped by Debian's ``libxslt1-dev`` package (``/usr/share/doc/libxslt1-dev/html``,
  built of nested layout tables; ``benchmarks/data/libxslt/``, whose ``pages.txt`` lines are
  ``SOURCE TARGET`` below ``/usr/share/doc``; 28 + 12), questions written before any score was
  seen, in the sixteenth pass;
- ``textdocs``: five plain-text manuals as
  Debian ships them, gzipped (the Debian Python policy, the man-db manual, fontconfig's user
  guide, the xz file format, the libpng manual; ``benchmarks/data/textdocs/``; 28 + 12),
  questions written in the seventeenth pass after the drift check's threshold was chosen and
  before any score on them was seen; the labels are the sections the loader reads from the
  manuals' numbered and underlined headings (since later in that pass);
- ``textdocs2``: three more plain-text documents (the sed FAQ, the
  libjpeg manual, dpkg's triggers spec; ``benchmarks/data/textdocs2/``; 24 + 12), questions
  written in the seventeenth pass before any score on them was seen, after textdocs had shown
  the defaults' refusals falling short on long manuals;
- ``cmakedocs``: 80 pages of CMake's reStructuredText help (``/usr/share/cmake-3.25/Help``;
  ``benchmarks/data/cmakedocs/``, whose ``pages.txt`` lines are ``SOURCE TARGET`` with
  absolute sources; 40 + 14), questions written in the eighteenth pass before any score was
  seen;
- ``x11protos``: the ten plain-text X11 protocol extension specifications Debian's
  ``x11proto-dev`` ships (Composite, Damage, DRI2, DRI3, XFIXES, Present, RandR, Render,
  X-Resource, Xv; ``benchmarks/data/x11protos/``; 28 + 12), questions written in the
  twentieth pass before any score was seen, after MiniLM began judging the drift check
  beside hashing indexes;
- ``x11protos2``: nine of the same specs (``benchmarks/data/x11protos2/``; 28 + 12), questions
  a helper wrote from a brief alone before any score, measured after every change of the
  twentieth pass (``--corpora x11protos2``; not in the default list, which the pass's
  leave-one-out figures were taken over);
- ``sqlitedocs``: 41 pages of SQLite's HTML documentation shipped by Debian's ``sqlite3-doc``
  (the ``sqlite3`` shell's manual, the FAQ and the SQL reference pages;
  ``benchmarks/data/sqlitedocs/``, ``SOURCE TARGET`` lines below ``/usr/share/doc``; 20 + 6),
  questions a helper wrote from the pages before any score (``--corpora sqlitedocs``; not in
  the default list).

Each question is searched once per mode through ``Collection.retriever(mode).gather`` (k = 5,
hashing embedder): the mode's hits, and the passages the guard judges (those hits plus the
keyword side's best 5, ``keyword_evidence``). Every candidate setting (``min_coverage`` on a
grid, with and without the unknown-term check, with and without the keyword evidence) is then
judged on them. Reported: the share of unanswerable questions refused and of answerable ones
kept, per corpus and mode, for the defaults and for the guard judging the hits alone; and
leave-one-corpus-out: for each corpus, the setting meeting the target (refuse >= 0.75, keep >=
0.90) in the most (corpus, mode) cells of the *other* corpora, ties to the largest kept share,
reported on the corpus left out. Run:

    .venv/bin/python benchmarks/quality/guard_transfer.py \\
        [--corpora library,pydocs,nodejs,valgrind-guard]

``--embedder minilm`` builds the indexes with MiniLM (the ``minilm`` extra), whose guard adds
the drift check (``docqa.retrieve.drift``) on the stored rows. With the default hashing
indexes MiniLM judges that check beside them when it is installed (the guard's
``drift_model="auto"``), embedding the passages' texts. Whenever the drift check runs, the
script also prints the defaults without it. ``--scratch DIR`` keeps the indexes there for the
next run.
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from corpora import paths as corpus_paths

from docqa.build import IndexSettings, build_index
from docqa.collection import MODES, Collection
from docqa.eval import Question, load_questions
from docqa.retrieve import evidence
from docqa.retrieve.drift import Semantic
from docqa.retrieve.guard import (
    LARGE_VOCABULARY,
    GuardConfig,
    GuardedRetriever,
    guard_model,
    judge,
)
from docqa.types import Hit

GRID = [round(0.05 * i, 2) for i in range(13)]
UNKNOWN = (None, 2000)
EVIDENCE = (True, False)
TARGET_REFUSE, TARGET_KEEP = 0.75, 0.90
K = 5
CORPORA = (
    "library,pydocs,nodejs,valgrind-guard,pipdocs,libxslt,textdocs,textdocs2,cmakedocs,x11protos"
)

Setting = tuple[bool, int | None, float]  # (keyword_evidence, unknown_from, min_coverage)
Cell = tuple[float, float, float]  # (unanswerable refused, answerable kept, kept when found)


def config_of(setting: Setting) -> GuardConfig:
    evidence, unknown, cov = setting
    return GuardConfig(min_coverage=cov, unknown_from=unknown, keyword_evidence=evidence)


def rates(
    collection: Collection,
    gathered: dict[str, tuple[list[Hit], list[Hit]]],
    qs: Sequence[Question],
    cfg: GuardConfig,
    semantic: Semantic | None = None,
) -> Cell:
    """Refused / kept / kept-when-a-relevant-section-is-in-the-hits, judged as the guard does
    (with ``semantic``, the drift check too)."""
    seen = {q.id: gathered[q.id][1 if cfg.keyword_evidence else 0] for q in qs}
    passed = {
        q.id: judge(q.question, seen[q.id], cfg, collection.bm25, semantic).passed for q in qs
    }
    una = [not passed[q.id] for q in qs if not q.answerable]
    ans = [passed[q.id] for q in qs if q.answerable]
    hits = {q.id: gathered[q.id][0] for q in qs}
    found = [passed[q.id] for q in qs if {h.section for h in hits[q.id]} & set(q.relevant)]
    return sum(una) / len(una), sum(ans) / len(ans), sum(found) / max(len(found), 1)


def open_corpus(
    name: str, scratch: Path, embedder: str = "hashing", max_words: int | None = None
) -> tuple[Collection, list[Question]]:
    """The corpus's index (built with ``max_words`` when given, else the default) and its
    questions."""
    docs, questions_file = corpus_paths(name, scratch)
    index = scratch / f"{name}-{embedder}-index"
    sizes = {} if max_words is None else {"max_words": max_words}
    build_index([docs], index, IndexSettings(embedder=embedder, **sizes))  # no-op when up to date
    collection = Collection.open(index)
    assert isinstance(collection, Collection)  # one directory, not sharded
    return collection, load_questions(questions_file)


def gather(
    collection: Collection, mode: str, qs: Sequence[Question]
) -> tuple[dict[str, tuple[list[Hit], list[Hit]]], Semantic | None]:
    """Per question: the mode's hits and the passages the default guard judges; and the
    guard's drift side (None for a lexical embedder), its question embeddings memoized."""
    guarded = collection.retriever(mode, guard=GuardConfig())
    assert isinstance(guarded, GuardedRetriever)
    semantic = None if guarded.semantic is None else replace(guarded.semantic, memo={})
    return {q.id: guarded.gather(q.question, K) for q in qs}, semantic


Cells = dict[tuple[str, str, Setting], Cell]


def table(
    corpora: Sequence[str], scratch: Path, embedder: str = "hashing", max_words: int | None = None
) -> tuple[Cells, dict[tuple[str, str], Cell], Cells, dict[tuple[str, str], Cell]]:
    """Every (corpus, mode, setting) cell, the candidate rule's (corpus, mode) cells, the
    cells without the drift check (the same as the first when it never runs), and the
    defaults' (corpus, mode) cells with the unknown-share rule turned on (its measured
    opt-in size)."""
    out: Cells = {}
    candidate: dict[tuple[str, str], Cell] = {}
    lexical: Cells = {}
    with_share: dict[tuple[str, str], Cell] = {}
    for name in corpora:
        collection, qs = open_corpus(name, scratch, embedder, max_words)
        for mode in MODES:
            gathered, semantic = gather(collection, mode, qs)
            for setting in itertools.product(EVIDENCE, UNKNOWN, GRID):
                cfg = config_of(setting)
                out[name, mode, setting] = rates(collection, gathered, qs, cfg, semantic)
                lexical[name, mode, setting] = (
                    rates(collection, gathered, qs, cfg)
                    if semantic is not None
                    else out[name, mode, setting]
                )
            candidate[name, mode] = unknown_outweighs_cell(collection, gathered, qs)
            on = GuardConfig(unknown_share_from=LARGE_VOCABULARY)
            with_share[name, mode] = rates(collection, gathered, qs, on, semantic)
    return out, candidate, lexical, with_share


def unknown_outweighs_cell(
    collection: Collection,
    gathered: dict[str, tuple[list[Hit], list[Hit]]],
    qs: Sequence[Question],
) -> Cell:
    """A candidate rule measured and not adopted: the defaults, and also refuse when the
    question's words the collection never uses weigh more than the best passage holds."""
    bm25 = collection.bm25
    passed = {}
    for q in qs:
        seen = gathered[q.id][1]
        terms = evidence.question_terms(bm25, q.question)
        unknown = terms.weights[evidence.document_frequencies(bm25, terms.hashes) == 0].sum()
        share = float(unknown) / terms.mass if terms.mass > 0 else 0.0
        best = float(evidence.coverages(bm25, terms, seen).max()) if seen else 0.0
        passed[q.id] = judge(q.question, seen, GuardConfig(), bm25).passed and share <= best
    una = [not passed[q.id] for q in qs if not q.answerable]
    ans = [passed[q.id] for q in qs if q.answerable]
    return sum(una) / len(una), sum(ans) / len(ans), float("nan")


def meets(cell: Cell) -> bool:
    return cell[0] >= TARGET_REFUSE and cell[1] >= TARGET_KEEP


def choose(cells: dict[tuple[str, str, Setting], Cell], on: Sequence[str]) -> Setting:
    """The setting meeting the target in most cells of corpora ``on`` (ties: most kept)."""

    def score(setting: Setting) -> tuple[int, float]:
        picked = [cells[c, m, setting] for c in on for m in MODES]
        return sum(map(meets, picked)), sum(kept for _, kept, _ in picked)

    return max(itertools.product(EVIDENCE, UNKNOWN, GRID), key=score)


def print_cells(
    cells: dict[tuple[str, str, Setting], Cell], corpora: Sequence[str], setting: Setting
) -> None:
    print(
        "| corpus | mode | refused unanswerable | kept answerable | kept, relevant in top 5 | target |"
    )
    print("|---|---|---|---|---|---|")
    for c, m in itertools.product(corpora, MODES):
        u, k, f = cells[c, m, setting]
        print(
            f"| {c} | {m} | {u:.2f} | {k:.2f} | {f:.2f} | {'met' if meets((u, k, f)) else 'NOT met'} |"
        )


def print_leave_one_out(
    cells: dict[tuple[str, str, Setting], Cell], corpora: Sequence[str]
) -> None:
    print(
        "| left out | chosen on | keyword_evidence | unknown_from | min_coverage | dense | keyword | hybrid |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for held in corpora:
        rest = [c for c in corpora if c != held]
        setting = choose(cells, rest)
        row = " | ".join(
            f"{u:.2f} / {k:.2f}" for u, k, _ in (cells[held, m, setting] for m in MODES)
        )
        print(f"| {held} | {'+'.join(rest)} | {setting[0]} | {setting[1]} | {setting[2]} | {row} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpora", default=CORPORA)
    parser.add_argument("--embedder", default="hashing", choices=("hashing", "minilm"))
    parser.add_argument("--scratch", type=Path, default=None)
    parser.add_argument(
        "--max-words", type=int, default=None, help="the indexes' window size (default: docqa's)"
    )
    args = parser.parse_args()
    corpora = args.corpora.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.scratch or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        cells, candidate, lexical, with_share = table(
            corpora, folder, args.embedder, args.max_words
        )
    d = GuardConfig()
    default: Setting = (d.keyword_evidence, d.unknown_from, d.min_coverage)
    model = guard_model() if args.embedder == "hashing" else None
    beside = f"; the drift check judged beside it by {model.name}" if model is not None else ""
    print(f"{args.embedder} embedder{beside}")
    print(f"defaults (keyword_evidence, unknown_from, min_coverage) = {default}, k={K}:")
    print_cells(cells, corpora, default)
    print(f"\nthe defaults with the unknown-share rule (unknown_share_from={LARGE_VOCABULARY}):")
    print("| corpus | dense | keyword | hybrid |\n|---|---|---|---|")
    for c in corpora:
        row = " | ".join(f"{with_share[c, m][0]:.2f} / {with_share[c, m][1]:.2f}" for m in MODES)
        print(f"| {c} | {row} |")
    if lexical != cells:
        print("\nthe defaults without the drift check (the lexical checks alone):")
        print_cells(lexical, corpora, default)
    print("\nthe same, judged on the mode's hits alone (keyword_evidence=False):")
    print_cells(cells, corpora, replace_evidence(default))
    print("\nthe defaults, with unknown words counted as names (unknown_from=2000):")
    print_cells(cells, corpora, (default[0], 2000, default[2]))
    print("\nleave one corpus out (setting chosen on the others, reported on the one left out):")
    print_leave_one_out(cells, corpora)
    print("\n(cells: refused unanswerable / kept answerable)")
    print("\ncandidate, not a default: also refuse when unknown words outweigh the best passage")
    print("| corpus | dense | keyword | hybrid |\n|---|---|---|---|")
    for c in corpora:
        row = " | ".join(f"{candidate[c, m][0]:.2f} / {candidate[c, m][1]:.2f}" for m in MODES)
        print(f"| {c} | {row} |")
    print("\nsweep, defaults but min_coverage: refused/kept per corpus and mode")
    for cov in GRID:
        line = "  ".join(
            f"{c[:4]}-{m[:3]} {cells[c, m, (True, None, cov)][0]:.2f}/{cells[c, m, (True, None, cov)][1]:.2f}"
            for c, m in itertools.product(corpora, MODES)
        )
        print(f"{cov:4.2f}  {line}")


def replace_evidence(setting: Setting) -> Setting:
    return (not setting[0], setting[1], setting[2])


if __name__ == "__main__":
    main()
