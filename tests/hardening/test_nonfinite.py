"""Class 4: an index whose vectors hold NaN, inf or overflowing values is not searched without a
word. The kernels rank a NaN or ``+inf`` score first, so checking the k returned scores finds
every such row at no cost to the scan; an index search then stops with ``IndexCorrupt`` naming
``docqa verify`` and the rebuild."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from helpers import assert_one_line_error, docqa
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from docqa.build import build_index
from docqa.collection import Collection
from docqa.errors import IndexCorrupt, InputError
from docqa.retrieve import DenseRetriever
from docqa.search import topk
from docqa.search.reference import topk_reference

LIBRARY = Path(__file__).resolve().parents[2] / "examples" / "library"
QUESTION = "How long can I keep a book?"
DAMAGE = {
    "nan row": lambda v: v.__setitem__(5, np.nan),
    "inf row": lambda v: v.__setitem__(5, np.inf),
    "-inf row": lambda v: v.__setitem__(5, -np.inf),
    "one inf element": lambda v: v.__setitem__((5, 3), np.inf),
    "overflow": lambda v: v.__setitem__(5, np.float32(3e38)),
}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pristine")
    shutil.copytree(LIBRARY, root / "docs")
    build_index([root / "docs"], root / "ix")
    return root / "ix"


def damaged(pristine: Path, tmp_path: Path, how: str) -> Path:
    root = tmp_path / "ix"
    shutil.copytree(pristine, root)
    vectors = np.load(root / "vectors.npy", mmap_mode="r+")
    DAMAGE[how](vectors)
    vectors.flush()
    del vectors
    return root


@pytest.mark.parametrize("how", DAMAGE)
@pytest.mark.parametrize("mode", ["dense", "hybrid"])
def test_a_damaged_row_stops_every_index_search(
    pristine: Path, tmp_path: Path, how: str, mode: str
) -> None:
    root = damaged(pristine, tmp_path, how)
    collection = Collection.open(root)
    says = rf"the index at {root} gives row 5 a dense score of inf: .*`docqa verify --index {root}`"
    for guard in (True, False):
        with pytest.raises(IndexCorrupt, match=says):
            collection.retriever(mode, guard=guard).search(QUESTION, 3)
    with pytest.raises(IndexCorrupt, match=says):
        collection.search_batch([QUESTION] * 9, 3, mode=mode)  # the sgemm-filter path


def test_keyword_search_does_not_read_the_vectors(pristine: Path, tmp_path: Path) -> None:
    collection = Collection.open(damaged(pristine, tmp_path, "nan row"))
    assert collection.retriever("keyword", guard=False).search(QUESTION, 3)


def test_the_cli_says_verify_and_rebuild_in_one_line(pristine: Path, tmp_path: Path) -> None:
    damaged(pristine, tmp_path, "nan row")
    line = assert_one_line_error(docqa("search", QUESTION, "--index", "ix", cwd=tmp_path))
    assert "ix gives row 5 a dense score of inf: its files are damaged" in line
    assert "`docqa verify --index ix`" in line and "`docqa index FOLDER --index ix`" in line


def test_a_users_matrix_with_a_nan_row_is_an_input_error() -> None:
    from docqa import HashingEmbedder

    embedder = HashingEmbedder(16)
    matrix = embedder.embed(["books", "loans", "fines"])
    matrix[2] = np.nan
    from helpers import chunk

    retriever = DenseRetriever(embedder, matrix, [chunk(i, "x") for i in range(3)])
    with pytest.raises(InputError, match="row 2 has a dense score of inf: the matrix holds NaN"):
        retriever.search("books", 1)


@given(
    matrix=arrays(np.float32, st.tuples(st.integers(1, 40), st.just(4)), elements=st.floats(-4, 4)),
    bad_row=st.integers(0, 39),
    block=st.integers(1, 8),
)
def test_a_nan_row_is_always_in_the_top_one(matrix: np.ndarray, bad_row: int, block: int) -> None:
    matrix[bad_row % len(matrix)] = np.nan
    query = np.ones(4, np.float32)
    for got in (
        topk(matrix, query, 1),
        topk(matrix, query, 1, block_rows=block),
        topk(matrix, np.tile(query, (9, 1)), 1),
        topk_reference(matrix, query, 1),
    ):
        assert got.ids[0, 0] == np.flatnonzero(np.isnan(matrix).any(axis=1))[0]
        assert got.scores[0, 0] == np.inf
