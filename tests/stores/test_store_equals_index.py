"""A store answers as the file index built from the same documents: keyword (BM25), exact
dense and hybrid hits equal, ids and scores bit for bit, in canonical order, for every
evaluation question, in every tenant and under random row masks.

Corpora: ``examples/library``, a generated corpus whose folders are tenants, and the pydocs
evaluation set when ``shared/evalsets/pydocs`` lies beside the checkout (skipped otherwise).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_helpers import drop_database, new_database, url_for

from docqa.build import IndexSettings, build_index
from docqa.collection import Collection
from docqa.stores.load import index_to_store
from docqa.stores.pgvector import PgVectorStore
from docqa.types import Hit

ROOT = Path(__file__).resolve().parents[2]
PYDOCS = next(
    (p / "shared/evalsets/pydocs" for p in ROOT.parents if (p / "shared/evalsets").is_dir()),
    ROOT.parent / "shared/evalsets/pydocs",
)
MODES = ("keyword", "dense", "hybrid")
SETTINGS = IndexSettings(tenant_from_folder=True)
WORDS = [
    "loan",
    "renewal",
    "fine",
    "card",
    "garden",
    "rose",
    "room",
    "book",
    "late",
    "nine",
    "overdue",
    "hold",
    "printer",
    "scanner",
    "laptop",
    "wifi",
    "study",
    "quiet",
    "group",
    "meeting",
    "member",
    "child",
    "adult",
    "teen",
    "audio",
    "video",
    "magazine",
    "journal",
    "archive",
    "map",
    "census",
    "genealogy",
    "tax",
    "form",
    "notary",
    "passport",
    "exam",
    "tutor",
    "chess",
]


@dataclass
class Pair:
    """A file index and a store of the same documents, and the questions to ask both."""

    index: Any
    store: PgVectorStore
    questions: list[str]
    tenants: list[str]
    rows: dict[str, int]  # chunk id -> store row id


def _generated(folder: Path, seed: int = 5) -> tuple[Path, list[str]]:
    """Three tenant folders of markdown files drawn from ``WORDS`` (repeats, headings,
    duplicate passages: ties for the canonical order to break), and questions over them."""
    rng = random.Random(seed)
    for tenant in ("north", "south", "west"):
        for f in range(6):
            parts = []
            for s in range(rng.randint(1, 4)):
                words = rng.choices(WORDS, k=rng.randint(5, 120))
                parts.append(f"## {' '.join(rng.sample(WORDS, 2))} {s}\n\n{' '.join(words)}\n")
            if f == 0:
                parts.append("## Same\n\nloan renewal fine card\n")  # one passage in every file
            path = folder / tenant / f"doc{f}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"# {tenant} {f}\n\n" + "\n".join(parts), encoding="utf-8")
    questions = [" ".join(rng.choices(WORDS, k=rng.randint(1, 6))) for _ in range(40)]
    return folder, questions + ["loan renewal", "zebra", "the of", "garden garden rose"]


def _corpus(name: str, tmp: Path) -> tuple[Path, list[str]]:
    if name == "generated":
        return _generated(tmp / "docs")
    folder, questions = {
        "library": (ROOT / "examples/library", ROOT / "examples/questions.jsonl"),
        "pydocs": (PYDOCS / "corpus", PYDOCS / "questions.jsonl"),
    }[name]
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent")
    lines = questions.read_text(encoding="utf-8").splitlines()
    return folder, [json.loads(line)["question"] for line in lines if line.strip()]


@pytest.fixture(scope="module", params=["library", "generated", "pydocs"])
def pair(
    request: pytest.FixtureRequest, pg_server: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Pair]:
    tmp = tmp_path_factory.mktemp(request.param)
    docs, questions = _corpus(request.param, tmp)
    build_index([docs], tmp / "index", SETTINGS, workers=1)
    index = Collection.open(tmp / "index")
    name = new_database(pg_server)
    store = PgVectorStore(url_for(pg_server, dbname=name))
    try:
        index_to_store([docs], store, SETTINGS, hnsw=False)
        found = store.conn.execute("SELECT chunk_id, row_id FROM chunks").fetchall()
        tenants = [t for t in index.tenants() if t]
        yield Pair(index, store, questions, tenants, dict(found))
    finally:
        store.close()
        drop_database(pg_server, name)


def _same(a: list[Hit], b: list[Hit]) -> bool:
    return [(h.id, h.score) for h in a] == [(h.id, h.score) for h in b]


@pytest.mark.parametrize("mode", MODES)
def test_every_question_in_every_tenant_gets_the_file_indexs_hits(pair: Pair, mode: str) -> None:
    """Top-10 ids and scores equal (scores as floats: tolerance 0), for all rows and for each
    tenant; the store's hit rows are its own row ids of the same chunks."""
    differ, asked = [], 0
    for tenant in [None, *pair.tenants]:
        mine = pair.index.retriever(mode, guard=False, tenants=None if tenant is None else [tenant])
        theirs = pair.store.retriever(mode, tenant=tenant, guard=False)
        for question in pair.questions:
            want, got = mine.search(question, 10), theirs.search(question, 10)
            asked += 1
            differ += [] if _same(want, got) else [(tenant, question)]
            assert [h.row for h in got] == [pair.rows[h.id] for h in got]
    assert asked >= len(pair.questions) and differ == []


DB = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@DB
@given(data=st.data(), mode=st.sampled_from(MODES), k=st.integers(1, 30))
def test_random_questions_tenants_and_masks_get_the_file_indexs_hits(
    pair: Pair, data: st.DataObject, mode: str, k: int
) -> None:
    """Questions drawn from eval questions' words and random words, a random tenant and a
    random row mask (the same chunks on both sides): the same hits."""
    words = sorted({w for q in pair.questions for w in q.split()}) + WORDS + ["zebra"]
    question = " ".join(data.draw(st.lists(st.sampled_from(words), min_size=1, max_size=6)))
    tenant = data.draw(st.sampled_from([None, *pair.tenants]))
    n = len(pair.index.chunks)
    chosen = data.draw(st.none() | st.sets(st.integers(0, n - 1), max_size=n))
    file_mask = None if chosen is None else np.array(sorted(chosen), dtype=np.int64)
    store_mask = None
    if chosen is not None:
        store_mask = np.array([pair.rows[pair.index.chunks[i].id] for i in chosen], np.int64)
    if tenant is not None:
        allowed = pair.index.tenant_mask([tenant])
        file_mask = np.flatnonzero(allowed) if file_mask is None else file_mask[allowed[file_mask]]
    want = pair.index.retriever(mode, guard=False).search(question, k, mask=file_mask)
    got = pair.store.retriever(mode, tenant=tenant, guard=False).search(
        question, k, mask=store_mask
    )
    assert [(h.id, h.score) for h in got] == [(h.id, h.score) for h in want]
