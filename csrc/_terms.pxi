# Included by _tokenize.pyx (one compilation unit); see its docstring.
# ---------------------------------------------------------------------------------------------
# Term ids: a growing vocabulary keyed by hash64, filled while scanning
# ---------------------------------------------------------------------------------------------
# TF-IDF's fit and BM25's build both need, for every token, a dense term id, and for every
# term its document frequency and its word. Doing it here, inside the scan, costs one table
# probe per token (the token's hash64 is at hand) and keeps each new word's UTF-8 bytes, so no
# second pass re-tokenizes texts to learn the words behind the hashes.

cdef struct TermTable:
    uint64_t* keys        # term -> hash64
    int64_t* df           # term -> number of documents holding it
    int64_t* last         # term -> last document counted in df
    int64_t* word_ends    # term -> end of its bytes in blob (starts at the previous end)
    Py_ssize_t n, cap
    int64_t* slots        # open addressing: slot -> term id, -1 empty
    uint64_t mask
    uint8_t* blob
    Py_ssize_t blob_len, blob_cap
    int64_t doc           # the document being scanned


cdef bint _terms_rehash(TermTable* m, Py_ssize_t size) noexcept nogil:
    cdef int64_t* slots = <int64_t*>malloc(size * sizeof(int64_t))
    cdef Py_ssize_t t
    cdef uint64_t s, mask = <uint64_t>(size - 1)
    if slots == NULL:
        return False
    memset(slots, 0xFF, size * sizeof(int64_t))
    for t in range(m.n):
        s = m.keys[t] & mask
        while slots[s] >= 0:
            s = (s + 1) & mask
        slots[s] = t
    free(m.slots)
    m.slots = slots
    m.mask = mask
    return True


cdef inline int64_t _term_id(TermTable* m, uint64_t h, const uint8_t* tok,
                             Py_ssize_t n) noexcept nogil:
    """The id of the term with hash ``h`` (added, with its bytes, if new); -1 if out of
    memory. Counts document ``m.doc`` in the term's df once."""
    cdef uint64_t s = h & m.mask
    cdef int64_t t = m.slots[s]
    while t >= 0 and m.keys[t] != h:
        s = (s + 1) & m.mask
        t = m.slots[s]
    if t < 0:
        if not (_grow(<void**>&m.blob, &m.blob_cap, m.blob_len + n, 1)
                and _grow_terms(m)):
            return -1
        t = m.n
        m.n += 1
        m.keys[t] = h
        m.df[t] = 0
        m.last[t] = -1
        memcpy(m.blob + m.blob_len, tok, n)
        m.blob_len += n
        m.word_ends[t] = m.blob_len
        if 2 * m.n > <Py_ssize_t>m.mask:
            if not _terms_rehash(m, 2 * (<Py_ssize_t>m.mask + 1)):
                return -1
        else:
            m.slots[s] = t
    if m.last[t] != m.doc:
        m.last[t] = m.doc
        m.df[t] += 1
    return t


cdef bint _grow_terms(TermTable* m) noexcept nogil:
    cdef Py_ssize_t cap = m.cap
    if m.n < cap:
        return True
    cap = m.cap
    if not _grow(<void**>&m.keys, &cap, m.n + 1, sizeof(uint64_t)):
        return False
    cap = m.cap
    if not _grow(<void**>&m.df, &cap, m.n + 1, sizeof(int64_t)):
        return False
    cap = m.cap
    if not _grow(<void**>&m.last, &cap, m.n + 1, sizeof(int64_t)):
        return False
    cap = m.cap
    if not _grow(<void**>&m.word_ends, &cap, m.n + 1, sizeof(int64_t)):
        return False
    m.cap = cap
    return True


cdef class Terms:
    """A vocabulary built while scanning: ``add(batch, ...)`` returns each token's term id
    (ids count up from 0 in first-seen order, across calls) and counts document frequencies;
    ``words()``, ``keys()`` and ``df()`` describe the terms seen so far. Terms are keyed by
    hash64, so two words with the same 64-bit hash would share an id (and the first's word)."""
    cdef TermTable m
    cdef readonly Py_ssize_t n_docs

    def __cinit__(self):
        memset(&self.m, 0, sizeof(TermTable))
        if not _terms_rehash(&self.m, 1024):
            raise MemoryError("cannot allocate the term table")

    def __dealloc__(self):
        free(self.m.keys)
        free(self.m.df)
        free(self.m.last)
        free(self.m.word_ends)
        free(self.m.slots)
        free(self.m.blob)

    @property
    def n_terms(self):
        return self.m.n

    def add(self, Batch batch not None, Vocab stops, bint fold):
        """``(ids int64 array.array, offsets int64 array.array)``: text i's tokens have ids
        ``ids[offsets[i]:offsets[i + 1]]``; the texts are documents ``n_docs..`` (before the
        call) for document frequencies."""
        import array
        cdef Sink k
        memset(&k, 0, sizeof(Sink))
        k.mode = MODE_TERMS
        k.stops = _stops_of(stops)
        k.fold = fold
        k.terms = &self.m
        try:
            offsets = _scan_counted(batch, &k, self.n_docs)
            self.n_docs += batch.n
            ids = array.array("q", bytes(8 * k.count))
            if k.count:
                _copy_i64(ids, k.ids, k.count)
        finally:
            _free_sink(&k)
        return ids, offsets

    def words(self):
        """The terms' words (``list[str]``), by term id."""
        cdef list out = [None] * self.m.n
        cdef Py_ssize_t t, prev = 0
        for t in range(self.m.n):
            out[t] = PyUnicode_DecodeUTF8(<const char*>(self.m.blob + prev),
                                          self.m.word_ends[t] - prev, NULL)
            prev = self.m.word_ends[t]
        return out

    def keys(self):
        """The terms' hash64 (uint64 ``array.array``), by term id."""
        import array
        out = array.array("Q", bytes(8 * self.m.n))
        if self.m.n:
            _copy_u64(out, self.m.keys, self.m.n)
        return out

    def df(self):
        """The terms' document frequencies (int64 ``array.array``), by term id."""
        import array
        out = array.array("q", bytes(8 * self.m.n))
        if self.m.n:
            _copy_i64(out, self.m.df, self.m.n)
        return out
