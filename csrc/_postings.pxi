# BM25 postings of a batch (included by _tokenize.pyx): the fast twin of
# docqa.pipeline.work.postings_reference (a stable argsort of every token hash, then runs).
# Each distinct hash gets a dense id (first seen first) in a hash table sized by the distinct
# hashes, not the tokens, so it stays in cache; a first pass gives every token its id and
# counts the rows each term occurs in; only the distinct hashes are sorted; a second pass over
# the tokens, rows in order, puts each (hash, row) at its term's next slot or adds one to the
# count there. Output sorted by (hash, row), as the reference's.

from libc.stdint cimport int32_t
from libc.stdlib cimport qsort
from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_FromStringAndSize

cdef struct _Term:
    uint64_t hash
    int64_t last  # the last row seen holding it (-1: none yet)
    int64_t rows  # first pass: rows holding it; second pass: its next output slot


cdef struct _Table:
    # open addressing: slot -> term id, -1 when empty; ``mask + 1`` slots, at most half used;
    # ``terms`` has room for ``(mask + 1) / 2`` terms
    int64_t* slots
    _Term* terms
    Py_ssize_t mask
    Py_ssize_t n


cdef bint _table_init(_Table* t, Py_ssize_t size) noexcept nogil:
    """``t`` empty with ``size`` (a power of two) slots; False when out of memory."""
    t.slots = <int64_t*>malloc(size * sizeof(int64_t))
    if t.slots == NULL:
        return False
    memset(t.slots, 0xFF, size * sizeof(int64_t))
    t.mask = size - 1
    return True


cdef bint _grow_table(_Table* t) noexcept nogil:
    """``t`` with twice the slots and room for twice the terms; False when out of memory (``t``
    unchanged, for the caller to free)."""
    cdef _Table bigger
    cdef Py_ssize_t k, slot
    cdef _Term* terms = <_Term*>realloc(t.terms, (t.mask + 1) * sizeof(_Term))
    if terms == NULL:
        return False
    t.terms = terms
    if not _table_init(&bigger, 2 * (t.mask + 1)):
        return False
    for k in range(t.n):
        slot = <Py_ssize_t>(terms[k].hash & <uint64_t>bigger.mask)
        while bigger.slots[slot] >= 0:
            slot = (slot + 1) & bigger.mask
        bigger.slots[slot] = k
    free(t.slots)
    t.slots, t.mask = bigger.slots, bigger.mask
    return True


cdef bint _term_ids(const uint64_t* hashes, const int64_t* offsets, Py_ssize_t n_rows,
                    _Table* t, int64_t* tid) noexcept nogil:
    """The tokens' term ids into ``tid``, the terms into ``t``; False when out of memory."""
    cdef Py_ssize_t r, i, slot
    cdef int64_t k
    cdef uint64_t h
    for r in range(n_rows):
        for i in range(offsets[r], offsets[r + 1]):
            h = hashes[i]
            slot = <Py_ssize_t>(h & <uint64_t>t.mask)
            while True:
                k = t.slots[slot]
                if k < 0:
                    if 2 * (t.n + 1) > t.mask + 1:
                        if not _grow_table(t):
                            return False
                        slot = <Py_ssize_t>(h & <uint64_t>t.mask)
                        continue
                    k = t.slots[slot] = t.n
                    t.terms[k].hash, t.terms[k].last, t.terms[k].rows = h, -1, 0
                    t.n += 1
                    break
                if t.terms[k].hash == h:
                    break
                slot = (slot + 1) & t.mask
            tid[i] = k
            if t.terms[k].last != r:
                t.terms[k].last = r
                t.terms[k].rows += 1
    return True


cdef struct _Pair:
    uint64_t hash
    int64_t id


cdef int _by_hash(const void* a, const void* b) noexcept nogil:
    cdef uint64_t x = (<const _Pair*>a).hash, y = (<const _Pair*>b).hash
    return (x > y) - (x < y)


cdef int64_t _slots(_Table* t, _Pair* order) noexcept nogil:
    """Each term's first output slot (in ``terms[k].rows``), terms in hash order (``order``:
    room for the sort). Returns the number of (term, row) pairs."""
    cdef Py_ssize_t k
    cdef int64_t total = 0, rows
    cdef _Term* term
    for k in range(t.n):
        order[k].hash, order[k].id = t.terms[k].hash, k
    qsort(order, t.n, sizeof(_Pair), _by_hash)
    for k in range(t.n):
        term = &t.terms[order[k].id]
        rows, term.rows, term.last = term.rows, total, -1
        total += rows
    return total


