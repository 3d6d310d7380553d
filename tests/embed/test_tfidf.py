"""TfidfEmbedder: a worked example, twin tests against the plain reference, state."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa.embed import NotFitted, TfidfEmbedder, from_config
from docqa.embed.reference import tfidf_embed, tfidf_fit
from docqa.errors import IndexCorrupt, InputError

WORDS = ["cat", "cats", "sat", "ran", "the", "policies", "Müller", "東京", "a1", "classes"]
texts_st = st.lists(
    st.one_of(st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join), st.text(max_size=30)),
    max_size=8,
)


def test_a_worked_example_by_hand() -> None:
    e = TfidfEmbedder().fit(["cat sat", "cat ran"])
    assert e.vocabulary == ["cat", "ran", "sat"]
    rows = e.embed(["cat sat", "cat ran"])
    np.testing.assert_allclose(rows[0], [0.580, 0.0, 0.815], atol=5e-4)
    query = e.embed(["sat"], query=True)[0]
    assert float(query @ rows[0]) == pytest.approx(0.815, abs=5e-4)
    assert float(query @ rows[1]) == 0.0


def test_unseen_words_are_ignored() -> None:
    e = TfidfEmbedder().fit(["cat sat", "cat ran"])
    assert e.embed(["dog sat"]).tobytes() == e.embed(["sat"]).tobytes()
    assert not e.embed(["dog bird", ""]).any()


@settings(max_examples=80)
@given(
    corpus=texts_st,
    queries=texts_st,
    stops=st.sampled_from([True, False, ["cat"]]),
    fold=st.booleans(),
)
def test_fit_and_embed_equal_the_reference(
    corpus: list[str], queries: list[str], stops: bool | list[str], fold: bool
) -> None:
    vocabulary, idf = tfidf_fit(corpus, stop_words=stops, fold_plurals=fold)
    e = TfidfEmbedder(stop_words=stops, fold_plurals=fold)
    if not vocabulary:
        with pytest.raises(InputError, match="no word"):
            e.fit(corpus)
        return
    e.fit(corpus)
    assert e.vocabulary == vocabulary  # the hash fast path names every term correctly
    assert e.idf.tolist() == idf
    for texts in (corpus, queries):
        want = tfidf_embed(texts, vocabulary, idf, stop_words=stops, fold_plurals=fold)
        got = e.embed(texts)
        assert got.shape == want.shape and got.dtype == np.float32 and got.flags.c_contiguous
        assert got.tobytes() == want.tobytes()


def test_sparse_rows_match_dense_rows() -> None:
    e = TfidfEmbedder().fit(["cat sat on mats", "cat ran", "dogs ran far"])
    sparse = e.embed_sparse(["far cat cat", "", "mat dog dog"])
    assert sparse.indptr.tolist()[0] == 0 and sparse.indptr.dtype == np.int64
    assert np.array_equal(sparse.dense(), e.embed(["far cat cat", "", "mat dog dog"]))
    # columns in first-occurrence order: "far" before "cat"
    cols = sparse.indices[sparse.indptr[0] : sparse.indptr[1]].tolist()
    assert cols == [e.vocabulary.index("far"), e.vocabulary.index("cat")]


def test_empty_inputs_and_stop_word_only_texts() -> None:
    e = TfidfEmbedder().fit(["cat sat", "cat ran"])
    assert e.embed([]).shape == (0, 3)
    assert not e.embed(["", "the and of it"]).any()
    with pytest.raises(InputError, match="no word"):
        TfidfEmbedder().fit(["the and of", ""])
    with pytest.raises(InputError, match="no word"):
        TfidfEmbedder().fit([])


def test_a_10_mb_single_text() -> None:
    text = "cats sat. " * 1_100_000
    e = TfidfEmbedder().fit([text, "dogs ran"])
    assert e.vocabulary == ["cat", "dog", "ran", "sat"]
    row = e.embed([text])[0]
    np.testing.assert_allclose(row, [2**-0.5, 0, 0, 2**-0.5], rtol=1e-6)


def test_unfitted_embedder_says_what_to_do() -> None:
    with pytest.raises(NotFitted, match="call fit"):
        TfidfEmbedder().embed(["x"])
    assert issubclass(NotFitted, InputError)
    assert "unfitted" in repr(TfidfEmbedder()) and not TfidfEmbedder().fitted


def test_non_str_input_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        TfidfEmbedder().fit(["ok", 5])  # type: ignore[list-item]
    e = TfidfEmbedder().fit(["cat"])
    with pytest.raises(TypeError, match="wrap it in a list"):
        e.embed("cat")


def test_state_round_trip_through_config() -> None:
    corpus = ["Müller's policies", "the cats of 東京", "cat policy"]
    e = TfidfEmbedder(fold_plurals=False).fit(corpus)
    state = {k: v.copy() for k, v in e.state().items()}
    assert {k: v.dtype for k, v in state.items()} == {
        "vocabulary_utf8": np.uint8,
        "vocabulary_offsets": np.int64,
        "idf": np.float64,
    }
    back = from_config(e.config(), state)
    assert isinstance(back, TfidfEmbedder) and back.name == e.name
    assert back.embed(corpus).tobytes() == e.embed(corpus).tobytes()
    assert TfidfEmbedder.from_state(state, e.config()).vocabulary == e.vocabulary


def test_name_tracks_the_fitted_state() -> None:
    a = TfidfEmbedder().fit(["cat sat", "cat ran"])
    b = TfidfEmbedder().fit(["cat sat", "dog ran"])
    assert a.name.startswith("tfidf-3-") and a.name.endswith("-v1") and a.name != b.name


def test_corrupt_state_is_reported() -> None:
    state = TfidfEmbedder().fit(["cat sat", "cat ran"]).state()
    with pytest.raises(IndexCorrupt, match="rebuild"):
        TfidfEmbedder.from_state({**state, "idf": state["idf"][:2]})
    with pytest.raises(IndexCorrupt, match="rebuild"):
        TfidfEmbedder.from_state({k: v for k, v in state.items() if k != "idf"})
    with pytest.raises(InputError, match="fitted state"):
        from_config(TfidfEmbedder().config())


def test_pickle_round_trip_embeds_identically() -> None:
    e = TfidfEmbedder().fit(["cat sat", "cat ran", "dogs ran"])
    back = pickle.loads(pickle.dumps(e))
    assert back.name == e.name
    assert back.embed(["cat dogs"]).tobytes() == e.embed(["cat dogs"]).tobytes()
