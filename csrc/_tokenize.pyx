# cython: language_level=3
"""Private native core of docqa's tokenizer (wrapped by ``docqa.text.tokenize``).

The algorithm is defined by ``docqa.text.tokenize_reference``; this module is its fast twin:

* tokens are the maximal runs of characters for which ``str.isalnum()`` is true in
  ``text.lower()`` (ASCII texts take a table-driven fast path; other texts are lowered per
  character with CPython's own case tables, compiled once per string width, and scanned with
  the same character database ``isalnum`` uses; the two characters whose lowering is not per
  character, U+0130 and the final-sigma rule of U+03A3, send their text through ``str.lower``);
* optional stop-word removal (the words come from Python data, see ``Vocab``);
* optional plural folding (Harman's S-stemmer, on tokens of 4+ characters);
* every token is worked on as UTF-8 bytes in a scratch buffer, so hashing (CRC-32 for the
  hashing embedder's buckets, a 64-bit FNV-1a + murmur finaliser for term ids) needs no
  Python object.

Every scan runs with the GIL released; only building ``str`` results needs it.
"""

from libc.stdlib cimport calloc, malloc, realloc, free
from libc.string cimport memcmp, memcpy, memset
from cpython.ref cimport PyObject, Py_INCREF, Py_DECREF
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int64_t
from libc.math cimport sqrt

cdef extern from "Python.h":
    int PyUnicode_KIND(object u)
    void* PyUnicode_DATA(object u)
    Py_ssize_t PyUnicode_GET_LENGTH(object u)
    bint PyUnicode_IS_ASCII(object u)
    uint32_t PyUnicode_READ(int kind, void* data, Py_ssize_t i) nogil
    bint Py_UNICODE_ISALNUM(uint32_t ch) nogil
    uint32_t Py_UNICODE_TOLOWER(uint32_t ch) nogil
    const char* PyUnicode_AsUTF8AndSize(object u, Py_ssize_t* size) except NULL
    object PyUnicode_DecodeUTF8(const char* s, Py_ssize_t size, const char* errors)
    object PyUnicode_FromKindAndData(int kind, const void* buf, Py_ssize_t size)
    object PyUnicode_FromObject(object obj)

# ---------------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------------

cdef uint32_t CRC_TABLE[256]
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
    for i in range(128):
        ASCII_LOWER[i] = <uint8_t>(i + 32 if 65 <= i <= 90 else i)
        ASCII_ALNUM[i] = 1 if (48 <= i <= 57 or 65 <= i <= 90 or 97 <= i <= 122) else 0


_init_tables()


cdef inline uint32_t _crc32(const uint8_t* s, Py_ssize_t n) noexcept nogil:
    # CRC-32 with zlib's polynomial, byte at a time. Written here rather than linking zlib:
    # tokens average ~6 bytes, where a 256-entry table is as fast as zlib's wide variants,
    # and it keeps the build free of system headers.
    cdef uint32_t c = 0xFFFFFFFFU
    cdef Py_ssize_t i
    for i in range(n):
        c = CRC_TABLE[(c ^ s[i]) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFFU


cdef inline uint64_t _hash64(const uint8_t* s, Py_ssize_t n) noexcept nogil:
    # FNV-1a over the UTF-8 bytes, then murmur3's fmix64 finaliser to spread the bits.
    cdef uint64_t h = 0xCBF29CE484222325ULL
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ s[i]) * 0x100000001B3ULL
    h ^= h >> 33
    h *= 0xFF51AFD7ED558CCDULL
    h ^= h >> 33
    h *= 0xC4CEB9FE1A85EC53ULL
    h ^= h >> 33
    return h


def crc32(bytes data):
    """CRC-32 of ``data`` (equal to ``zlib.crc32``); exposed for tests."""
    return _crc32(<const uint8_t*>data, len(data))


def hash64(bytes data):
    """The 64-bit token hash of ``data``; exposed for tests and the reference twin."""
    return _hash64(<const uint8_t*>data, len(data))

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
    cdef object _crc_keys, _crc_word, _h64_keys, _h64_word, _starts, _lengths
    cdef readonly frozenset words

    def __cinit__(self, words):
        import array
        self.words = frozenset(words)
        for w in self.words:
            if not isinstance(w, str) or not w:
                raise TypeError(f"stop words must be non-empty str, got {w!r}")
        encoded = sorted(w.encode("utf-8") for w in self.words)
        cdef Py_ssize_t size = 16, i
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
        cdef int64_t[::1] starts = self._starts
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
        self.s.blob = <uint8_t*>(<const char*>self._blob)
        self.s.mask = mask
        self.s.max_len = max_len

    def __reduce__(self):
        return (Vocab, (sorted(self.words),))


