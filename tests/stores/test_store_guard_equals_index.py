"""A store's guard judges as a file index's guard over the same documents and questions: the
same hits and the same verdict (passed or refused, every rule's line) in every mode and every
tenant, with the defaults and with the point ``docqa calibrate`` fits and stores on each side.

Corpora: ``examples/library`` (no tenants) and the pydocs evaluation set, its folders as
tenants, when ``shared/evalsets/pydocs`` lies beside the checkout (skipped otherwise).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from docqa_cli import docqa
from store_helpers import drop_database, new_database, url_for

from docqa.build import IndexSettings, build_index
from docqa.collection import Collection
from docqa.eval import Question, load_questions
from docqa.retrieve.guard import GuardedRetriever
from docqa.stores.load import index_to_store
from docqa.stores.pgvector import PgVectorStore
from docqa.types import Retriever

ROOT = Path(__file__).resolve().parents[2]
PYDOCS = next(
    (p / "shared/evalsets/pydocs" for p in ROOT.parents if (p / "shared/evalsets").is_dir()),
    ROOT.parent / "shared/evalsets/pydocs",
)
CORPORA = {
    "library": (ROOT / "examples/library", ROOT / "examples/questions.jsonl"),
    "pydocs": (PYDOCS / "corpus", PYDOCS / "questions.jsonl"),
}
MODES = ("keyword", "dense", "hybrid")
SETTINGS = IndexSettings(tenant_from_folder=True)
NO_DRIFT = {"drift": False}  # the drift check embeds every passage with MiniLM: one test has it


@dataclass
class Pair:
    index: Path
    url: str
    questions: list[Question]
    tenants: list[str | None]


@pytest.fixture(scope="module", params=sorted(CORPORA))
def pair(
    request: pytest.FixtureRequest, pg_server: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Pair]:
    docs, questions = CORPORA[request.param]
    if not docs.is_dir():
        pytest.skip(f"{docs} is absent")
    tmp = tmp_path_factory.mktemp(request.param)
    build_index([docs], tmp / "index", SETTINGS, workers=1)
    name = new_database(pg_server)
    url = url_for(pg_server, dbname=name)
    try:
        with PgVectorStore(url) as store:
            index_to_store([docs], store, SETTINGS, hnsw=False)
        tenants = [t for t in Collection.open(tmp / "index").tenants() if t]
        yield Pair(tmp / "index", url, load_questions(questions), [None, *tenants])
    finally:
        drop_database(pg_server, name)


def _verdicts(retriever: Retriever, questions: list[Question]) -> list[tuple[Any, ...]]:
    assert isinstance(retriever, GuardedRetriever)
    out = []
    for q in questions:
        hits, verdict = retriever.check(q.question, 5)
        out.append((q.question, [h.id for h in hits], verdict.passed, verdict.reasons))
    return out


def _compare(pair: Pair, mode: str, guard: Any, questions: list[Question]) -> list[bool]:
    """Assert both sides' verdicts equal in every tenant; the verdicts (passed or not)."""
    index = Collection.open(pair.index)
    passed = []
    with PgVectorStore(pair.url) as store:
        for tenant in pair.tenants:
            tenants = None if tenant is None else [tenant]
            mine = _verdicts(index.retriever(mode, guard=guard, tenants=tenants), questions)
            theirs = _verdicts(store.retriever(mode, tenant=tenant, guard=guard), questions)
            assert theirs == mine
            passed += [v[2] for v in mine]
    return passed


@pytest.mark.parametrize("mode", MODES)
def test_default_guard_verdicts_equal_the_file_indexs(pair: Pair, mode: str) -> None:
    passed = _compare(pair, mode, NO_DRIFT, pair.questions)
    assert any(passed) and not all(passed)  # answerable and unanswerable both judged


def test_the_drift_check_judges_alike(pair: Pair) -> None:
    if len(pair.tenants) > 1:
        pytest.skip("one collection is enough for the drift check")
    _compare(pair, "hybrid", True, pair.questions[:12] + pair.questions[-6:])


def test_calibrated_points_and_verdicts_equal_the_file_indexs(pair: Pair, tmp_path: Path) -> None:
    """``docqa calibrate`` on each side stores the same point; each side's retrievers read
    their own (the guard changes below are made over it) and judge alike."""
    if len(pair.tenants) > 1:
        pytest.skip("the calibration runs on one collection (it judges every question)")
    questions = str(CORPORA["library"][1])
    common = ("calibrate", questions, "--mode", "keyword", "--min-kept", "0.5", "--json")
    mine = docqa(*common, "--index", str(pair.index), cwd=tmp_path, timeout=300)
    theirs = docqa(*common, "--store", pair.url, cwd=tmp_path, timeout=300)
    assert mine.returncode == 0 and theirs.returncode == 0, mine.stderr + theirs.stderr
    assert json.loads(theirs.stdout) == json.loads(mine.stdout)
    point = json.loads(mine.stdout)["guard"]
    manifest = json.loads((pair.index / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["meta"]["guard"] == point
    with PgVectorStore(pair.url) as store:
        record = store.record()
        assert record is not None and record.guard == point
    assert Collection.open(pair.index).guard.min_coverage == point["min_coverage"]
    for mode in MODES:
        _compare(pair, mode, NO_DRIFT, pair.questions)
