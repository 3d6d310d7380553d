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
    while i < b:
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