cdef inline bint _is_stop(const StopSet* s, const uint8_t* tok, Py_ssize_t n,
                          uint64_t h, bint by_crc) noexcept nogil:
    """Whether ``tok`` is a stop word; ``h`` is its CRC-32 (``by_crc``) or its hash64."""
    cdef const uint64_t* keys = s.crc_keys if by_crc else s.h64_keys
    cdef const int64_t* word = s.crc_word if by_crc else s.h64_word
    cdef uint64_t key = _crc_key(h) if by_crc else (h | 1)
    cdef uint64_t slot = key & s.mask
    cdef int64_t w
    while keys[slot] != 0:
        if keys[slot] == key:
            w = word[slot]
            if s.lengths[w] == n and memcmp(s.blob + s.starts[w], tok, n) == 0:
                return True
        slot = (slot + 1) & s.mask
    return False

# ---------------------------------------------------------------------------------------------
# The scanner
# ---------------------------------------------------------------------------------------------

cdef enum Mode:
    MODE_COLLECT = 0   # append token bytes to a blob (to build str objects later)
    MODE_HASH = 1      # append the token's hash64
    MODE_BUCKET = 2    # count CRC-32 % dim into a row


cdef struct Sink:
    int mode
    const StopSet* stops
    bint fold
    # scratch for the token being built
    uint8_t* tok
    Py_ssize_t tok_cap
    # MODE_COLLECT: blob + ends ; MODE_HASH: hashes
    uint8_t* blob
    Py_ssize_t blob_len, blob_cap
    int64_t* ends
    uint64_t* hashes
    Py_ssize_t count, cap
    # MODE_BUCKET
    int64_t* counts
    int64_t* touched
    Py_ssize_t n_touched
    Py_ssize_t dim
    bint failed


cdef inline bint _grow(void** p, Py_ssize_t* cap, Py_ssize_t need, Py_ssize_t item) noexcept nogil:
    cdef Py_ssize_t new_cap
    cdef void* q
    if need <= cap[0]:
        return True
    new_cap = cap[0] * 2 if cap[0] > 0 else 64
    while new_cap < need:
        new_cap *= 2
    q = realloc(p[0], new_cap * item)
    if q == NULL:
        return False
    p[0] = q
    cap[0] = new_cap
    return True


cdef inline Py_ssize_t _fold(uint8_t* t, Py_ssize_t n, Py_ssize_t nchars) noexcept nogil:
    # Harman's S-stemmer on tokens of 4+ characters; first matching rule only:
    #   -ies -> -y  unless preceded by e or a;  -es -> -e  unless preceded by a, e or o;
    #   -s   -> ''  unless preceded by u or s.
    if nchars < 4 or t[n - 1] != 115:  # 's'
        return n
    if t[n - 2] == 101 and t[n - 3] == 105 and t[n - 4] != 101 and t[n - 4] != 97:  # ies
        t[n - 3] = 121  # 'y'
        return n - 2
    if t[n - 2] == 101 and t[n - 3] != 97 and t[n - 3] != 101 and t[n - 3] != 111:  # es
        return n - 1
    if t[n - 2] != 117 and t[n - 2] != 115:  # s
        return n - 1
    return n


