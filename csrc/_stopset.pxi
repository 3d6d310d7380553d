# Included by _tokenize.pyx (one compilation unit); see its docstring.
# ---------------------------------------------------------------------------------------------
# Stop words: an open-addressing set of UTF-8 strings keyed by CRC-32 (the bucket hash, so the
# hashing embedder hashes most tokens once)
# ---------------------------------------------------------------------------------------------

cdef struct StopSet:
    # Two open-addressing tables over the same words, one keyed by CRC-32 (the hashing
    # embedder's bucket hash) and one by hash64 (the term-id hash), so the scanner looks a
    # token up with the hash its mode needs anyway and most tokens are hashed once.
    uint64_t* crc_keys    # crc32 | 1 << 32; 0 marks an empty slot
    int64_t* crc_word     # slot -> word index
    uint64_t* h64_keys    # hash64 | 1; 0 marks an empty slot
    int64_t* h64_word
    int64_t* starts       # word -> its bytes in blob
    int64_t* lengths
    uint64_t* heads       # word -> its first 8 bytes, little-endian, zero-padded
    uint8_t* blob
    uint64_t mask
    Py_ssize_t max_len


cdef inline uint64_t _crc_key(uint64_t crc) noexcept nogil:
    return crc | (<uint64_t>1 << 32)


cdef void _place(uint64_t[::1] keys, int64_t[::1] word, uint64_t key, Py_ssize_t i,
                 uint64_t mask):
    cdef uint64_t slot = key & mask
    while keys[slot] != 0:
        slot = (slot + 1) & mask
    keys[slot] = key
    word[slot] = i


cdef class Vocab:
    """Stop words compiled for the native scanner (build once, reuse for every call)."""
    cdef StopSet s
    cdef bytes _blob
    cdef object _crc_keys, _crc_word, _h64_keys, _h64_word, _starts, _lengths, _heads
    cdef readonly frozenset words

    def __cinit__(self, words):
        import array
        self.words = frozenset(words)
        for w in self.words:
            if not isinstance(w, str) or not w:
                raise TypeError(f"stop words must be non-empty str, got {w!r}")
        encoded = sorted(w.encode("utf-8") for w in self.words)
        cdef Py_ssize_t size = 16, i, j
        while size < 4 * len(encoded):
            size *= 2
        cdef uint64_t mask = <uint64_t>(size - 1)
        self._blob = b"".join(encoded)
        self._crc_keys = array.array("Q", bytes(8 * size))
        self._crc_word = array.array("q", bytes(8 * size))
        self._h64_keys = array.array("Q", bytes(8 * size))
        self._h64_word = array.array("q", bytes(8 * size))
        self._starts = array.array("q", bytes(8 * max(1, len(encoded))))
        self._lengths = array.array("q", bytes(8 * max(1, len(encoded))))
        self._heads = array.array("Q", bytes(8 * max(1, len(encoded))))
        cdef int64_t[::1] starts = self._starts
        cdef uint64_t[::1] heads = self._heads
        cdef int64_t[::1] lengths = self._lengths
        cdef Py_ssize_t pos = 0, max_len = 0
        for i, w in enumerate(encoded):
            n = len(w)
            _place(self._crc_keys, self._crc_word,
                   _crc_key(_crc32(<const uint8_t*>(<bytes>w), n)), i, mask)
            _place(self._h64_keys, self._h64_word,
                   _hash64(<const uint8_t*>(<bytes>w), n) | 1, i, mask)
            starts[i] = pos
            lengths[i] = n
            for j in range(min(n, 8)):
                heads[i] |= <uint64_t>(<uint8_t>w[j]) << (8 * j)
            pos += n
            max_len = max(max_len, n)
        cdef uint64_t[::1] ck = self._crc_keys, hk = self._h64_keys
        cdef int64_t[::1] cw = self._crc_word, hw = self._h64_word
        self.s.crc_keys = &ck[0]
        self.s.crc_word = &cw[0]
        self.s.h64_keys = &hk[0]
        self.s.h64_word = &hw[0]
        self.s.starts = &starts[0]
        self.s.lengths = &lengths[0]
        self.s.heads = &heads[0]
        self.s.blob = <uint8_t*>(<const char*>self._blob)
        self.s.mask = mask
        self.s.max_len = max_len

    def __reduce__(self):
        return (Vocab, (sorted(self.words),))


cdef inline bint _is_stop(const StopSet* s, const uint8_t* tok, Py_ssize_t n,
                          uint64_t h, bint by_crc) noexcept nogil:
    """Whether ``tok`` is a stop word; ``h`` is its CRC-32 (``by_crc``) or its hash64.
    ``tok`` is the scanner's token buffer, 8 bytes of which are always readable (see
    _room): a word is compared by length and first 8 bytes at once, not byte by byte (a
    loop whose length the CPU mispredicts), and only a longer one byte by byte after that."""
    cdef const uint64_t* keys = s.crc_keys if by_crc else s.h64_keys
    cdef const int64_t* word = s.crc_word if by_crc else s.h64_word
    cdef uint64_t key = _crc_key(h) if by_crc else (h | 1)
    cdef uint64_t slot = key & s.mask
    cdef int64_t w
    cdef Py_ssize_t i
    cdef bint same
    while keys[slot] != 0:
        if keys[slot] == key:
            w = word[slot]
            same = (s.lengths[w] == n) & (s.heads[w] == _head_of(tok, n))
            if same and n > 8:
                for i in range(8, n):
                    same &= s.blob[s.starts[w] + i] == tok[i]
            if same:
                return True
        slot = (slot + 1) & s.mask
    return False


cdef inline uint64_t _head_of(const uint8_t* t, Py_ssize_t n) noexcept nogil:
    # The first min(n, 8) bytes of ``t``, little-endian, zero-padded (8 bytes readable).
    return _load8(t) & (~<uint64_t>0 >> (64 - 8 * (n if n < 8 else 8)))
