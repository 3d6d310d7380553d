# Included by _tokenize.pyx (one compilation unit); see its docstring.
# ---------------------------------------------------------------------------------------------
# The scanner
# ---------------------------------------------------------------------------------------------

cdef enum Mode:
    MODE_COLLECT = 0   # append token bytes to a blob (to build str objects later)
    MODE_HASH = 1      # append the token's hash64
    MODE_BUCKET = 2    # count CRC-32 % dim into a row
    MODE_TERMS = 3     # append the token's term id (a TermTable, see _terms.pxi)
    MODE_HASH_BUCKET = 4  # both MODE_HASH and MODE_BUCKET, from one scan


cdef struct Sink:
    int mode
    const StopSet* stops
    bint fold
    # scratch for the token being built
    uint8_t* tok
    Py_ssize_t tok_cap
    # scratch for an ASCII segment, copied with zero bytes after it (see _scan_ascii)
    uint8_t* seg
    Py_ssize_t seg_cap
    # MODE_COLLECT: blob + ends ; MODE_HASH: hashes ; MODE_TERMS: terms + ids
    uint8_t* blob
    Py_ssize_t blob_len, blob_cap
    int64_t* ends
    uint64_t* hashes
    TermTable* terms
    int64_t* ids
    Py_ssize_t count, cap
    # MODE_BUCKET (and MODE_HASH_BUCKET)
    int64_t* counts
    int64_t* touched
    Py_ssize_t n_touched
    Py_ssize_t dim
    Py_ssize_t dim_mask   # dim - 1 when dim is a power of two (bucket by mask), else -1
    bint failed


ctypedef fused ucs_t:   # a PEP 393 string's code unit: 1, 2 or 4 bytes
    uint8_t
    uint16_t
    uint32_t


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


cdef inline void _count(Sink* k, uint32_t crc) noexcept nogil:
    """MODE_BUCKET: count a kept token whose CRC-32 is ``crc`` into its bucket."""
    cdef uint32_t b
    if k.dim_mask >= 0:
        b = crc & <uint32_t>k.dim_mask
    else:
        b = crc % <uint32_t>k.dim
    # Branch-free: whether a bucket is new to the row is a coin toss the CPU would mispredict,
    # so the bucket is always written to the next ``touched`` slot (``touched`` has dim + 1
    # slots: n_touched never passes dim) and the slot is kept only if the bucket was empty.
    k.touched[k.n_touched] = b
    k.n_touched += k.counts[b] == 0
    k.counts[b] += 1


cdef inline void _put_hashed(Sink* k, const uint8_t* t, Py_ssize_t n, uint64_t h) noexcept nogil:
    """MODE_HASH / MODE_HASH_BUCKET / MODE_TERMS: append a kept token's hash64 ``h``, or its
    term id."""
    if k.mode != MODE_TERMS:
        if not _grow(<void**>&k.hashes, &k.cap, k.count + 1, sizeof(uint64_t)):
            k.failed = True
            return
        k.hashes[k.count] = h
    else:
        if not _grow(<void**>&k.ids, &k.cap, k.count + 1, sizeof(int64_t)):
            k.failed = True
            return
        k.ids[k.count] = _term_id(k.terms, h, t, n)
        if k.ids[k.count] < 0:
            k.failed = True
            return
    k.count += 1


cdef inline void _keep(Sink* k, uint8_t* t, Py_ssize_t n, Py_ssize_t nchars) noexcept nogil:
    """The one step after a token is scanned, for every scanner: drop it if it is a stop
    word, fold a plural, then hash it once (in the mode's function: CRC-32 for MODE_BUCKET,
    both for MODE_HASH_BUCKET, hash64 otherwise) and hand it to the mode's sink. ``t`` is the token buffer (8 bytes from
    its start readable, see _room); stop words are found without hashing (_is_stop), so a
    dropped token is never hashed and a folded one is hashed once."""
    cdef Py_ssize_t i
    if k.stops != NULL and n <= k.stops.max_len and _is_stop(k.stops, t, n):
        return
    if k.fold:
        n = _fold(t, n, nchars)
    if k.mode == MODE_BUCKET:
        _count(k, _crc32_padded(t, n))
    elif k.mode == MODE_HASH or k.mode == MODE_TERMS:
        _put_hashed(k, t, n, _hash64(t, n))
    elif k.mode == MODE_HASH_BUCKET:
        _count(k, _crc32_padded(t, n))
        _put_hashed(k, t, n, _hash64(t, n))
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


