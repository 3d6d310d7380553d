"""Semantic rescoring: BM25's best passages ranked by a model's cosines fused with their BM25
scores, on an index built without the model."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from docqa_cli import docqa

from docqa.build import IndexSettings, build_index
from docqa.collection import Collection
from docqa.embed import HashingEmbedder, minilm
from docqa.retrieve.fusion import bounded_fusion
from docqa.retrieve.rerank import RERANK
from docqa.retrieve.rescore import SemanticRescorer
from docqa.shards.build import build_sharded
from docqa.shards.collection import ShardedCollection

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "examples" / "library"


class Meaning(HashingEmbedder):
    """A stand-in for a semantic model: hashing vectors of another width, declared semantic
    (``lexical`` False, so the model's dense weight applies), counting its calls."""

    lexical = False

    def __init__(self) -> None:
        super().__init__(64)
        self.embedded: list[str] = []

    def embed(self, texts: object, *, query: bool = False) -> np.ndarray:
        assert isinstance(texts, list)
        if not query:
            self.embedded.extend(texts)
        return super().embed(texts, query=query)


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> Collection:
    index = tmp_path_factory.mktemp("rescore") / "ix"
    build_index([LIBRARY], index, IndexSettings(embedder="hashing"))
    opened = Collection.open(index)
    assert isinstance(opened, Collection)
    return opened


QUESTIONS = [
    "How long can I keep a DVD?",
    "What happens when my fines reach fifteen dollars?",
    "Can I print in colour?",
    "renew online",
]


@pytest.mark.parametrize("question", QUESTIONS)
def test_rescored_order_is_bounded_fusion_of_cosines_and_bm25(
    collection: Collection, question: str
) -> None:
    model = Meaning()
    keyword = collection.retriever("keyword", guard=False).search(question, 20)
    hybrid = collection.retriever("hybrid", guard=False, rescore=model, rescore_top=20)
    got = hybrid.search(question, 5)
    query = model.embed([question], query=True)[0]
    texts = [collection.passage_text(h) for h in keyword]
    cos = [float(c) for c in model.embed(texts) @ query]
    dense = sorted(
        ((h.row, c) for h, c in zip(keyword, cos, strict=True)), key=lambda t: (-t[1], t[0])
    )
    bound = float(collection.bm25.max_scores([question])[0])
    want = bounded_fusion(dense, [(h.row, h.score) for h in keyword], keyword_bound=bound)
    assert [h.row for h in got] == [f.row for f in want[:5]]
    assert [h.score for h in got] == pytest.approx([f.score for f in want[:5]])
    assert all({"keyword", "dense", RERANK} <= set(h.components) for h in got)
    assert {h.row for h in got} <= {h.row for h in keyword}  # only what BM25 found


def test_each_passage_is_embedded_once_per_rescorer(collection: Collection) -> None:
    model = Meaning()
    rescorer = SemanticRescorer(model, collection.bm25, collection.passage_text)
    hits = collection.retriever("keyword", guard=False).search("renew a loan", 10)
    rescorer.rerank("renew a loan", hits)
    rescorer.rerank("renew a loan online", hits)
    assert len(model.embedded) == len(set(model.embedded)) == len(hits)
    assert rescorer.rerank("anything", []) == []


def test_a_sharded_collection_rescores_as_its_one_directory_index(
    collection: Collection, tmp_path: Path
) -> None:
    target = tmp_path / "shards"
    build_sharded([LIBRARY], target, IndexSettings(embedder="hashing"), shard_rows=7)
    sharded = Collection.open(target)
    assert isinstance(sharded, ShardedCollection)
    found = 0
    for question in QUESTIONS:  # behind the guard: its verdicts are compared too
        want = collection.retriever("hybrid", rescore=Meaning(), rescore_top=20).search(question, 5)
        got = sharded.retriever("hybrid", rescore=Meaning(), rescore_top=20).search(question, 5)
        assert [(h.id, h.score, h.components) for h in got] == [
            (h.id, h.score, h.components) for h in want
        ]
        found += len(want)
    assert found >= 2 * len(QUESTIONS)


def test_rescoring_leaves_other_modes_alone(collection: Collection) -> None:
    plain = collection.retriever("keyword", guard=False).search("renew online", 5)
    asked = collection.retriever("keyword", guard=False, rescore=Meaning()).search(
        "renew online", 5
    )
    assert [h.row for h in asked] == [h.row for h in plain]


needs_minilm = pytest.mark.skipif(not minilm.available(), reason="MiniLM is not installed")


@needs_minilm
def test_cli_rescore_on_a_hashing_index_and_refused_on_a_minilm_one(tmp_path: Path) -> None:
    lexical, semantic = tmp_path / "hashing", tmp_path / "minilm"
    for index, kind in ((lexical, "hashing"), (semantic, "minilm")):
        built = _docqa("index", str(LIBRARY), "--index", str(index), "--embedder", kind,
                       cwd=tmp_path)  # fmt: skip
        assert built.returncode == 0, built.stderr
    found = _docqa("search", "What is the loan period for board games?", "--index", str(lexical), "--rescore",
                   "--json", cwd=tmp_path)  # fmt: skip
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)["hits"]
    assert hits and all({"keyword", "dense", "rerank"} <= set(h["components"]) for h in hits)
    refused = _docqa("search", "renew", "--index", str(semantic), "--rescore", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.startswith("docqa: error: --rescore is for a lexical index")
    assert refused.stderr.count("\n") == 1


def _docqa(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return docqa(*args, cwd=cwd, timeout=300)
