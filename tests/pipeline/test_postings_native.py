"""The native BM25 counting (``docqa._tokenize.count_postings`` behind
``docqa.pipeline.work.postings_of``) gives the same arrays, dtypes and order as its numpy
twin ``postings_reference``: on real chunk texts, on generated texts with repeated words,
empty texts and stop words only, and on raw hash arrays with heavy repetition."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa import _tokenize
from docqa.pipeline.work import Postings, postings_of, postings_reference
from docqa.text.documents import Document
from docqa.text.loaders import find_files, load_file
from docqa.text.records import chunk_records

ROOT = Path(__file__).resolve().parents[2]
FIELDS = ("hashes", "rows", "tf", "lengths")


def assert_same(a: Postings, b: Postings) -> None:
    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype, name
        assert np.array_equal(x, y), name


def test_library_texts_count_the_same() -> None:
    files, _ = find_files([ROOT / "examples" / "library"])
    docs = [load_file(path, source) for path, source in files]
    texts = [t for d in docs if isinstance(d, Document) for t in chunk_records(d)[1]]
    assert len(texts) > 20
    got = postings_of(texts)
    assert_same(got, postings_reference(texts))
    assert got.tf.sum() == got.lengths.sum() > 0


WORDS = st.sampled_from(["loan", "loans", "fee", "the", "and", "日本", "é", "x1", "of", ""])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(WORDS, max_size=30).map(" ".join), max_size=12))
def test_generated_texts_count_the_same(texts: list[str]) -> None:
    assert_same(postings_of(texts), postings_reference(texts))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 6), max_size=20), max_size=10), st.booleans())
def test_raw_hashes_sort_by_hash_then_row(rows: list[list[int]], high: bool) -> None:
    # a few distinct values, large ones (the top bit set) and ones that share the table slot
    values = np.array([0, 1, 2**63, 2**64 - 1, 1 << 40, (1 << 40) + 1, 16], dtype=np.uint64)
    hashes = np.array([values[v] for row in rows for v in row], dtype=np.uint64)
    if high:
        hashes = hashes | np.uint64(1 << 63)
    offsets = np.cumsum([0, *map(len, rows)]).astype(np.int64)
    out_hashes, out_rows, out_tf = _tokenize.count_postings(hashes, offsets)
    got = list(
        zip(
            np.frombuffer(out_hashes, np.uint64).tolist(),
            np.frombuffer(out_rows, np.int32).tolist(),
            np.frombuffer(out_tf, np.int32).tolist(),
            strict=True,
        )
    )
    counts: dict[tuple[int, int], int] = {}
    for r in range(len(rows)):
        for h in hashes[offsets[r] : offsets[r + 1]]:
            counts[(int(h), r)] = counts.get((int(h), r), 0) + 1
    assert got == [(h, r, c) for (h, r), c in sorted(counts.items())]


def test_offsets_that_do_not_cover_the_hashes_are_refused() -> None:
    hashes = np.arange(3, dtype=np.uint64)
    with pytest.raises(ValueError, match="offsets"):
        _tokenize.count_postings(hashes, np.array([0, 2], dtype=np.int64))
    with pytest.raises(ValueError, match="offsets"):
        _tokenize.count_postings(hashes, np.array([], dtype=np.int64))


def test_no_texts_give_empty_postings() -> None:
    assert_same(postings_of([]), postings_reference([]))
    assert postings_of(["the and of", ""]).hashes.size == 0