cdef inline void _emit(Sink* k, Py_ssize_t n, Py_ssize_t nchars) noexcept nogil:
    cdef uint8_t* t = k.tok
    cdef uint32_t b
    cdef uint64_t h = 0
    cdef bint have = False
    cdef bint by_crc = k.mode == MODE_BUCKET
    cdef Py_ssize_t i, folded
    if k.stops != NULL and n <= k.stops.max_len:
        h = _crc32(t, n) if by_crc else _hash64(t, n)
        have = True
        if _is_stop(k.stops, t, n, h, by_crc):
            return
    if k.fold:
        folded = _fold(t, n, nchars)
        if folded != n:  # every fold shortens the token, so the hash is stale
            have = False
            n = folded
    if k.mode == MODE_BUCKET:
        if not have:
            h = _crc32(t, n)
        b = <uint32_t>h % <uint32_t>k.dim
        if k.counts[b] == 0:
            k.touched[k.n_touched] = b
            k.n_touched += 1
        k.counts[b] += 1
    elif k.mode == MODE_HASH:
        if not _grow(<void**>&k.hashes, &k.cap, k.count + 1, sizeof(uint64_t)):
            k.failed = True
            return
        k.hashes[k.count] = h if have else _hash64(t, n)
        k.count += 1
    else:
        if not _grow(<void**>&k.blob, &k.blob_cap, k.blob_len + n, 1) or \
                not _grow(<void**>&k.ends, &k.cap, k.count + 1, sizeof(int64_t)):
            k.failed = True
            return
        for i in range(n):
            k.blob[k.blob_len + i] = t[i]
        k.blob_len += n
        k.ends[k.count] = k.blob_len
        k.count += 1


cdef inline bint _room(Sink* k, Py_ssize_t need) noexcept nogil:
    if need <= k.tok_cap:
        return True
    if _grow(<void**>&k.tok, &k.tok_cap, need, 1):
        return True
    k.failed = True
    return False


cdef void _scan_ascii(const uint8_t* s, Py_ssize_t n, Sink* k) noexcept nogil:
    # One pass: each character is classified and, inside a token, copied lower-cased.
    cdef Py_ssize_t i = 0, nb
    cdef uint8_t c
    while i < n:
        c = s[i]
        i += 1
        if not ASCII_ALNUM[c]:
            continue
        nb = 0
        while True:
            if nb == k.tok_cap and not _room(k, nb + 1):
                return
            k.tok[nb] = ASCII_LOWER[c]
            nb += 1
            if i == n:
                break
            c = s[i]
            i += 1
            if not ASCII_ALNUM[c]:
                break
        _emit(k, nb, nb)
        if k.failed:
            return


cdef inline Py_ssize_t _put_utf8(uint8_t* out, uint32_t ch) noexcept nogil:
    if ch < 0x80:
        out[0] = <uint8_t>ch
        return 1
    if ch < 0x800:
        out[0] = <uint8_t>(0xC0 | (ch >> 6))
        out[1] = <uint8_t>(0x80 | (ch & 0x3F))
        return 2
    if ch < 0x10000:
        out[0] = <uint8_t>(0xE0 | (ch >> 12))
        out[1] = <uint8_t>(0x80 | ((ch >> 6) & 0x3F))
        out[2] = <uint8_t>(0x80 | (ch & 0x3F))
        return 3
    out[0] = <uint8_t>(0xF0 | (ch >> 18))
    out[1] = <uint8_t>(0x80 | ((ch >> 12) & 0x3F))
    out[2] = <uint8_t>(0x80 | ((ch >> 6) & 0x3F))
    out[3] = <uint8_t>(0x80 | (ch & 0x3F))
    return 4


cdef inline bint _alnum(uint32_t ch) noexcept nogil:
    if ch < 128:
        return ASCII_ALNUM[ch]
    return Py_UNICODE_ISALNUM(ch)


ctypedef fused ucs_t:
    uint8_t
    uint16_t
    uint32_t


cdef inline uint32_t _lower(uint32_t ch) noexcept nogil:
    # Per character equal to str.lower() for every code point except U+0130 (which lowers to
    # two characters) and the context-dependent final sigma; texts holding U+0130 or U+03A3
    # are lowered whole by str.lower() before scanning (see Batch), so this is exact.
    if ch < 128:
        return ASCII_LOWER[ch]
    return Py_UNICODE_TOLOWER(ch)


cdef void _scan_kind(const ucs_t* s, Py_ssize_t n, Sink* k) noexcept nogil:
    # A PEP 393 string of any kind, in one pass: lower each character once, copy the runs of
    # alphanumerics into the token buffer as UTF-8.
    cdef Py_ssize_t i = 0, nb, nchars
    cdef uint32_t ch
    while i < n:
        ch = _lower(s[i])
        i += 1
        if not _alnum(ch):
            continue
        nb = 0
        nchars = 0
        while True:
            if nb + 4 > k.tok_cap and not _room(k, nb + 4):
                return
            if ch < 128:
                k.tok[nb] = <uint8_t>ch
                nb += 1
            else:
                nb += _put_utf8(k.tok + nb, ch)
            nchars += 1
            if i == n:
                break
            ch = _lower(s[i])
            i += 1
            if not _alnum(ch):
                break
        _emit(k, nb, nchars)
        if k.failed:
            return


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

