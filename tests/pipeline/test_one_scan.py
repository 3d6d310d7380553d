"""One scan of a group's texts for both the hashing embedder and BM25
(``docqa.pipeline.work.vectors_and_postings``, through ``HashingEmbedder.embed_and_hash`` and
``docqa._tokenize.hash_and_embed_batch``) gives the same bytes as tokenizing them twice (the
twin ``vectors_and_postings_reference``: ``embed``, then ``postings_of``): on real chunk texts,
on generated texts (repeated words, stop words only, empty texts, non-ASCII, the characters
whose lowering is not per character), for dims that are and are not powers of two, and for an
embedder whose tokens differ from BM25's (then nothing is shared)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa import _tokenize
from docqa.embed.hashing import HashingEmbedder
from docqa.pipeline.work import (
    BM25_TOKENS,
    Postings,
    vectors_and_postings,
    vectors_and_postings_reference,
)
from docqa.text.documents import Document
from docqa.text.loaders import find_files, load_file
from docqa.text.records import chunk_records
from docqa.text.tokenize import hash_tokens, hash_tokens_and_embed, join_rows, native_batch

ROOT = Path(__file__).resolve().parents[2]
FIELDS = ("hashes", "rows", "tf", "lengths")


def assert_same(
    a: tuple[np.ndarray | None, Postings], b: tuple[np.ndarray | None, Postings]
) -> None:
    if a[0] is None or b[0] is None:
        assert a[0] is None and b[0] is None
    else:
        assert a[0].dtype == b[0].dtype == np.float32
        assert a[0].shape == b[0].shape
        assert a[0].tobytes() == b[0].tobytes()
    for name in FIELDS:
        x, y = getattr(a[1], name), getattr(b[1], name)
        assert x.dtype == y.dtype, name
        assert x.tobytes() == y.tobytes(), name


def library_texts() -> list[str]:
    files, _ = find_files([ROOT / "examples" / "library"])
    docs = [load_file(path, source) for path, source in files]
    return [t for d in docs if isinstance(d, Document) for t in chunk_records(d)[1]]


def test_library_texts_give_the_same_bytes() -> None:
    texts = library_texts()
    assert len(texts) > 20
    embedder = HashingEmbedder(256)
    got = vectors_and_postings(embedder, texts)
    assert_same(got, vectors_and_postings_reference(embedder, texts))
    assert got[0] is not None and np.count_nonzero(got[0]) > 0
    assert got[1].tf.sum() == got[1].lengths.sum() > 0


WORDS = st.sampled_from(
    ["loan", "loans", "fee", "the", "and", "日本", "é", "x1", "of", "", "İstanbul", "ΣΑΣ", "Fees"]
)
TEXTS = st.lists(
    st.one_of(st.lists(WORDS, max_size=30).map(" ".join), st.text(max_size=40)), max_size=12
)


@settings(max_examples=200, deadline=None)
@given(TEXTS, st.sampled_from([1, 7, 64, 100, 256]))
def test_generated_texts_give_the_same_bytes(texts: list[str], dim: int) -> None:
    embedder = HashingEmbedder(dim)
    assert_same(
        vectors_and_postings(embedder, texts), vectors_and_postings_reference(embedder, texts)
    )


@settings(max_examples=200, deadline=None)
@given(st.data(), TEXTS, st.sampled_from([7, 256]))
def test_more_keyword_text_per_row_gives_the_same_bytes(
    data: st.DataObject, texts: list[str], dim: int
) -> None:
    """The heading path again in each BM25 row (``more``): joined to the one scan's hashes
    (``join_rows``) as if each text and its ``more`` had been tokenized as one text; the
    vectors are the texts' alone."""
    more = data.draw(st.lists(st.sampled_from(["", "Loans > Fees", "日本 > the", "x1\n\nx1"]),
                              min_size=len(texts), max_size=len(texts)))  # fmt: skip
    embedder = HashingEmbedder(dim)
    got = vectors_and_postings(embedder, texts, more)
    assert_same(got, vectors_and_postings_reference(embedder, texts, more))
    rows = [f"{t}\n\n{m}" for t, m in zip(texts, more, strict=True)]
    joined = hash_tokens(rows, **BM25_TOKENS.as_kwargs())
    assert got[1].lengths.tolist() == np.diff(joined.offsets).tolist()
    if texts:
        assert got[0] is not None and got[0].tobytes() == embedder.embed(texts).tobytes()


@settings(max_examples=200, deadline=None)
@given(TEXTS, TEXTS)
def test_join_rows_is_the_hashes_of_the_joined_texts(first: list[str], then: list[str]) -> None:
    n = min(len(first), len(then))
    a, b = first[:n], then[:n]
    kw = BM25_TOKENS.as_kwargs()
    got = join_rows(hash_tokens(a, **kw), hash_tokens(b, **kw))
    want = hash_tokens([f"{x}\n\n{y}" for x, y in zip(a, b, strict=True)], **kw)
    assert got.offsets.tolist() == want.offsets.tolist()
    assert got.hashes.dtype == want.hashes.dtype and got.hashes.tobytes() == want.hashes.tobytes()


def test_join_rows_refuses_different_row_counts() -> None:
    with pytest.raises(ValueError, match="2 rows and 1 rows"):
        join_rows(hash_tokens(["a", "b"]), hash_tokens(["c"]))


@settings(max_examples=50, deadline=None)
@given(TEXTS)
def test_an_embedder_that_tokenizes_otherwise_shares_nothing(texts: list[str]) -> None:
    embedder = HashingEmbedder(64, stop_words=False)
    assert embedder.token_settings != BM25_TOKENS
    assert_same(
        vectors_and_postings(embedder, texts), vectors_and_postings_reference(embedder, texts)
    )
    assert vectors_and_postings(None, texts)[0] is None


@settings(max_examples=100, deadline=None)
@given(TEXTS, st.booleans(), st.booleans())
def test_one_scan_equals_the_two_native_passes(texts: list[str], stops: bool, fold: bool) -> None:
    embedder = HashingEmbedder(32, stop_words=stops, fold_plurals=fold)
    vectors, th = embedder.embed_and_hash(texts)
    assert vectors.tobytes() == embedder.embed(texts).tobytes()
    twice = hash_tokens(texts, stop_words=stops, fold_plurals=fold)
    assert th.hashes.tobytes() == twice.hashes.tobytes()
    assert th.offsets.tobytes() == twice.offsets.tobytes()


def test_a_wrong_output_array_is_refused() -> None:
    batch = native_batch(["a loan", "fees"])
    with pytest.raises(ValueError, match="rows for 2 texts"):
        hash_tokens_and_embed(batch, BM25_TOKENS, np.zeros((3, 8), np.float32))
    with pytest.raises(ValueError, match="dim must be >= 1"):
        _tokenize.hash_and_embed_batch(batch, None, False, np.zeros((2, 0), np.float32))
