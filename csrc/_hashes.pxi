# Included by _tokenize.pyx (one compilation unit); see its docstring.
# ---------------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------------

cdef uint32_t CRC_TABLE[256]
cdef uint32_t CRC_SLICE[8][256]  # slicing-by-8: CRC_SLICE[k][b] is b followed by k zero bytes
cdef uint32_t CRC_PRE[9]  # CRC_PRE[r]: the register that 8 - r zero bytes turn into 0xFFFFFFFF
cdef uint8_t ASCII_LOWER[128]
cdef uint8_t ASCII_ALNUM[128]


cdef void _init_tables() noexcept:
    cdef uint32_t c
    cdef int i, j
    for i in range(256):
        c = <uint32_t>i
        for j in range(8):
            if c & 1:
                c = 0xEDB88320U ^ (c >> 1)
            else:
                c = c >> 1
        CRC_TABLE[i] = c
    for i in range(256):
        CRC_SLICE[0][i] = CRC_TABLE[i]
        for j in range(1, 8):
            CRC_SLICE[j][i] = (CRC_SLICE[j - 1][i] >> 8) ^ CRC_TABLE[CRC_SLICE[j - 1][i] & 0xFF]
    # A zero byte maps the register c to (c >> 8) ^ T[c & 0xFF], a bijection (the top bytes of
    # T's entries are all different), so it can be run backwards from the initial register.
    cdef uint32_t by_top[256]
    for i in range(256):
        by_top[CRC_TABLE[i] >> 24] = <uint32_t>i
    c = 0xFFFFFFFFU
    CRC_PRE[8] = c
    for i in range(7, 0, -1):
        j = <int>by_top[c >> 24]
        c = ((c ^ CRC_TABLE[j]) << 8) | <uint32_t>j
        CRC_PRE[i] = c
    for i in range(128):
        ASCII_LOWER[i] = <uint8_t>(i + 32 if 65 <= i <= 90 else i)
        ASCII_ALNUM[i] = 1 if (48 <= i <= 57 or 65 <= i <= 90 or 97 <= i <= 122) else 0


_init_tables()


cdef inline uint64_t _load8(const uint8_t* p) noexcept nogil:
    # Eight bytes, little-endian on any host (compilers turn this into one load on x86/ARM).
    return (<uint64_t>p[0] | (<uint64_t>p[1] << 8) | (<uint64_t>p[2] << 16)
            | (<uint64_t>p[3] << 24) | (<uint64_t>p[4] << 32) | (<uint64_t>p[5] << 40)
            | (<uint64_t>p[6] << 48) | (<uint64_t>p[7] << 56))


cdef inline uint64_t _first_bytes(const uint8_t* s, Py_ssize_t r) noexcept nogil:
    # The first ``r`` (1..8) bytes of ``s``, little-endian, zero-padded, reading only those.
    cdef uint64_t x = 0
    cdef Py_ssize_t i
    for i in range(r):
        x |= <uint64_t>s[i] << (8 * i)
    return x


cdef inline uint64_t _first_bytes_overread8(const uint8_t* s, Py_ssize_t r) noexcept nogil:
    # The same with one load and a mask (no loop to mispredict); 8 bytes from ``s`` must be
    # readable (the scanner's token buffer is at least 64 bytes, see _room).
    return _load8(s) & (~<uint64_t>0 >> (64 - 8 * r))


cdef inline uint32_t _crc32_step8(uint32_t c, uint64_t x) noexcept nogil:
    # The CRC-32 register after eight more bytes ``x`` (slicing-by-8: eight independent
    # lookups, where a byte-at-a-time register is a chain of eight dependent ones).
    c ^= <uint32_t>x
    return (CRC_SLICE[7][c & 0xFF] ^ CRC_SLICE[6][(c >> 8) & 0xFF]
            ^ CRC_SLICE[5][(c >> 16) & 0xFF] ^ CRC_SLICE[4][c >> 24]
            ^ CRC_SLICE[3][(x >> 32) & 0xFF] ^ CRC_SLICE[2][(x >> 40) & 0xFF]
            ^ CRC_SLICE[1][(x >> 48) & 0xFF] ^ CRC_SLICE[0][x >> 56])


cdef inline uint32_t _crc32_head(uint64_t head, Py_ssize_t r, const uint8_t* s,
                                 Py_ssize_t n) noexcept nogil:
    # CRC-32 of the ``r`` (1..8) bytes in ``head`` (little-endian, upper bytes zero) followed
    # by ``s[:n]``, ``n`` a multiple of 8. The head is shifted up to end at byte 8 behind
    # 8 - r zero bytes, and started from CRC_PRE[r], which those zero bytes turn into the
    # initial register: one branch-free step for any token of up to 8 bytes.
    cdef uint32_t c = _crc32_step8(CRC_PRE[r], head << (8 * (8 - r)))
    while n > 0:
        c = _crc32_step8(c, _load8(s))
        s += 8
        n -= 8
    return c ^ 0xFFFFFFFFU


