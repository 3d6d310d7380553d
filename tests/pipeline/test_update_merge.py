"""An update's BM25 merge (``docqa.pipeline.reuse``) against its reference: every kept old
posting renumbered and every new one, ordered by ``np.lexsort`` on (hash, row)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa.pipeline.reuse import OldPostings, merge_slice

TERMS = [np.uint64(t * (1 << 58) + 7) for t in range(12)]  # spread over the hash space


@st.composite
def update(draw: st.DrawFn) -> tuple[OldPostings, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """An old CSR over ``n_old`` rows, which of them are kept (renumbered in order, new rows
    interleaved between them), and the new rows' postings sorted by (hash, row)."""
    n_old = draw(st.integers(0, 30))
    kept = draw(st.lists(st.booleans(), min_size=n_old, max_size=n_old))
    # the new index's rows: kept old rows in order, new rows anywhere between them
    layout = draw(st.permutations([("old", i) for i in range(n_old) if kept[i]]
                                  + [("new", j) for j in range(draw(st.integers(0, 15)))]))  # fmt: skip
    olds = sorted(i for kind, i in layout if kind == "old")
    slots = iter(olds)
    order = [(kind, next(slots) if kind == "old" else i) for kind, i in layout]
    remap = np.full(n_old, -1, np.int64)
    new_rows = []
    for row, (kind, i) in enumerate(order):
        if kind == "old":
            remap[i] = row
        else:
            new_rows.append(row)
    terms = st.sampled_from(range(len(TERMS)))
    old_pairs = {(draw(terms), r) for r in range(n_old) for _ in range(draw(st.integers(0, 3)))}
    new_pairs = {(draw(terms), r) for r in new_rows for _ in range(draw(st.integers(0, 3)))}
    vocab = sorted({t for t, _ in old_pairs})
    pairs = sorted(old_pairs)
    indptr = np.searchsorted([t for t, _ in pairs], vocab + [len(TERMS)]).astype(np.int64)
    old = OldPostings(
        np.array([TERMS[t] for t in vocab], np.uint64),
        indptr,
        np.array([r for _, r in pairs], np.int32),
        np.arange(1, len(pairs) + 1, dtype=np.int32),  # tf: tells postings apart
        remap,
    )
    new = sorted(new_pairs)
    return old, (
        np.array([TERMS[t] for t, _ in new], np.uint64),
        np.array([r for _, r in new], np.int32),
        np.arange(100, 100 + len(new), dtype=np.int32),
    )


def reference(
    old: OldPostings, new: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> list[tuple[int, int, int]]:
    df = np.diff(old.indptr)
    hashes = np.concatenate([np.repeat(old.vocab, df), new[0]])
    rows = np.concatenate([old.remap[old.rows], new[1]])
    tf = np.concatenate([old.tf, new[2]])
    keep = rows >= 0
    hashes, rows, tf = hashes[keep], rows[keep], tf[keep]
    order = np.lexsort((rows, hashes))
    return list(zip(hashes[order].tolist(), rows[order].tolist(), tf[order].tolist(), strict=True))


@settings(max_examples=300, deadline=None)
@given(update())
def test_merge_equals_lexsort(case: tuple[OldPostings, tuple[np.ndarray, ...]]) -> None:
    old, new = case
    vocab, counts, rows, tf = merge_slice(old, 0, old.vocab.size, new)  # type: ignore[arg-type]
    assert (vocab.dtype, rows.dtype, tf.dtype) == (np.uint64, np.int32, np.int32)
    assert np.all(counts > 0) and np.all(np.diff(vocab) > 0)
    hashes = np.repeat(vocab, counts)
    got = list(zip(hashes.tolist(), rows.tolist(), tf.tolist(), strict=True))
    assert got == reference(old, new)  # type: ignore[arg-type]


def test_merge_of_nothing_and_of_no_new_postings() -> None:
    empty = (np.zeros(0, np.uint64), np.zeros(0, np.int32), np.zeros(0, np.int32))
    none = OldPostings(np.zeros(0, np.uint64), np.zeros(1, np.int64), np.zeros(0, np.int32),
                       np.zeros(0, np.int32), np.zeros(0, np.int64))  # fmt: skip
    assert all(a.size == 0 for a in merge_slice(none, 0, 0, empty))
    vocab, counts, rows, tf = merge_slice(
        none,
        0,
        0,
        (np.array([3, 3], np.uint64), np.array([0, 1], np.int32), np.array([1, 2], np.int32)),
    )
    assert (vocab.tolist(), counts.tolist(), rows.tolist(), tf.tolist()) == (
        [3],
        [2],
        [0, 1],
        [1, 2],
    )
    old = OldPostings(np.array([5, 9], np.uint64), np.array([0, 2, 3]), np.array([0, 1, 1], np.int32),
                      np.array([4, 5, 6], np.int32), np.array([-1, 0]))  # fmt: skip
    vocab, counts, rows, tf = merge_slice(old, 0, 2, empty)  # row 0 dropped, row 1 is now 0
    assert (vocab.tolist(), counts.tolist(), rows.tolist(), tf.tolist()) == (
        [5, 9],
        [1, 1],
        [0, 0],
        [5, 6],
    )


def test_a_term_without_postings_in_the_old_csr() -> None:
    old = OldPostings(np.array([5, 9], np.uint64), np.array([0, 0, 2]), np.array([0, 1], np.int32),
                      np.array([4, 5], np.int32), np.array([0, -1], np.int32))  # fmt: skip
    new = (np.array([5], np.uint64), np.array([1], np.int32), np.array([7], np.int32))
    vocab, counts, rows, tf = merge_slice(old, 0, 2, new)  # term 5 had none; row 1 dropped
    assert (vocab.tolist(), counts.tolist(), rows.tolist(), tf.tolist()) == (
        [5, 9],
        [1, 1],
        [1, 0],
        [7, 4],
    )
