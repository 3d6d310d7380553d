# Byte scans of the md4c walk (included by _md4c.pyx): whitespace as str.split sees it, and
# the source patterns where md4c 0.4.8 and markdown-it read a document differently.


cdef inline Py_ssize_t _space(const unsigned char* p, const unsigned char* end):
    """Byte length of the whitespace character (``str.isspace``) at ``p``, 0 if none."""
    cdef unsigned char c = p[0]
    if c < 0x80:
        return 1 if (c == 32 or 9 <= c <= 13 or 28 <= c <= 31) else 0
    if c == 0xC2 and p + 1 < end:
        return 2 if (p[1] == 0x85 or p[1] == 0xA0) else 0
    if p + 2 >= end:
        return 0
    if c == 0xE1:
        return 3 if (p[1] == 0x9A and p[2] == 0x80) else 0
    if c == 0xE2:
        if p[1] == 0x80:
            return 3 if (p[2] <= 0x8A or p[2] == 0xA8 or p[2] == 0xA9 or p[2] == 0xAF) else 0
        return 3 if (p[1] == 0x81 and p[2] == 0x9F) else 0
    if c == 0xE3:
        return 3 if (p[1] == 0x80 and p[2] == 0x80) else 0
    return 0


# Eight bytes at a time: the scans below jump to the first byte of a word that they look for
# (most words hold none), and look at that byte alone.
cdef extern from *:
    """
    #define DOCQA_ONES 0x0101010101010101ULL
    #define DOCQA_HIGHS 0x8080808080808080ULL
    #define DOCQA_FIRST_BYTE(m) ((Py_ssize_t)(__builtin_ctzll(m) >> 3))
    """
    const uint64_t ONES "DOCQA_ONES"
    const uint64_t HIGHS "DOCQA_HIGHS"
    # the index of the lowest byte whose high bit is set in a non-zero mask (GCC/Clang)
    Py_ssize_t _first_byte "DOCQA_FIRST_BYTE"(uint64_t m) noexcept nogil


cdef inline uint64_t _word(const char* p) noexcept nogil:
    """The eight bytes at ``p``, little-endian on any host (one load on x86 and ARM)."""
    cdef const unsigned char* u = <const unsigned char*>p
    return (<uint64_t>u[0] | (<uint64_t>u[1] << 8) | (<uint64_t>u[2] << 16)
            | (<uint64_t>u[3] << 24) | (<uint64_t>u[4] << 32) | (<uint64_t>u[5] << 40)
            | (<uint64_t>u[6] << 48) | (<uint64_t>u[7] << 56))


cdef inline uint64_t _equal(uint64_t x, unsigned char c) noexcept nogil:
    """A mask of the bytes of ``x`` equal to ``c`` (their high bits): zero when none is, and
    its lowest set bit is always the first such byte (a borrow can only mark bytes above
    it, so the mask is exact up to there)."""
    cdef uint64_t v = x ^ (ONES * c)
    return (v - ONES) & ~v & HIGHS


cdef str _normal(char* buf, Py_ssize_t n):
    """``" ".join(text.split())`` of the UTF-8 ``buf[:n]``, squeezed in place."""
    cdef const unsigned char* p = <const unsigned char*>buf
    cdef const unsigned char* end = p + n
    cdef Py_ssize_t out = 0, k
    cdef bint gap = False
    while p < end:
        k = _space(p, end)
        if k:
            gap = out > 0
            p += k
            continue
        if gap:
            buf[out] = 32
            out += 1
            gap = False
        buf[out] = p[0]
        out += 1
        p += 1
    return PyUnicode_DecodeUTF8(buf, out, NULL)


cdef inline int _kind(int c):
    """0 whitespace (or no character), 1 ASCII punctuation, 2 anything else."""
    if c < 0 or c == 32 or 9 <= c <= 13:
        return 0
    if 33 <= c <= 47 or 58 <= c <= 64 or 91 <= c <= 96 or 123 <= c <= 126:
        return 1
    return 2