cdef inline void _emit(Sink* k, Py_ssize_t n, Py_ssize_t nchars) noexcept nogil:
    """``_keep`` for the token in ``k.tok``."""
    _keep(k, k.tok, n, nchars)


cdef inline bint _room(Sink* k, Py_ssize_t need) noexcept nogil:
    # The token buffer starts at 64 bytes (_grow), so 8 bytes from its start are readable
    # whatever the token's length: _crc32_padded and the stop-word test rely on that.
    if need <= k.tok_cap:
        return True
    if _grow(<void**>&k.tok, &k.tok_cap, need, 1):
        return True
    k.failed = True
    return False


cdef extern from *:
    """
    #define DOCQA_CTZ64(x) ((Py_ssize_t)__builtin_ctzll(x))
    """
    # Trailing zero bits of a non-zero word (GCC/Clang builtin, as the build's compilers).
    Py_ssize_t _ctz64 "DOCQA_CTZ64"(uint64_t x) noexcept nogil


cdef inline uint64_t _alnum8(uint64_t x, uint64_t u) noexcept nogil:
    # SWAR over 8 ASCII bytes ``x`` (each < 0x80) with ``u = x | 0x20`` per byte: the high bit
    # of each byte that is [0-9A-Za-z], the same set as ASCII_ALNUM. For a byte v < 0x80,
    # v + (0x80 - lo) has its high bit set iff v >= lo and v + (0x7F - hi) iff v > hi, and
    # neither sum carries into the next byte. OR-ing 0x20 maps A-Z onto a-z; no other byte
    # lands in a-z, and digits already have that bit.
    cdef uint64_t lo_a = u + 0x1F1F1F1F1F1F1F1FULL    # 0x80 - 0x61
    cdef uint64_t hi_z = u + 0x0505050505050505ULL    # 0x7F - 0x7A
    cdef uint64_t lo_0 = x + 0x5050505050505050ULL    # 0x80 - 0x30
    cdef uint64_t hi_9 = x + 0x4646464646464646ULL    # 0x7F - 0x39
    return ((lo_a & ~hi_z) | (lo_0 & ~hi_9)) & 0x8080808080808080ULL


cdef inline void _store8(uint8_t* p, uint64_t x) noexcept nogil:
    # Eight bytes, little-endian on any host (one store where the host is little-endian).
    cdef int i
    for i in range(8):
        p[i] = <uint8_t>(x >> (8 * i))


cdef void _scan_ascii(const ucs_t* s, Py_ssize_t n, Sink* k) noexcept nogil:
    # An ASCII segment, or an ASCII stretch of a wider string (every code unit < 128; see
    # _scan_wide), eight bytes at a time: every scanner's fast path. The segment is
    # copied into scratch with 8 zero bytes after it (a memcpy, ~1% of the scan), so every
    # 8-byte load is in bounds and a zero byte ends a token at the segment's end. Per step,
    # _alnum8 marks the token bytes and the lowered bytes are stored whole; a token's length
    # is a count of trailing ones, so the loop branches once per 8 bytes, not once per byte
    # (a token's variable length was a branch the CPU mispredicted once per token).
    cdef const uint8_t* p
    cdef const uint8_t* end
    cdef Py_ssize_t nb, run
    cdef uint8_t* tok
    cdef uint64_t x, u, m
    cdef Py_ssize_t i
    if n <= 0:
        return
    if not _room(k, n + 8):  # the token and 8 bytes of over-store
        return
    if not _grow(<void**>&k.seg, &k.seg_cap, n + 8, 1):
        k.failed = True
        return
    if ucs_t is uint8_t:
        memcpy(k.seg, s, n)
    else:  # narrowed while copied (a loop the compiler vectorises)
        for i in range(n):
            k.seg[i] = <uint8_t>s[i]
    memset(k.seg + n, 0, 8)
    tok = k.tok
    p = k.seg
    end = k.seg + n
    while True:
        # Find the next token's first byte (p < end here, so p[0:8] is in the scratch).
        while True:
            x = _load8(p)
            m = _alnum8(x, x | 0x2020202020202020ULL)
            if m != 0:
                break
            p += 8
            if p >= end:
                return
        p += _ctz64(m) >> 3  # in the segment: the padding holds no token byte
        nb = 0
        while True:
            x = _load8(p)
            u = x | 0x2020202020202020ULL
            _store8(tok + nb, u)
            m = ~_alnum8(x, u) & 0x8080808080808080ULL
            run = 8 if m == 0 else _ctz64(m) >> 3
            nb += run
            p += run
            if run < 8:
                break
        # p is at the byte that ended the token: not a token byte, or the padding.
        _keep(k, tok, nb, nb)
        if k.failed:
            return
        p += 1
        if p >= end:
            return


