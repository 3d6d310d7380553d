# Included by _tokenize.pyx (one compilation unit); see its docstring.
# ---------------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------------

cdef uint32_t CRC_TABLE[256]
cdef uint32_t CRC_SLICE[4][256]  # slicing-by-4: CRC_SLICE[k][b] is b followed by k zero bytes
cdef uint8_t ASCII_LOWER[128]
cdef uint8_t ASCII_ALNUM[128]
cdef uint8_t ASCII_TOKEN[128]  # the lowered byte of an alphanumeric, 0 for any other byte


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
        for j in range(1, 4):
            CRC_SLICE[j][i] = (CRC_SLICE[j - 1][i] >> 8) ^ CRC_TABLE[CRC_SLICE[j - 1][i] & 0xFF]
    for i in range(128):
        ASCII_LOWER[i] = <uint8_t>(i + 32 if 65 <= i <= 90 else i)
        ASCII_ALNUM[i] = 1 if (48 <= i <= 57 or 65 <= i <= 90 or 97 <= i <= 122) else 0
        ASCII_TOKEN[i] = ASCII_LOWER[i] if ASCII_ALNUM[i] else 0


_init_tables()


cdef inline uint32_t _crc32(const uint8_t* s, Py_ssize_t n) noexcept nogil:
    # CRC-32 of ``s[:n]`` (equal to ``zlib.crc32``; zlib's polynomial, reflected), four bytes
    # per step (slicing-by-4), then byte at a time. The four lookups of a step are
    # independent, where a byte-at-a-time register is one chain of dependent loads: hashing a
    # token after it is copied this way made the hashing embedder ~35% faster than advancing
    # the register while copying. Written here rather than linking zlib: tokens average ~6
    # bytes, too short for zlib's wide variants to pay off, and the build needs no system
    # headers.
    cdef uint32_t c = 0xFFFFFFFFU
    while n >= 4:
        c ^= <uint32_t>s[0] | (<uint32_t>s[1] << 8) | (<uint32_t>s[2] << 16) | (<uint32_t>s[3] << 24)
        c = (CRC_SLICE[3][c & 0xFF] ^ CRC_SLICE[2][(c >> 8) & 0xFF]
             ^ CRC_SLICE[1][(c >> 16) & 0xFF] ^ CRC_SLICE[0][c >> 24])
        s += 4
        n -= 4
    while n > 0:
        c = CRC_TABLE[(c ^ s[0]) & 0xFF] ^ (c >> 8)
        s += 1
        n -= 1
    return c ^ 0xFFFFFFFFU


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