# ---------------------------------------------------------------------------------------------
# Batches: texts pinned once under the GIL, then scanned without it
# ---------------------------------------------------------------------------------------------

def _lower_special_words(str t):
    """``t`` with every whitespace-delimited word holding U+0130 or U+03A3 lowered by
    ``str.lower``: the two characters whose lowering is not per character (U+0130 becomes two
    characters; U+03A3 lowers by its context, the final-sigma rule). The rule's context skips
    only case-ignorable characters, and no whitespace character is cased or case-ignorable,
    so lowering these words alone equals lowering the whole text (which would cost a pass over
    all of it); the rest is lowered per character by the scanner."""
    cdef Py_ssize_t n = len(t), pos = 0, i, start, end
    hits = sorted(j for ch in ("\u0130", "\u03a3") for j in _find_all(t, ch))
    parts = []
    for i in hits:
        if i < pos:
            continue
        start = i
        while start > pos and not t[start - 1].isspace():
            start -= 1
        end = i + 1
        while end < n and not t[end].isspace():
            end += 1
        parts.append(t[pos:start])
        parts.append(t[start:end].lower())
        pos = end
    parts.append(t[pos:])
    return "".join(parts)


def _find_all(str t, str ch):
    cdef Py_ssize_t i = t.find(ch)
    while i >= 0:
        yield i
        i = t.find(ch, i + 1)


cdef class Batch:
    """A list of texts pinned for GIL-free scanning (texts holding U+0130 or U+03A3 are
    lower-cased whole by ``str.lower`` first; every other text is lowered per character)."""
    cdef list _keep
    cdef readonly Py_ssize_t n
    cdef object _ptrs, _lens, _kinds

    def __cinit__(self, texts):
        import array
        cdef Py_ssize_t i
        self._keep = []
        self._ptrs = array.array("Q")
        self._lens = array.array("q")
        self._kinds = array.array("b")
        for i, t in enumerate(texts):
            if type(t) is not str:
                if not isinstance(t, str):
                    raise TypeError(
                        f"texts[{i}] is {type(t).__name__}, expected str; "
                        "decode bytes first (e.g. data.decode('utf-8'))")
                t = PyUnicode_FromObject(t)  # the value, never an overridden __str__
            if not PyUnicode_IS_ASCII(t) and ("\u0130" in t or "\u03a3" in t):
                t = _lower_special_words(t)
            self._keep.append(t)
            self._ptrs.append(<uint64_t>PyUnicode_DATA(t))
            self._lens.append(PyUnicode_GET_LENGTH(t))
            # kind 0 marks the ASCII fast path
            self._kinds.append(0 if PyUnicode_IS_ASCII(t) else PyUnicode_KIND(t))
        self.n = len(self._keep)


cdef inline void _scan_one(Py_ssize_t i, Sink* k,
                           const uint64_t* ptrs, const int64_t* lens,
                           const signed char* kinds) noexcept nogil:
    if kinds[i] == 0:
        _scan_ascii(<const uint8_t*>ptrs[i], lens[i], k)
    elif kinds[i] == 1:
        _scan_kind(<const uint8_t*>ptrs[i], lens[i], k)
    elif kinds[i] == 2:
        _scan_kind(<const uint16_t*>ptrs[i], lens[i], k)
    else:
        _scan_kind(<const uint32_t*>ptrs[i], lens[i], k)


cdef void _free_sink(Sink* k) noexcept nogil:
    free(k.tok)
    free(k.blob)
    free(k.ends)
    free(k.hashes)
    free(k.counts)
    free(k.touched)


cdef const StopSet* _stops_of(Vocab stops):
    return NULL if stops is None else &stops.s