cdef inline uint32_t _crc32_padded(const uint8_t* s, Py_ssize_t n) noexcept nogil:
    # CRC-32 of ``s[:n]``, n >= 1, where 8 bytes from ``s`` are readable even if n < 8 (the
    # scanner's token buffer is at least 64 bytes, see _room): the head is one masked load.
    cdef Py_ssize_t r = ((n - 1) & 7) + 1
    return _crc32_head(_first_bytes_overread8(s, r), r, s + r, n - r)


cdef inline uint32_t _crc32(const uint8_t* s, Py_ssize_t n) noexcept nogil:
    # CRC-32 of ``s[:n]`` (equal to ``zlib.crc32``: zlib's polynomial, reflected), reading no
    # byte past ``n``. Hashing a token after it is copied, eight bytes a step, replaced a
    # byte-at-a-time register advanced while copying (a chain of dependent loads): the
    # hashing embedder got ~1.35x faster on one thread from that alone. Written here rather
    # than linking zlib: tokens average ~6 bytes, far too short for zlib's wide variants,
    # and the build needs no system headers.
    cdef Py_ssize_t r
    if n <= 0:
        return 0
    r = ((n - 1) & 7) + 1
    return _crc32_head(_first_bytes(s, r), r, s + r, n - r)


cdef extern from *:
    """
    #define DOCQA_FNV_OFFSET 0xCBF29CE484222325ULL
    #define DOCQA_FNV_PRIME 0x100000001B3ULL
    """
    const uint64_t FNV_OFFSET "DOCQA_FNV_OFFSET"  # FNV-1a's 64-bit offset basis and prime
    const uint64_t FNV_PRIME "DOCQA_FNV_PRIME"


cdef inline uint64_t _fmix64(uint64_t h) noexcept nogil:
    # murmur3's fmix64 finaliser: spreads FNV-1a's bits.
    h ^= h >> 33
    h *= 0xFF51AFD7ED558CCDULL
    h ^= h >> 33
    h *= 0xC4CEB9FE1A85EC53ULL
    h ^= h >> 33
    return h


cdef inline uint64_t _hash64(const uint8_t* s, Py_ssize_t n) noexcept nogil:
    # FNV-1a over the UTF-8 bytes, then the fmix64 finaliser.
    cdef uint64_t h = FNV_OFFSET
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ s[i]) * FNV_PRIME
    return _fmix64(h)


def crc32(bytes data):
    """CRC-32 of ``data`` (equal to ``zlib.crc32``); exposed for tests."""
    return _crc32(<const uint8_t*>data, len(data))


def hash64(bytes data):
    """The 64-bit token hash of ``data``; exposed for tests and the reference twin."""
    return _hash64(<const uint8_t*>data, len(data))


# ---------------------------------------------------------------------------------------------
# The token str cache
# ---------------------------------------------------------------------------------------------

cdef struct Slot:
    uint64_t h
    PyObject* s


cdef class _StrCache:
    """Token bytes -> one shared str per call, so a repeated token costs a lookup, not an
    allocation and a decode (creating str objects dominates ``tokenize``)."""
    cdef Slot* t
    cdef uint64_t mask
    cdef Py_ssize_t used

    def __cinit__(self):
        self.mask = (1 << 16) - 1
        self.t = <Slot*>calloc(self.mask + 1, sizeof(Slot))
        if self.t == NULL:
            raise MemoryError("cannot allocate the token cache")

    def __dealloc__(self):
        cdef uint64_t i
        if self.t != NULL:
            for i in range(self.mask + 1):
                if self.t[i].s != NULL:
                    Py_DECREF(<object>self.t[i].s)
            free(self.t)

    cdef object get(self, const uint8_t* p, Py_ssize_t n):
        cdef uint64_t h = _hash64(p, n) | 1
        cdef uint64_t slot = h & self.mask
        cdef Py_ssize_t size
        cdef const char* u
        while self.t[slot].h != 0:
            if self.t[slot].h == h:
                u = PyUnicode_AsUTF8AndSize(<object>self.t[slot].s, &size)
                if size == n and memcmp(u, p, n) == 0:
                    return <object>self.t[slot].s
            slot = (slot + 1) & self.mask
        obj = PyUnicode_DecodeUTF8(<const char*>p, n, NULL)
        if self.used < <Py_ssize_t>(self.mask // 2):
            Py_INCREF(obj)
            self.t[slot].h = h
            self.t[slot].s = <PyObject*>obj
            self.used += 1
        return obj