cdef inline Py_ssize_t _ascii_end(const ucs_t* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    # The first index >= i whose code unit is not ASCII, or n; eight units a step.
    cdef uint32_t acc
    while i + 8 <= n:
        acc = s[i] | s[i + 1] | s[i + 2] | s[i + 3] | s[i + 4] | s[i + 5] | s[i + 6] | s[i + 7]
        if acc >= 128:
            break
        i += 8
    while i < n and s[i] < 128:
        i += 1
    return i


cdef inline bint _cut(uint32_t ch) noexcept nogil:
    # An ASCII character that is not alphanumeric: no token spans it, in any scanner.
    return ch < 128 and not ASCII_ALNUM[ch]


cdef void _scan_wide(const ucs_t* s, Py_ssize_t n, Sink* k) noexcept nogil:
    # A string holding some non-ASCII characters: most documents hold a few (a curly quote, a
    # dash, a name) in otherwise ASCII text. Around each non-ASCII character the stretch out
    # to the nearest ASCII non-alphanumeric on either side goes to the general scanner
    # (_scan_kind); the ASCII between such stretches goes to the fast one. No token crosses
    # a cut, so the tokens are those of one _scan_kind over the whole string (the twin tests
    # check every mode on mixed texts, and every code point in a word).
    cdef Py_ssize_t i = 0, a, b, done = 0
    while not k.failed:
        i = _ascii_end(s, i, n)
        if i == n:
            break
        a = i
        while a > done and not _cut(s[a - 1]):
            a -= 1
        b = i + 1
        while b < n and not _cut(s[b]):
            b += 1
        if a > done:
            _scan_ascii(s + done, a - done, k)
        if not k.failed:
            _scan_kind(s + a, b - a, k)
        done = i = b
    if done < n and not k.failed:
        _scan_ascii(s + done, n - done, k)


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


cdef inline uint32_t _lower(uint32_t ch) noexcept nogil:
    # Per character equal to str.lower() for every code point except U+0130 (which lowers to
    # two characters) and the context-dependent final sigma; texts holding U+0130 or U+03A3
    # are lowered whole by str.lower() before scanning (see Batch), so this is exact.
    if ch < 128:
        return ASCII_LOWER[ch]
    return Py_UNICODE_TOLOWER(ch)


cdef void _scan_kind(const ucs_t* s, Py_ssize_t n, Sink* k) noexcept nogil:
    # A PEP 393 string of any kind, in one pass: lower each character once, copy the runs of
    # alphanumerics into the token buffer as UTF-8 (buffer and capacity in locals, see
    # _scan_ascii).
    cdef Py_ssize_t i = 0, nb, nchars
    cdef Py_ssize_t cap = k.tok_cap
    cdef uint8_t* tok = k.tok
    cdef uint32_t ch
    while i < n:
        ch = _lower(s[i])
        i += 1
        if not _alnum(ch):
            continue
        nb = 0
        nchars = 0
        while True:
            if nb + 4 > cap:
                if not _room(k, nb + 4):
                    return
                tok = k.tok
                cap = k.tok_cap
            if ch < 128:
                tok[nb] = <uint8_t>ch
                nb += 1
            else:
                nb += _put_utf8(tok + nb, ch)
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
