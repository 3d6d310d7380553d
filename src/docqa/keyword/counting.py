"""Counting texts into BM25's CSR arrays: tokenized batch by batch (the next batch in a second
thread while the current one is counted), postings counted by the Numba kernels."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from docqa.errors import InputError
from docqa.text import TermCounter, TermIds


def _batches(texts: Iterator[str], batch_size: int) -> Iterator[list[str]]:
    """Lists of up to ``batch_size`` texts, each checked to be str."""
    while batch := list(itertools.islice(texts, batch_size)):
        if not all(isinstance(t, str) for t in batch):
            raise InputError("texts must all be str; convert or drop the other items")
        yield batch


def term_batches(
    texts: Iterator[str], counter: TermCounter, batch_size: int, *, prefetch: bool
) -> Iterator[TermIds]:
    """Term ids batch by batch; with ``prefetch`` the next batch is tokenized in a thread (the
    native tokenizer releases the GIL) while the caller counts the current one. Only that one
    thread ever calls ``counter.add``, so term ids are assigned in text order either way."""
    if not prefetch:
        yield from map(counter.add, _batches(texts, batch_size))
        return
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending: Future[TermIds] | None = None
        for batch in _batches(texts, batch_size):
            submitted = pool.submit(counter.add, batch)
            if pending is not None:
                yield pending.result()
            pending = submitted
        if pending is not None:
            yield pending.result()


def count_postings(batches: Iterable[TermIds], counter: TermCounter) -> dict[str, np.ndarray]:
    """Count every batch's postings; return the CSR arrays, terms in ascending hash order."""
    from docqa.keyword import kernels

    scratch = np.zeros(1024, dtype=np.int32)
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    for batch in batches:
        if batch.ids.size and batch.ids.max() >= scratch.size:
            scratch = np.zeros(2 * int(batch.ids.max()) + 1, dtype=np.int32)
        parts.append(kernels.count_batch(batch.ids, batch.offsets, scratch))
    if not parts:
        raise InputError("no texts to index; give at least one text")
    terms, tf, n_unique, lengths = (np.concatenate(p) for p in zip(*parts, strict=True))
    hashes_by_id = counter.keys()
    n_terms = hashes_by_id.size
    order = np.argsort(hashes_by_id)
    rank = np.empty(n_terms, dtype=np.int32)
    rank[order] = np.arange(n_terms, dtype=np.int32)
    indptr, rows, tf_csr = kernels.build_csr(rank[terms], tf, n_unique, n_terms)
    return {
        "bm25_vocab": hashes_by_id[order],
        "bm25_indptr": indptr,
        "bm25_rows": rows,
        "bm25_tf": tf_csr,
        "bm25_lengths": lengths,
    }
