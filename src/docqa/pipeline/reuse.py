"""An update's BM25 merge: the previous index's postings kept as they are sorted, the new
files' postings inserted among them.

The previous CSR is sorted by (term hash, row), and an update renumbers the rows it keeps
in their old order (kept files keep their order), so the kept postings stay sorted; the new
files' postings are sorted by (hash, row) too. Merging two sorted sequences needs no sort:
each new posting's place among the old ones is found by a binary search (the term by its
hash in the old vocabulary, then the row among that term's rows, all new postings at once),
and the arrays are spliced with ``np.insert``; the vocabulary and each term's count come
from the two CSRs' terms (the new terms placed among the old by a binary search, no sort),
never from a pass over every posting. Linear in the old postings, ``log`` in the new;
``np.lexsort`` over both is the reference (tests/pipeline/test_update_merge.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from docqa.index.checksum import release_view
from docqa.pipeline.postings import Csr, Postings3, hash_bounds, terms_of


@dataclass(frozen=True)
class OldPostings:
    """The previous index's BM25 CSR and ``remap`` int32 (old rows,): each old row's new row,
    or -1 when it is dropped."""

    vocab: np.ndarray
    indptr: np.ndarray
    rows: np.ndarray
    tf: np.ndarray
    remap: np.ndarray

    def slice(self, lo: int, hi: int, new: Postings3) -> Csr:
        """Postings of terms with hashes in ``[lo, hi)`` whose rows are kept, merged with
        ``new`` (postings of that range sorted by (hash, row)), as ``(vocab, counts, rows,
        tf)``: see ``docqa.pipeline.reuse``."""
        return merge_slice(self, *hash_bounds(self.vocab, lo, hi), new)


def kept_slice(old: OldPostings, t0: int, t1: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Terms ``t0:t1`` of ``old`` with only the kept rows, renumbered: ``(indptr, rows,
    tf)`` with ``indptr`` (t1 - t0 + 1,) int64 offsets into the kept rows (0-based).

    An update drops few postings (those of the changed files' old rows), so they are found
    by position and each term's kept count follows from how many of them precede its
    bounds (a binary search), not from a pass over a mask of every posting."""
    indptr = np.asarray(old.indptr[t0 : t1 + 1])
    p0, p1 = int(indptr[0]), int(indptr[-1])
    rows = old.remap[old.rows[p0:p1]].astype(np.int32, copy=False)
    release_view(old.rows[p0:p1])  # read once: its pages need not stay in this process
    dropped = np.flatnonzero(rows < 0)
    local = indptr - p0
    tf = np.delete(old.tf[p0:p1], dropped)  # a copy, also when nothing is dropped
    release_view(old.tf[p0:p1])
    if not dropped.size:
        return local, rows, tf
    return local - np.searchsorted(dropped, local), np.delete(rows, dropped), tf


def places(vocab: np.ndarray, indptr: np.ndarray, rows: np.ndarray, new: Postings3) -> np.ndarray:
    """For each new posting ``(hash, row)`` (sorted), how many old postings come before it:
    those of the terms before its hash, and of its own term, those with a smaller row."""
    hashes, new_rows = new[0], new[1]
    term = np.searchsorted(vocab, hashes)
    lo = indptr[term]
    found = term < vocab.size
    found[found] = vocab[term[found]] == hashes[found]
    hi = np.where(found, indptr[np.minimum(term + 1, vocab.size)], lo)
    if rows.size:
        last = rows.size - 1
        while bool((open_ := lo < hi).any()):  # about log2(largest df) rounds
            mid = (lo + hi) // 2
            less = open_ & (rows[np.minimum(mid, last)] < new_rows)
            lo = np.where(less, mid + 1, lo)
            hi = np.where(open_ & ~less, mid, hi)
    return lo


def merge_slice(old: OldPostings, t0: int, t1: int, new: Postings3) -> Csr:
    """Postings of terms ``t0:t1`` of ``old`` (kept rows) and ``new`` (sorted by (hash,
    row)), sorted by (hash, row), as ``(vocab, counts, rows, tf)``: the distinct hashes,
    each one's postings, and the postings' rows and tf."""
    indptr, rows, tf = kept_slice(old, t0, t1)
    vocab = np.asarray(old.vocab[t0:t1])
    at = places(vocab, indptr, rows, new)
    counts = np.diff(indptr)
    if not (live := counts > 0).all():  # terms whose every posting was dropped
        vocab, counts = vocab[live], counts[live]
    new_vocab, new_counts = terms_of(new[0])
    pos = np.searchsorted(vocab, new_vocab)  # the new terms' places among the old
    known = pos < vocab.size
    known[known] = vocab[pos[known]] == new_vocab[known]
    counts[pos[known]] += new_counts[known]  # distinct terms: each index once
    unknown = ~known
    return (
        np.insert(vocab, pos[unknown], new_vocab[unknown]).astype(np.uint64, copy=False),
        np.insert(counts, pos[unknown], new_counts[unknown]),
        np.insert(rows, at, new[1].astype(np.int32)),
        np.insert(tf, at, new[2].astype(np.int32)),
    )
