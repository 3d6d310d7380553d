"""HashingEmbedder: bit-identical to the plain reference, edges, errors, threads, pickling."""

from __future__ import annotations

import pickle
import threading
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa import _tokenize
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
    with pytest.raises(ValueError, match="dim must be an int >= 1"):
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


def test_every_token_length_buckets_like_zlib() -> None:
    # The ASCII scanner hashes a token of up to 8 bytes in one padded step and longer ones 8
    # bytes at a time after a 1-8 byte head: cover every head length and several blocks.
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    tokens = [
        "".join(alphabet[(i * 7 + j) % 36] for j in range(n))
        for n in range(1, 41)
        for i in range(3)
    ]
    texts = [" ".join(tokens), *tokens]
    got = HashingEmbedder(2**16, stop_words=[], fold_plurals=False).embed(texts)
    assert (
        got.tobytes() == hashing_embed(texts, 2**16, stop_words=False, fold_plurals=False).tobytes()
    )
    for tok, row in zip(tokens, got[1:], strict=True):
        assert row.nonzero()[0].tolist() == [zlib.crc32(tok.encode()) % 2**16]


def test_every_ascii_byte_in_every_position_of_an_8_byte_step_matches_the_reference() -> None:
    texts = [
        f"{'q' * lead}{chr(c)}Ab{chr(c)}{chr(c)}s Zz09{chr(c)}the"
        for c in range(128)
        for lead in range(9)
    ]
    for stop_words, fold in ((True, True), (False, False)):
        got = HashingEmbedder(1024, stop_words=stop_words, fold_plurals=fold)
        want = hashing_embed(texts, 1024, stop_words=stop_words, fold_plurals=fold)
        assert got.embed(texts).tobytes() == want.tobytes()


@pytest.mark.parametrize("wide", ["é", "\u00a0", "\u2019", "東", "🎉"])
def test_non_ascii_characters_among_ascii_words_match_the_reference(wide: str) -> None:
    w = wide
    texts = [
        f"{w}Cafes and books",
        f"The caf{w}s sat, {w}{w} near{w}by x{w} {w}y; classes.{w}",
        f"Ab{w}Cd ef  {w}  GH-ij{w}{w}kl the mno{w}",
        f"{w}q{w} {'wordy ' * 30}{w}tail",
    ]
    want = hashing_embed(texts, 1024)
    assert HashingEmbedder(1024).embed(texts).tobytes() == want.tobytes()


def test_uneven_texts_give_the_same_bytes_on_every_thread_count() -> None:
    # A few long texts among many short ones: whichever thread claims a long text does far
    # more work per grain; every row must still be the one-thread row.
    texts = ["tiny note"] * 600 + ["a long report about library fines " * 400] * 6 + [""] * 50
    base = HashingEmbedder(64).embed(texts, n_threads=1)
    assert base[:606].any(axis=1).all() and not base[606:].any()
    for n in (2, 3, 5):
        assert HashingEmbedder(64).embed(texts, n_threads=n).tobytes() == base.tobytes()


def test_grain_covers_a_few_texts_and_whole_cache_lines() -> None:
    assert hashing._grain(256) == hashing.GRAIN_ROWS
    for dim in (1, 2, 3, 100, 2**16):
        g = hashing._grain(dim)
        assert g >= hashing.GRAIN_ROWS and g * 4 * dim >= hashing.GRAIN_BYTES


@pytest.mark.parametrize(
    ("start", "stop", "grain"), [(0, 100, 7), (5, 6, 10), (3, 3, 1), (0, 64, 16)]
)
def test_rows_hand_out_every_row_once_across_threads(start: int, stop: int, grain: int) -> None:
    rows = _tokenize.Rows(start, stop, grain)
    claims: list[list[tuple[int, int]]] = [[] for _ in range(4)]

    def drain(mine: list[tuple[int, int]]) -> None:
        while (got := rows.claim()) is not None:
            mine.append(got)

    threads = [threading.Thread(target=drain, args=(c,)) for c in claims]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = sorted(c for mine in claims for c in mine)
    assert [i for a, b in got for i in range(a, b)] == list(range(start, stop))
    assert all(0 < b - a <= grain for a, b in got)
    assert rows.claim() is None  # an exhausted Rows stays exhausted


def test_embed_rows_fills_only_the_rows_claimed() -> None:
    texts = ["cats and dogs", "library fines", "overdue books", "renewals"]
    out = np.zeros((4, 32), dtype=np.float32)
    rows = _tokenize.Rows(1, 3, 1)
    _tokenize.embed_hashing_rows(_tokenize.Batch(texts), rows, None, True, out)
    want = hashing_embed(texts, 32, stop_words=False)
    assert out[1:3].tobytes() == want[1:3].tobytes() and out[1:3].any()
    assert not out[0].any() and not out[3].any()
    assert rows.claim() is None


@pytest.mark.parametrize(("start", "stop", "grain"), [(-1, 3, 1), (4, 3, 1), (0, 3, 0)])
def test_rows_reject_bad_ranges(start: int, stop: int, grain: int) -> None:
    with pytest.raises(ValueError, match="row range|grain"):
        _tokenize.Rows(start, stop, grain)


def test_embed_rows_rejects_rows_beyond_the_batch() -> None:
    out = np.zeros((2, 8), dtype=np.float32)
    with pytest.raises(ValueError, match="bad row range 0:3"):
        _tokenize.embed_hashing_rows(
            _tokenize.Batch(["a", "b"]), _tokenize.Rows(0, 3, 1), None, True, out
        )


def test_pickle_round_trip_embeds_identically() -> None:
    e = HashingEmbedder(512, stop_words=["cat"], fold_plurals=False, n_threads=2)
    back = pickle.loads(pickle.dumps(e))
    assert back == e and back.name == e.name and back.n_threads == 2
    texts = ["the cats sat", "cat dogs"]
    assert back.embed(texts).tobytes() == e.embed(texts).tobytes()


def test_query_flag_changes_nothing() -> None:
    e = HashingEmbedder()
    assert e.embed(["a query"], query=True).tobytes() == e.embed(["a query"]).tobytes()


def test_one_row_is_pinned_literally() -> None:
    # Tokens after stop words and folding: renewal, renew, book, twice, renewal, dvd ("a",
    # "of", "once" are stop words); crc32 % 16 puts them in buckets 8, 4, 1, 11, 8, 15. A
    # change here silently invalidates every stored hashing index, so it is pinned by value.
    row = HashingEmbedder(16).embed(["Renewals: renew a book twice, renewals of DVDs once."])[0]
    want = np.zeros(16, dtype=np.float32)
    want[[1, 4, 11, 15]] = np.float32(1 / np.sqrt(8))
    want[8] = np.float32(2 / np.sqrt(8))
    assert row.tolist() == want.tolist()
