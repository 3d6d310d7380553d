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
    memset(&k, 0, sizeof(Sink))
    k.mode = MODE_BUCKET
    k.stops = _stops_of(stops)
    k.fold = fold
    k.dim = dim
    k.dim_mask = dim - 1 if (dim & (dim - 1)) == 0 else -1
    k.counts = <int64_t*>malloc(dim * sizeof(int64_t))
    k.touched = <int64_t*>malloc((dim + 1) * sizeof(int64_t))  # + 1: see _count
    if k.counts == NULL or k.touched == NULL:
        _free_sink(&k)
        raise MemoryError("cannot allocate hashing buckets")
    memset(k.counts, 0, dim * sizeof(int64_t))
    cdef const uint64_t[::1] ptrs = batch._ptrs
    cdef const int64_t[::1] lens = batch._lens
    cdef const signed char[::1] kinds = batch._kinds
    cdef const int64_t[::1] starts = batch._starts
    cdef Py_ssize_t i, j, b, first, end
    cdef int64_t ss
    cdef double norm
    try:
        if batch.n:
            with nogil:
                while not k.failed and _claim(rows, &first, &end):
                    for i in range(first, end):
                        k.n_touched = 0
                        _scan_one(i, &k, &ptrs[0], &lens[0], &kinds[0], &starts[0])
                        if k.failed:
                            break
                        ss = 0
                        for j in range(k.n_touched):
                            ss += k.counts[k.touched[j]] * k.counts[k.touched[j]]
                        if ss > 0:
                            norm = sqrt(<double>ss)
                            for j in range(k.n_touched):
                                b = k.touched[j]
                                out[i, b] = <float>(<double>k.counts[b] / norm)
                                k.counts[b] = 0
        if k.failed:
            raise MemoryError("tokenizer ran out of memory")
    finally:
        _free_sink(&k)