cdef int _runs(const char* data, Py_ssize_t size, Py_ssize_t a, Py_ssize_t b):
    """The ``*`` and ``_`` delimiter runs that touch ``data[a:b]``, as bits: for ``*`` (bits
    0-3, ``_`` bits 4-7) a run of length 1 or 2 mod 3 (past a backslash that escapes its
    first character, not between two spaces), and one such that may both open and close
    emphasis (both neighbours not whitespace and, for ``*``, of one kind; for ``_``,
    both punctuation; a non-ASCII neighbour counts as either kind)."""
    cdef Py_ssize_t i = a, j, k
    cdef int before, after, mask = 0, shift, mod
    cdef char c
    cdef uint64_t x, m
    while i < b:
        if i + 8 <= b:
            x = _word(data + i)
            m = _equal(x, 42) | _equal(x, 95)
            if m == 0:
                i += 8
                continue
            i += _first_byte(m)  # the first ``*`` or ``_`` of these eight bytes
        c = data[i]
        if c != 42 and c != 95:
            i += 1
            continue
        j = i
        while i > 0 and data[i - 1] == c:
            i -= 1
        while j < size and data[j] == c:
            j += 1
        k = i
        while k > 0 and data[k - 1] == 92:
            k -= 1
        i += (i - k) % 2  # a backslash escapes the run's first character
        mod, shift = (j - i) % 3, 0 if c == 42 else 4
        before = _kind(<unsigned char>data[i - 1] if i > 0 else -1)
        after = _kind(<unsigned char>data[j] if j < size else -1)
        if mod and (before or after):  # between two spaces it is no delimiter
            mask |= 1 << (shift + mod - 1)
            if before and after and (
                <unsigned char>data[i - 1] >= 128 or <unsigned char>data[j] >= 128
                or (before == after if c == 42 else before == 1 and after == 1)
            ):
                mask |= 1 << (shift + mod + 1)
        i = j
    return mask


cdef inline bint _rule_of_three(int mask):
    """Whether CommonMark's rule of three may decide a pair of these runs (a run that may
    open and close, and a run whose length makes a multiple of three with it): md4c 0.4.8
    does not always apply it as markdown-it does."""
    cdef int shift
    for shift in (0, 4):
        if (mask >> (shift + 2) & 1 and mask >> (shift + 1) & 1) or (
            mask >> (shift + 3) & 1 and mask >> shift & 1
        ):
            return True
    return False


cdef Py_ssize_t _skip_prefix(const char* data, Py_ssize_t i, Py_ssize_t end):
    """Past the spaces, tabs and ``>`` at ``data[i:end]``'s start."""
    while i < end and (data[i] == 32 or data[i] == 9 or data[i] == 62):
        i += 1
    return i


cdef bint _tab_before_quote(const char* data, Py_ssize_t i, Py_ssize_t end):
    """Whether a tab comes before a ``>`` among the spaces, tabs and ``>`` that start the
    line ``data[i:end]`` (md4c 0.4.8 and markdown-it expand such a tab differently: ``>``
    then a tab-indented ``>`` is code to md4c, nothing to markdown-it)."""
    cdef bint tab = False
    while i < end and (data[i] == 32 or data[i] == 9 or data[i] == 62):
        if data[i] == 62 and tab:
            return True
        tab |= data[i] == 9
        i += 1
    return False


cdef bint _emphasis_in_destination(
    const char* data, Py_ssize_t line, Py_ssize_t i, Py_ssize_t end
):
    """Whether the link destination from ``data[i]`` (after ``](``, up to the next ``)``)
    starts or ends with a ``*`` or ``_`` that the rest of the line ``data[line:end]`` holds
    too: md4c 0.4.8 may pair it with the one outside (``*[a](b*)``, ``[a](_)_``)."""
    cdef Py_ssize_t j = i, close
    cdef bint star = False, under = False
    while j < end and data[j] != 41:
        j += 1
    close = j
    if close == i:
        return False
    # a delimiter that starts or ends the destination (inside, as in ``a_b``, it cannot flank)
    star = data[i] == 42 or data[close - 1] == 42
    under = data[i] == 95 or data[close - 1] == 95
    if not (star or under):
        return False
    for j in range(line, end):
        if i <= j < close:
            continue
        if (star and data[j] == 42) or (under and data[j] == 95):
            return True
    return False