cdef void _place(const int64_t* offsets, Py_ssize_t n_rows, const int64_t* tid, _Term* terms,
                 uint64_t* out_hashes, int32_t* out_rows, int32_t* out_tf) noexcept nogil:
    """Each (term, row) at its term's next slot, or one more for the count there."""
    cdef Py_ssize_t r, i
    cdef int64_t p
    cdef _Term* term
    for r in range(n_rows):
        for i in range(offsets[r], offsets[r + 1]):
            term = &terms[tid[i]]
            if term.last == r:
                out_tf[term.rows - 1] += 1
                continue
            term.last = r
            p = term.rows
            out_hashes[p], out_rows[p], out_tf[p] = term.hash, <int32_t>r, 1
            term.rows = p + 1


def count_postings(const uint64_t[::1] hashes, const int64_t[::1] offsets):
    """``(hashes uint64, rows int32, tf int32)`` as ``bytearray``s (native byte order): each
    row's distinct token hashes and their counts, sorted by (hash, row). Row ``r`` owns the tokens
    ``hashes[offsets[r]:offsets[r + 1]]`` (offsets non-decreasing, from 0, ending at the
    number of hashes: the caller, ``docqa.pipeline.work.postings_of``, passes
    ``hash_tokens``' arrays)."""
    cdef Py_ssize_t n_rows = offsets.shape[0] - 1, n = hashes.shape[0]
    cdef int64_t total = 0
    cdef int64_t* tid = NULL
    cdef _Pair* order = NULL
    cdef uint64_t* hashes_out
    cdef int32_t *rows_out, *tf_out
    cdef _Table t
    cdef bint ok
    if n_rows < 0 or offsets[0] != 0 or offsets[n_rows] != n:
        raise ValueError("offsets must run from 0 to the number of hashes")
    t.n, t.slots = 0, NULL
    t.terms = <_Term*>malloc(512 * sizeof(_Term))
    try:
        tid = <int64_t*>malloc(n * sizeof(int64_t) + 8)
        if t.terms == NULL or tid == NULL or not _table_init(&t, 1024):
            raise MemoryError()
        with nogil:
            ok = _term_ids(&hashes[0] if n else NULL, &offsets[0], n_rows, &t, tid)
        order = <_Pair*>malloc(t.n * sizeof(_Pair) + 16)
        if not ok or order == NULL:
            raise MemoryError()
        with nogil:
            total = _slots(&t, order)
        out_hashes = PyByteArray_FromStringAndSize(NULL, 8 * total)  # left uninitialised:
        out_rows = PyByteArray_FromStringAndSize(NULL, 4 * total)  # every byte is written
        out_tf = PyByteArray_FromStringAndSize(NULL, 4 * total)
        hashes_out = <uint64_t*>PyByteArray_AS_STRING(out_hashes)
        rows_out = <int32_t*>PyByteArray_AS_STRING(out_rows)
        tf_out = <int32_t*>PyByteArray_AS_STRING(out_tf)
        with nogil:
            _place(&offsets[0], n_rows, tid, t.terms, hashes_out, rows_out, tf_out)
        return out_hashes, out_rows, out_tf
    finally:
        free(t.slots)
        free(t.terms)
        free(tid)
        free(order)


def live_df(const int64_t[::1] indptr, const int32_t[::1] rows, const uint8_t[::1] live,
            int64_t[::1] out):
    """``out[t]`` = how many of term ``t``'s postings ``rows[indptr[t]:indptr[t + 1]]`` are
    rows with ``live[row] != 0``: the document frequencies of an index's live rows, in one pass
    over its postings (the fast twin of ``docqa.keyword.stats.live_df_reference``). Returns -1,
    or the position of the first posting whose row is outside ``live`` or whose term's range
    is not within ``rows`` (nothing is then promised of ``out``)."""
    cdef Py_ssize_t n_terms = indptr.shape[0] - 1, n_live = live.shape[0]
    cdef Py_ssize_t t, end = rows.shape[0]
    cdef int64_t i, count, bad = -1
    cdef int32_t r
    if n_terms < 0 or out.shape[0] != n_terms:
        raise ValueError("out must hold one count per term (len(indptr) - 1)")
    if n_terms and (indptr[0] != 0 or indptr[n_terms] != end):
        raise ValueError("indptr must run from 0 to the number of postings")
    with nogil:
        for t in range(n_terms):
            if indptr[t + 1] < indptr[t] or indptr[t + 1] > end:
                bad = indptr[t]
                break
            count = 0
            for i in range(indptr[t], indptr[t + 1]):
                r = rows[i]
                if r < 0 or r >= n_live:
                    bad = i
                    break
                count += live[r] != 0
            if bad >= 0:
                break
            out[t] = count
    return bad
