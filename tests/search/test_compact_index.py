"""``docqa index --storage int8``: the codes are stored, found on open, and give the same hits."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from docqa.build import IndexSettings, build_index
from docqa.cli.main import main
from docqa.collection import Collection
from docqa.errors import InputError
from docqa.index import open_index
from docqa.search import CompactMatrix, topk

LIBRARY = Path(__file__).resolve().parents[2] / "examples" / "library"
QUESTIONS = ["What does error RNW-409 mean?", "how long can I borrow a book", "fines"]


@pytest.mark.parametrize("embedder", ["hashing", "tfidf"])
def test_int8_index_gives_the_float32_hits(tmp_path: Path, embedder: str) -> None:
    plain = build_index([LIBRARY], tmp_path / "f32", IndexSettings(embedder=embedder)).path
    settings = IndexSettings(embedder=embedder, storage="int8")
    compact = build_index([LIBRARY], tmp_path / "i8", settings).path
    a, b = Collection.open(plain), Collection.open(compact)
    assert isinstance(b.dense_matrix(), CompactMatrix)
    assert isinstance(a.dense_matrix(), np.ndarray)
    mask = np.arange(len(a.chunks)) % 3 != 0
    for mode in ("dense", "hybrid"):
        for question in QUESTIONS:
            want = a.retriever(mode, guard=False).search(question, 5)
            assert b.retriever(mode, guard=False).search(question, 5) == want
        # batches read the int8 codes too, with and without a mask
        for m in (None, mask):
            want_batch = a.search_batch(QUESTIONS, 5, mode=mode, mask=m)
            assert b.search_batch(QUESTIONS, 5, mode=mode, mask=m) == want_batch
            assert all(want_batch)
    assert isinstance(b.row_searcher().dense_rows.matrix, CompactMatrix)
    index = open_index(compact)
    assert index.array("int8_codes").dtype == np.int8
    index.verify()  # the arrays are in the manifest with their checksums


def test_stored_codes_search_like_the_vectors(tmp_path: Path) -> None:
    path = build_index([LIBRARY], tmp_path / "i8", IndexSettings(storage="int8")).path
    matrix = Collection.open(path).dense_matrix()
    assert isinstance(matrix, CompactMatrix)
    rng = np.random.default_rng(0)
    qs = rng.standard_normal((12, matrix.shape[1])).astype(np.float32)
    vectors = np.asarray(open_index(path).vectors)
    for k in (1, 5, len(matrix) + 2):
        got, want = topk(matrix, qs, k), topk(vectors, qs, k)
        np.testing.assert_array_equal(got.ids, want.ids)
        np.testing.assert_array_equal(got.scores, want.scores)


def test_unknown_storage_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(InputError, match="unknown storage 'int4'; choose one of float32, int8"):
        IndexSettings(storage="int4")
    with pytest.raises(SystemExit) as exc:
        main(["index", str(LIBRARY), "--index", str(tmp_path / "x"), "--storage", "int4"])
    assert exc.value.code == 2
    assert "invalid choice: 'int4'" in capsys.readouterr().err


def test_cli_writes_int8_arrays(tmp_path: Path) -> None:
    assert main(["index", str(LIBRARY), "--index", str(tmp_path / "i"), "--storage", "int8"]) == 0
    arrays = open_index(tmp_path / "i").manifest.arrays
    assert {"int8_codes", "int8_scale", "int8_radius", "int8_code_norm"} <= set(arrays)


def test_a_damaged_bound_term_stops_the_search_and_the_advice_repairs_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "i8"
    assert main(["index", str(LIBRARY), "--index", str(index), "--storage", "int8"]) == 0
    radius = index / "arrays" / "int8_radius.npy"
    damaged = np.load(radius)
    damaged[3] = -np.inf  # a bound of -inf would let a search skip the row without a word
    np.save(radius, damaged)
    capsys.readouterr()
    assert main(["search", "fines", "--index", str(index)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert f"'int8_radius' ({radius}) row 3 holds" in err
    assert "`docqa verify`" in err
    repair = ["index", str(LIBRARY), "--index", str(index), "--storage", "int8", "--verify"]
    assert "`docqa index FOLDER --index DIR --storage int8 --verify` rebuilds it" in err
    assert main(repair) == 0
    assert main(["search", "fines", "--index", str(index)]) == 0