def tokenize_batch(Batch batch not None, Vocab stops, bint fold):
    """Token lists (``list[list[str]]``) for every text of ``batch``."""
    cdef Sink k
    memset(&k, 0, sizeof(Sink))
    k.mode = MODE_COLLECT
    k.stops = _stops_of(stops)
    k.fold = fold
    cdef const uint64_t[::1] ptrs = batch._ptrs
    cdef const int64_t[::1] lens = batch._lens
    cdef const signed char[::1] kinds = batch._kinds
    cdef list out = []
    cdef list toks
    cdef Py_ssize_t i, j, prev
    cdef _StrCache cache = _StrCache()
    try:
        for i in range(batch.n):
            k.blob_len = 0
            k.count = 0
            if batch.n:
                with nogil:
                    _scan_one(i, &k, &ptrs[0], &lens[0], &kinds[0])
            if k.failed:
                raise MemoryError("tokenizer ran out of memory")
            toks = [None] * k.count
            prev = 0
            for j in range(k.count):
                toks[j] = cache.get(k.blob + prev, k.ends[j] - prev)
                prev = k.ends[j]
            out.append(toks)
    finally:
        _free_sink(&k)
    return out


def hash_batch(Batch batch not None, Vocab stops, bint fold):
    """``(hashes uint64 array.array, offsets int64 array.array)``: text i owns
    ``hashes[offsets[i]:offsets[i + 1]]``. No Python object is made per token."""
    import array
    cdef Sink k
    memset(&k, 0, sizeof(Sink))
    k.mode = MODE_HASH
    k.stops = _stops_of(stops)
    k.fold = fold
    offsets = array.array("q", bytes(8 * (batch.n + 1)))
    cdef int64_t[::1] off = offsets
    cdef const uint64_t[::1] ptrs = batch._ptrs
    cdef const int64_t[::1] lens = batch._lens
    cdef const signed char[::1] kinds = batch._kinds
    cdef Py_ssize_t i
    try:
        if batch.n:
            with nogil:
                for i in range(batch.n):
                    _scan_one(i, &k, &ptrs[0], &lens[0], &kinds[0])
                    if k.failed:
                        break
                    off[i + 1] = k.count
        if k.failed:
            raise MemoryError("tokenizer ran out of memory")
        hashes = array.array("Q", bytes(8 * k.count))
        if k.count:
            _copy_u64(hashes, k.hashes, k.count)
    finally:
        _free_sink(&k)
    return hashes, offsets


cdef void _copy_u64(object dst, const uint64_t* src, Py_ssize_t n):
    cdef uint64_t[::1] d = dst
    memcpy(&d[0], src, n * sizeof(uint64_t))


def embed_hashing_rows(Batch batch not None, Py_ssize_t start, Py_ssize_t stop, Vocab stops, bint fold,
                       float[:, ::1] out):
    """Fill ``out[start:stop]`` with the hashing embedder's rows for texts ``start:stop``:
    CRC-32 bucket counts scaled to unit length (zero rows stay zero). ``out`` must be zeroed.
    Runs entirely without the GIL, so several threads may fill disjoint row ranges."""
    cdef Py_ssize_t dim = out.shape[1]
    if dim < 1:
        raise ValueError(f"dim must be >= 1, got {dim}")
    if not (0 <= start <= stop <= batch.n) or out.shape[0] < stop:
        raise ValueError(f"bad row range {start}:{stop} for {batch.n} texts, {out.shape[0]} rows")
    cdef Sink k
    memset(&k, 0, sizeof(Sink))
    k.mode = MODE_BUCKET
    k.stops = _stops_of(stops)
    k.fold = fold
    k.dim = dim
    k.counts = <int64_t*>malloc(dim * sizeof(int64_t))
    k.touched = <int64_t*>malloc(dim * sizeof(int64_t))
    if k.counts == NULL or k.touched == NULL:
        _free_sink(&k)
        raise MemoryError("cannot allocate hashing buckets")
    memset(k.counts, 0, dim * sizeof(int64_t))
    cdef const uint64_t[::1] ptrs = batch._ptrs
    cdef const int64_t[::1] lens = batch._lens
    cdef const signed char[::1] kinds = batch._kinds
    cdef Py_ssize_t i, j, b
    cdef int64_t ss
    cdef double norm
    try:
        if stop > start:
            with nogil:
                for i in range(start, stop):
                    k.n_touched = 0
                    _scan_one(i, &k, &ptrs[0], &lens[0], &kinds[0])
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
