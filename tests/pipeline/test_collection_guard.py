"""``Collection.retriever(mode, guard=...)``: one argument for the guard, calibrated or not."""

from __future__ import annotations

from pathlib import Path

import pytest

from docqa.build import build_index
from docqa.collection import Collection
from docqa.errors import IndexCorrupt, InputError
from docqa.index.meta import update_meta
from docqa.retrieve import GuardConfig, GuardedRetriever, HybridRetriever
from docqa.retrieve.distinct import DistinctRetriever

LIBRARY = Path(__file__).resolve().parents[2] / "examples" / "library"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("coll") / "ix"
    build_index([LIBRARY], path)
    return path


def test_guard_argument(root: Path) -> None:
    collection = Collection.open(root)
    assert collection.guard == GuardConfig()
    default = collection.retriever("hybrid")
    assert isinstance(default, GuardedRetriever) and default.config == GuardConfig()
    own = collection.retriever("dense", guard=GuardConfig(min_coverage=0.5))
    assert isinstance(own, GuardedRetriever) and own.config.min_coverage == 0.5
    # no guard: the hybrid retriever itself, each passage once (docqa.retrieve.distinct)
    bare = collection.retriever("hybrid", guard=False)
    assert isinstance(bare, DistinctRetriever) and isinstance(bare.inner, HybridRetriever)
    with pytest.raises(InputError, match="guard must be True, False or a GuardConfig"):
        collection.retriever("hybrid", guard=0.5)  # type: ignore[arg-type]
    question = "Does the library sell second-hand cars?"
    assert collection.retriever("keyword").search(question, 5) == []
    assert collection.retriever("keyword", guard=False).search(question, 5)


def test_open_picks_up_stored_settings(root: Path, tmp_path: Path) -> None:
    update_meta(root, "guard", GuardConfig(min_coverage=0.9).to_dict())
    try:
        collection = Collection.open(root)
        assert collection.guard.min_coverage == 0.9
        guarded = collection.retriever("keyword")
        assert isinstance(guarded, GuardedRetriever) and guarded.config.min_coverage == 0.9
        update_meta(root, "guard", {"min_coverage": 0.1, "rule": "all"})
        with pytest.raises(IndexCorrupt, match="re-run `docqa calibrate QUESTIONS --index DIR`"):
            Collection.open(root)
    finally:
        update_meta(root, "guard", GuardConfig().to_dict())
