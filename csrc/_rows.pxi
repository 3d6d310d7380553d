# Included by _tokenize.pyx (compiled as one module with it; directives at the top there).
# Hashing-embedder rows: a shared row cursor (``Rows``) that threads claim grains from, and the
# GIL-free pass that fills each claimed row with CRC-32 bucket counts scaled to unit length.

cdef extern from *:
    """
    static inline Py_ssize_t docqa_fetch_add(Py_ssize_t* p, Py_ssize_t n) {
        return __atomic_fetch_add(p, n, __ATOMIC_RELAXED);
    }
    """
    # GCC/Clang's atomic builtin (the build's compilers); relaxed is enough: a claim only
    # has to be unique, and the rows it names are published by the threads' join.
    Py_ssize_t _fetch_add "docqa_fetch_add"(Py_ssize_t* p, Py_ssize_t n) noexcept nogil


cdef class Rows:
    """The rows ``start:stop`` still to be done, handed out ``grain`` at a time to whichever
    thread asks next (an atomic counter, no lock and no GIL). Threads that share one ``Rows``
    balance themselves: a thread slowed by a busy core simply claims fewer grains, where a
    fixed split would leave the whole batch waiting for its slower half."""
    cdef Py_ssize_t next
    cdef readonly Py_ssize_t start, stop, grain

    def __cinit__(self, Py_ssize_t start, Py_ssize_t stop, Py_ssize_t grain):
        if not 0 <= start <= stop:
            raise ValueError(f"bad row range {start}:{stop}")
        if grain < 1:
            raise ValueError(f"grain must be >= 1, got {grain}")
        self.start, self.stop, self.grain, self.next = start, stop, grain, start

    def claim(self):
        """The next ``(first, end)`` grain, or None when every row has been claimed."""
        cdef Py_ssize_t a, b
        if not _claim(self, &a, &b):
            return None
        return a, b


cdef inline bint _claim(Rows rows, Py_ssize_t* first, Py_ssize_t* end) noexcept nogil:
    # Claims past ``stop`` only move the counter further on; ``next`` cannot overflow, as
    # every thread stops claiming at its first empty claim.
    cdef Py_ssize_t a = _fetch_add(&rows.next, rows.grain)
    if a >= rows.stop:
        return False
    first[0] = a
    end[0] = a + rows.grain if rows.stop - a > rows.grain else rows.stop
    return True


def embed_hashing_rows(Batch batch not None, Rows rows not None, Vocab stops, bint fold,
                       float[:, ::1] out):
    """Fill the rows of ``out`` claimed from ``rows`` with the hashing embedder's rows for
    the same texts: CRC-32 bucket counts scaled to unit length (zero rows stay zero). ``out``
    must be zeroed. Runs entirely without the GIL, so several threads may share one ``rows``
    (each row is claimed by exactly one of them)."""
    cdef Py_ssize_t dim = out.shape[1]
    if dim < 1:
        raise ValueError(f"dim must be >= 1, got {dim}")
    if rows.stop > batch.n or out.shape[0] < rows.stop:
        raise ValueError(
            f"bad row range {rows.start}:{rows.stop} for {batch.n} texts, {out.shape[0]} rows"
        )
    cdef Sink k
    _bucket_sink(&k, stops, fold, dim, MODE_BUCKET)
    cdef const uint64_t[::1] ptrs = batch._ptrs
    cdef const int64_t[::1] lens = batch._lens
    cdef const signed char[::1] kinds = batch._kinds
    cdef const int64_t[::1] starts = batch._starts
    cdef Py_ssize_t i, first, end
    try:
        if batch.n:
            with nogil:
                while not k.failed and _claim(rows, &first, &end):
                    for i in range(first, end):
                        k.n_touched = 0
                        _scan_one(i, &k, &ptrs[0], &lens[0], &kinds[0], &starts[0])
                        if k.failed:
                            break
                        _finish_row(&k, &out[i, 0])
        if k.failed:
            raise MemoryError("tokenizer ran out of memory")
    finally:
        _free_sink(&k)


cdef int _bucket_sink(Sink* k, Vocab stops, bint fold, Py_ssize_t dim, int mode) except -1:
    """``k`` zeroed and set up for ``mode`` (MODE_BUCKET or MODE_HASH_BUCKET) with ``dim``
    zeroed bucket counts; MemoryError (``k`` freed) when they cannot be allocated."""
    memset(k, 0, sizeof(Sink))
    k.mode = mode
    k.stops = _stops_of(stops)
    k.fold = fold
    k.dim = dim
    k.dim_mask = dim - 1 if (dim & (dim - 1)) == 0 else -1
    k.counts = <int64_t*>malloc(dim * sizeof(int64_t))
    k.touched = <int64_t*>malloc((dim + 1) * sizeof(int64_t))  # + 1: see _count
    if k.counts == NULL or k.touched == NULL:
        _free_sink(k)
        raise MemoryError("cannot allocate hashing buckets")
    memset(k.counts, 0, dim * sizeof(int64_t))
    return 0


cdef inline void _finish_row(Sink* k, float* row) noexcept nogil:
    """The row of the text just scanned into ``k``'s buckets: counts scaled to unit length
    in double precision, cast to float32 (a row with no token stays zero); the buckets are
    zeroed again for the next text."""
    cdef int64_t ss = 0
    cdef Py_ssize_t j, b
    cdef double norm
    for j in range(k.n_touched):
        ss += k.counts[k.touched[j]] * k.counts[k.touched[j]]
    if ss > 0:
        norm = sqrt(<double>ss)
        for j in range(k.n_touched):
            b = k.touched[j]
            row[b] = <float>(<double>k.counts[b] / norm)
            k.counts[b] = 0


def hash_and_embed_batch(Batch batch not None, Vocab stops, bint fold, float[:, ::1] out):
    """``hash_batch(batch, stops, fold)`` and, from the same scan, ``embed_hashing_rows`` of
    every text into ``out`` (``(batch.n, dim)``, zeroed): each kept token is hashed both ways
    (hash64 appended, CRC-32 counted into its row's bucket). Returns ``(hashes, offsets)`` as
    ``hash_batch`` does; serial, the GIL released while scanning."""
    import array
    cdef Py_ssize_t dim = out.shape[1], i
    if dim < 1:
        raise ValueError(f"dim must be >= 1, got {dim}")
    if out.shape[0] != batch.n:
        raise ValueError(f"{out.shape[0]} rows for {batch.n} texts")
    cdef Sink k
    _bucket_sink(&k, stops, fold, dim, MODE_HASH_BUCKET)
    offsets = array.array("q", bytes(8 * (batch.n + 1)))
    cdef int64_t[::1] off = offsets
    cdef const uint64_t[::1] ptrs = batch._ptrs
    cdef const int64_t[::1] lens = batch._lens
    cdef const signed char[::1] kinds = batch._kinds
    cdef const int64_t[::1] starts = batch._starts
    try:
        if batch.n:
            with nogil:
                for i in range(batch.n):
                    k.n_touched = 0
                    _scan_one(i, &k, &ptrs[0], &lens[0], &kinds[0], &starts[0])
                    if k.failed:
                        break
                    off[i + 1] = k.count
                    _finish_row(&k, &out[i, 0])
        if k.failed:
            raise MemoryError("tokenizer ran out of memory")
        hashes = array.array("Q", bytes(8 * k.count))
        if k.count:
            _copy_u64(hashes, k.hashes, k.count)
    finally:
        _free_sink(&k)
    return hashes, offsets
