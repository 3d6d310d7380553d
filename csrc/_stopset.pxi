# Included by _tokenize.pyx (one compilation unit); see its docstring.
# ---------------------------------------------------------------------------------------------
# Stop words: an open-addressing set of UTF-8 strings keyed by (length, first 8 bytes), so a
# token is looked up before it is hashed, and only kept tokens are hashed (once, after folding)
# ---------------------------------------------------------------------------------------------

cdef struct StopSet:
    uint64_t* heads       # slot -> the word's first 8 bytes, little-endian, zero-padded
    int64_t* lengths      # slot -> the word's length in bytes; 0 marks an empty slot
    int64_t* starts       # slot -> the word's bytes in blob (for words over 8 bytes)
    uint8_t* blob
    uint64_t mask
    Py_ssize_t max_len


cdef inline uint64_t _slot_of(uint64_t head, Py_ssize_t n, uint64_t mask) noexcept nogil:
    # Multiplicative hashing of (head, length): one multiply; the product's upper half mixes
    # every input bit.
    return (((head ^ (<uint64_t>n << 56)) * 0x9E3779B97F4A7C15ULL) >> 32) & mask


cdef class Vocab:
    """Stop words compiled for the native scanner (build once, reuse for every call)."""
    cdef StopSet s
    cdef bytes _blob
    cdef object _heads, _lengths, _starts
    cdef readonly frozenset words

    def __cinit__(self, words):
        import array
        self.words = frozenset(words)
        for w in self.words:
            if not isinstance(w, str) or not w:
                raise TypeError(f"stop words must be non-empty str, got {w!r}")
        encoded = sorted(w.encode("utf-8") for w in self.words)
        cdef Py_ssize_t size = 16, n, pos = 0, max_len = 0
        while size < 4 * len(encoded):
            size *= 2
        cdef uint64_t mask = <uint64_t>(size - 1), head, slot
        self._blob = b"".join(encoded)
        self._heads = array.array("Q", bytes(8 * size))
        self._lengths = array.array("q", bytes(8 * size))
        self._starts = array.array("q", bytes(8 * size))
        cdef uint64_t[::1] heads = self._heads
        cdef int64_t[::1] lengths = self._lengths
        cdef int64_t[::1] starts = self._starts
        for w in encoded:
            n = len(w)
            head = _first_bytes(<const uint8_t*>w, min(n, 8))
            slot = _slot_of(head, n, mask)
            while lengths[slot] != 0:
                slot = (slot + 1) & mask
            heads[slot] = head
            lengths[slot] = n
            starts[slot] = pos
            pos += n
            max_len = max(max_len, n)
        self.s.heads = &heads[0]
        self.s.lengths = &lengths[0]
        self.s.starts = &starts[0]
        self.s.blob = <uint8_t*>(<const char*>self._blob)
        self.s.mask = mask
        self.s.max_len = max_len

    def __reduce__(self):
        return (Vocab, (sorted(self.words),))


cdef inline bint _is_stop(const StopSet* s, const uint8_t* tok, Py_ssize_t n) noexcept nogil:
    """Whether ``tok[:n]`` is a stop word. ``tok`` is the scanner's token buffer, 8 bytes of
    which are always readable (see _room): a word is compared by length and first 8 bytes at
    once, not byte by byte (a loop whose length the CPU mispredicts), and only a longer one
    byte by byte after that. No hash of the token is needed."""
    cdef uint64_t head = _first_bytes_overread8(tok, n if n < 8 else 8)
    cdef uint64_t slot = _slot_of(head, n, s.mask)
    cdef Py_ssize_t i
    cdef bint same
    while s.lengths[slot] != 0:
        same = (s.lengths[slot] == n) & (s.heads[slot] == head)
        if same and n > 8:
            for i in range(8, n):
                same &= s.blob[s.starts[slot] + i] == tok[i]
        if same:
            return True
        slot = (slot + 1) & s.mask
    return False
