"""The guard's verdicts on every labelled question, pinned: the sample library's questions
(``examples/``) and, when ``shared/evalsets/pydocs`` lies beside the checkout, the Python docs'.

``guard_verdicts.json`` holds, per corpus, guard setting and mode, which questions pass (one
character per question, in file order) and the sha256 of every verdict's reasons. It was
recorded once from the code before the guard's rules were split into named functions and its
settings resolved in one place; rerecord it (``python tests/retrieve/test_guard_verdicts.py``)
only for a change meant to change verdicts, or for a reader's change that moves passages and
leaves every verdict the same (2026-12-07: an HTML table with no header row got a row of empty
cells, 14 of pydocs' 3,516 windows were cut a row later, and the floors' reasons quote their
scores; later that day a table cell's list items were read a word apart, pydocs' ``unittest``
table, and the floors' reasons moved again, every verdict the same). 2026-12-08, rerecorded
for a chunker change that moves passages: a section's last window of fewer than a sixth of a
window's words joins the window before it; at the 120 words recorded here pydocs' windows
moved and 4 of its 1,980 verdicts under the test settings changed (``bare/dense`` one
question refused, ``floors/dense`` one kept, ``floors/hybrid`` one kept and one refused),
every verdict of the default settings the same. The settings avoid MiniLM (the drift check
is judged by the index's own hashing embedder with a given ``max_drift``), so the figures
hold on any machine.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from docqa.build import IndexSettings, build_index
from docqa.collection import Collection
from docqa.eval.questions import load_questions
from docqa.retrieve.guard import GuardConfig, GuardedRetriever

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).with_name("guard_verdicts.json")
PYDOCS = [p / "shared" / "evalsets" / "pydocs" for p in (ROOT.parent, ROOT.parents[1])]
K = 5
# the window size the verdicts were recorded with (the default then): what is pinned is the
# guard's judgement of the same passages, not the chunker's default
RECORDED_WINDOW = 120
MODES = ("dense", "keyword", "hybrid")
CONFIGS = {
    "defaults": GuardConfig(drift_model="embedder"),  # drift: "not checked" (no threshold)
    "drift": GuardConfig(drift_model="embedder", max_drift=0.02),
    "unknown": GuardConfig(drift=False, unknown_from=0, min_coverage=0.3),
    "share": GuardConfig(drift=False, unknown_share_from=0),
    "floors": GuardConfig(drift=False, min_cosine=0.25, min_keyword=0.2),
    "bare": GuardConfig(
        drift=False, names=False, beyond_names=False, keyword_evidence=False, min_coverage=0.05
    ),
}


def corpora() -> dict[str, tuple[Path, Path]]:
    """Each corpus's documents and questions, pydocs only when it is there."""
    found = {"library": (ROOT / "examples" / "library", ROOT / "examples" / "questions.jsonl")}
    for pydocs in PYDOCS:
        if pydocs.is_dir():
            found["pydocs"] = (pydocs / "corpus", pydocs / "questions.jsonl")
            break
    return found


def verdicts(docs: Path, questions: Path, index: Path) -> dict[str, dict[str, str]]:
    """Per ``setting/mode``: the questions passed (``1``/``0`` in file order) and the sha256
    of the reasons of every verdict."""
    build_index([docs], index, IndexSettings(max_words=RECORDED_WINDOW))
    collection = Collection.open(index)
    asked = [q.question for q in load_questions(questions)]
    out = {}
    for name, config in CONFIGS.items():
        for mode in MODES:
            retriever = collection.retriever(mode, guard=config)
            assert isinstance(retriever, GuardedRetriever)
            passed, digest = [], hashlib.sha256()
            for question in asked:
                _, verdict = retriever.check(question, K)
                passed.append("1" if verdict.passed else "0")
                digest.update("\n".join(verdict.reasons).encode() + b"\0")
            out[f"{name}/{mode}"] = {"passed": "".join(passed), "reasons": digest.hexdigest()}
    return out


@pytest.mark.parametrize("corpus", sorted(corpora()))
def test_the_guard_gives_the_recorded_verdicts(corpus: str, tmp_path: Path) -> None:
    docs, questions = corpora()[corpus]
    expected = json.loads(FIXTURE.read_text(encoding="utf-8"))[corpus]
    assert verdicts(docs, questions, tmp_path / "index") == expected


if __name__ == "__main__":  # rerecord the fixture (see the module docstring)
    import tempfile

    recorded = {}
    for corpus, (docs, questions) in corpora().items():
        with tempfile.TemporaryDirectory() as tmp:
            recorded[corpus] = verdicts(docs, questions, Path(tmp) / "index")
    FIXTURE.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    sys.exit(0)