cdef bint _reads_otherwise(const char* data, Py_ssize_t i, Py_ssize_t end):
    """Whether the line ``data[i:end]`` holds what md4c 0.4.8 reads otherwise than
    markdown-it (found by fuzzing both): an ATX heading's marks then a tab (``#\t#``), a
    ``:`` then ``>``, a ``<`` that one of them reads as a URI autolink and the other not
    (``_autolink_differs``), ``<!`` then a letter (an HTML declaration, which they end
    differently), an empty link text."""
    cdef Py_ssize_t j = i, marks, ticks = 0, last = end - 1
    cdef bint quoted = False
    cdef char c
    cdef uint64_t m
    while j < end and (data[j] == 32 or data[j] == 62):
        quoted |= data[j] == 62
        j += 1
    marks = j
    if j < end and data[j] == 91 and memchr(data + j, 9, end - j) != NULL:
        return True  # a link reference definition and a tab: md4c 0.4.8 keeps the tab
    while last >= i and (data[last] == 32 or data[last] == 9):
        last -= 1
    if last >= i and data[last] == 60:
        return True  # a ``<`` ending the line: md4c 0.4.8 may take an autolink across it
    if quoted:
        for k in range(j, end):
            ticks += data[k] == 96
        if ticks % 2:
            return True  # a code span across quoted lines: md4c 0.4.8 reads it otherwise
    while j < end and data[j] == 35:
        j += 1
    if 0 < j - marks <= 6 and j < end and data[j] == 9:
        return True
    j = i
    while j < end - 1:
        if j + 8 <= end:
            m = _marks8(_word(data + j))
            if m == 0:
                j += 8  # no ``:``, ``<``, ``[`` or ``]`` in these eight bytes
                continue
            j += _first_byte(m)  # the first of them
            if j >= end - 1:
                break
        c = data[j]
        if (c == 58 or c == 60 or c == 91 or c == 93) and _mark_otherwise(data, i, j, end):
            return True
        j += 1
    return False


cdef inline uint64_t _marks8(uint64_t x) noexcept nogil:
    """``_equal``'s mask of the ``:``, ``<``, ``[`` and ``]`` among the eight bytes ``x``."""
    return _equal(x, 58) | _equal(x, 60) | _equal(x, 91) | _equal(x, 93)


cdef bint _mark_otherwise(const char* data, Py_ssize_t i, Py_ssize_t j, Py_ssize_t end):
    """``_reads_otherwise`` at the ``:``, ``<``, ``[`` or ``]`` ``data[j]`` of the line
    ``data[i:end]`` (``j < end - 1``)."""
    if data[j] == 58 and data[j + 1] == 62:
        return True
    if data[j] == 60 and _autolink_differs(data, j, end):
        return True
    if data[j] == 91 and data[j + 1] == 93 and j + 2 < end and data[j + 2] == 40:
        return True  # an empty link text, ``[](``: md4c pairs the emphasis around it otherwise
    if data[j] == 93 and data[j + 1] == 40 and _emphasis_in_destination(data, i, j + 2, end):
        return True
    return data[j] == 60 and data[j + 1] == 33 and j + 2 < end and (
        65 <= data[j + 2] <= 90 or 97 <= data[j + 2] <= 122
    )


cdef bint _bare_marker(const char* data, Py_ssize_t i, Py_ssize_t end):
    """Whether ``data[i:end]`` (a line) is only a list marker: ``-``, ``+``, ``*``, ``1.``."""
    cdef Py_ssize_t digits
    i = _skip_prefix(data, i, end)
    if i < end and (data[i] == 45 or data[i] == 43 or data[i] == 42):
        i += 1
    else:
        digits = i
        while i < end and 48 <= data[i] <= 57:
            i += 1
        if i == digits or i - digits > 9 or i == end or (data[i] != 46 and data[i] != 41):
            return False
        i += 1
    while i < end and (data[i] == 32 or data[i] == 9):
        i += 1
    return i == end


cdef bint _underline_tab(const char* data, Py_ssize_t i, Py_ssize_t end):
    """Whether the line ``data[i:end]`` is a run of ``=`` or ``-`` then spaces and a tab (a
    setext underline to markdown-it, not to md4c 0.4.8)."""
    cdef Py_ssize_t run
    cdef bint tab = False
    i = _skip_prefix(data, i, end)
    run = i
    while i < end and data[i] == data[run] and (data[i] == 61 or data[i] == 45):
        i += 1
    if i == run:
        return False
    while i < end and (data[i] == 32 or data[i] == 9):
        tab |= data[i] == 9
        i += 1
    return tab and i == end


cdef bint _delimiter_like(const char* data, Py_ssize_t i, Py_ssize_t end):
    """Whether the line ``data[i:end]`` could be a table's delimiter row: only ``|``, ``-``,
    ``:``, spaces, tabs and ``>``, with a ``|`` and a ``-``."""
    cdef bint pipe = False, dash = False
    cdef char c
    while i < end:
        c = data[i]
        if c == 124:
            pipe = True
        elif c == 45:
            dash = True
        elif c != 58 and c != 32 and c != 9 and c != 62:
            return False
        i += 1
    return pipe and dash


cdef const char* _blank_after(const char* p, const char* end):
    """The newline that starts the first blank line after ``p`` (or ``end``)."""
    cdef const char* q
    while True:
        p = <const char*>memchr(p, 10, end - p)
        if p == NULL:
            return end
        q = p + 1
        while q < end and (q[0] == 32 or q[0] == 9):
            q += 1
        if q == end or q[0] == 10:
            return p
        p = q
