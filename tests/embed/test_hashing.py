"""HashingEmbedder: bit-identical to the plain reference, edges, errors, threads, pickling."""

from __future__ import annotations

import pickle
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa.embed import HashingEmbedder, hashing
from docqa.embed.reference import hashing_embed

WORDS = ["Cats", "policies", "the", "Müller", "naïve", "東京", "class", "and", "x1", "ΣΊΣΥΦΟΣ"]
texts_st = st.lists(
    st.one_of(st.text(), st.lists(st.sampled_from(WORDS)).map(" ".join)), max_size=6
)


def _assert_twin(dim: int, texts: list[str]) -> None:
    got = HashingEmbedder(dim).embed(texts)
    want = hashing_embed(texts, dim)
    assert got.shape == (len(texts), dim) and got.dtype == np.float32
    assert got.flags.c_contiguous
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dim", [1, 2, 256, 1024])
@settings(max_examples=60)
@given(texts=texts_st)
def test_rows_are_bit_identical_to_the_reference(dim: int, texts: list[str]) -> None:
    _assert_twin(dim, texts)


@settings(max_examples=12)  # the plain reference builds a 65536-long list per text
@given(texts=texts_st)
def test_rows_are_bit_identical_to_the_reference_at_dim_2_to_the_16(texts: list[str]) -> None:
    _assert_twin(2**16, texts)


@settings(max_examples=40)
@given(texts=texts_st, stops=st.sampled_from([False, True, ["cats", "東京"]]), fold=st.booleans())
def test_tokenizer_settings_match_the_reference(
    texts: list[str], stops: bool | list[str], fold: bool
) -> None:
    got = HashingEmbedder(64, stop_words=stops, fold_plurals=fold).embed(texts)
    assert got.tobytes() == hashing_embed(texts, 64, stop_words=stops, fold_plurals=fold).tobytes()


def test_rows_have_unit_length_or_are_zero() -> None:
    rows = HashingEmbedder().embed(["the cat sat on the mat", "", "the and of", "!!! ..."])
    assert np.linalg.norm(rows[0]) == pytest.approx(1.0, abs=1e-6)
    assert not rows[1:].any()
    assert not np.isnan(rows).any()


def test_known_row_by_hand() -> None:
    # "cats cat" folds to two "cat" tokens in one bucket: that bucket is exactly 1.
    row = HashingEmbedder(256).embed(["Cats cat"])[0]
    assert row[zlib.crc32(b"cat") % 256] == 1.0 and np.count_nonzero(row) == 1


def test_empty_list_gives_zero_rows_of_the_right_width() -> None:
    out = HashingEmbedder(32).embed([])
    assert out.shape == (0, 32) and out.dtype == np.float32


def test_a_10_mb_single_text() -> None:
    sentence = "Library loans renew online; fines accrue daily. "
    text = sentence * 210_000
    assert len(text) > 10_000_000
    got = HashingEmbedder(256, n_threads=2).embed([text, "short text"])
    counts = np.zeros(256)
    for token in ["library", "loan", "renew", "online", "fine", "accrue", "daily"]:
        counts[zlib.crc32(token.encode()) % 256] += 210_000
    want = (counts / np.sqrt((counts**2).sum())).astype(np.float32)
    assert got[0].tobytes() == want.tobytes()
    assert got[1].tobytes() == hashing_embed(["short text"], 256)[0].tobytes()


@pytest.mark.parametrize("bad", [[b"bytes"], ["ok", None], ["ok", 3]])
def test_non_str_items_raise_type_error_naming_the_index(bad: list[object]) -> None:
    with pytest.raises(TypeError, match=r"texts\[\d\]"):
        HashingEmbedder().embed(bad)  # type: ignore[arg-type]


def test_a_single_str_is_refused() -> None:
    with pytest.raises(TypeError, match="wrap it in a list"):
        HashingEmbedder().embed("one text")


@pytest.mark.parametrize("dim", [0, -3])
def test_dim_below_one_is_a_value_error(dim: int) -> None:
    with pytest.raises(ValueError, match="dim must be >= 1"):
        HashingEmbedder(dim)


@pytest.mark.parametrize("dim", [2.5, "256", True])
def test_dim_must_be_an_int(dim: object) -> None:
    with pytest.raises(TypeError, match="dim must be an int"):
        HashingEmbedder(dim)  # type: ignore[arg-type]


def test_bad_thread_count() -> None:
    with pytest.raises(ValueError, match="n_threads"):
        HashingEmbedder().embed(["x"], n_threads=0)


def test_every_thread_count_gives_the_same_bytes() -> None:
    texts = [f"document {i} about {'cats ' * (i % 7)} and 東京 number {i * 31}" for i in range(700)]
    base = HashingEmbedder(128).embed(texts, n_threads=1)
    assert base.any()
    for n in (2, 3, 8):
        assert HashingEmbedder(128, n_threads=n).embed(texts).tobytes() == base.tobytes()


def test_threads_split_by_characters_and_still_give_the_same_bytes() -> None:
    # A few long texts among many short ones: the split balances characters, so some thread
    # gets far fewer texts than another; every row must still be the one-thread row.
    texts = ["tiny note"] * 600 + ["a long report about library fines " * 400] * 6 + [""] * 50
    base = HashingEmbedder(64).embed(texts, n_threads=1)
    for n in (2, 3):
        assert HashingEmbedder(64).embed(texts, n_threads=n).tobytes() == base.tobytes()
    ranges = hashing._row_ranges([len(t) for t in texts], 2)
    assert ranges[0][0] == 0 and ranges[-1][1] == len(texts)
    assert all(a < b for a, b in ranges) and len(ranges) == 2
    sizes = [sum(len(t) for t in texts[a:b]) for a, b in ranges]
    assert max(sizes) < 0.7 * sum(sizes)  # by count the first half would hold 1%


def test_pickle_round_trip_embeds_identically() -> None:
    e = HashingEmbedder(512, stop_words=["cat"], fold_plurals=False, n_threads=2)
    back = pickle.loads(pickle.dumps(e))
    assert back == e and back.name == e.name and back.n_threads == 2
    texts = ["the cats sat", "cat dogs"]
    assert back.embed(texts).tobytes() == e.embed(texts).tobytes()


def test_query_flag_changes_nothing() -> None:
    e = HashingEmbedder()
    assert e.embed(["a query"], query=True).tobytes() == e.embed(["a query"]).tobytes()
