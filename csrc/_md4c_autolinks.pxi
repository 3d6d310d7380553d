# URI and email autolinks as md4c 0.4.8 and markdown-it read and show them (included by
# _md4c.pyx before _md4c_scan.pxi, whose line scan asks _autolink_differs at each "<").


cdef bint _scheme_char(char c):
    return 65 <= c <= 90 or 97 <= c <= 122 or 48 <= c <= 57 or c == 43 or c == 46 or c == 45


cdef bint _md4c_autolink(const unsigned char* data, Py_ssize_t j, Py_ssize_t end):
    """Whether md4c 0.4.8 reads a URI autolink at the ``<`` ``data[j]`` of the line
    ``data[:end]`` (its ``md_is_autolink_uri``): any ASCII character after the ``<``, then
    letters, digits, ``+``, ``-`` or ``.`` up to a ``:`` 3 to 32 bytes after the ``<``, then
    no whitespace, control character or ``<`` up to a ``>``."""
    cdef Py_ssize_t off = j + 1
    if off >= end or data[off] > 127:
        return False
    off += 1
    while True:
        if off >= end or off - j > 32:
            return False
        if data[off] == 58 and off - j >= 3:
            break
        if not _scheme_char(<char>data[off]):
            return False
        off += 1
    while off < end and data[off] != 62:
        if data[off] <= 32 or data[off] == 127 or data[off] == 60:
            return False
        off += 1
    return off < end


cdef int _mdit_autolink(const unsigned char* data, Py_ssize_t j, Py_ssize_t end):
    """markdown-it's URI autolink at the ``<`` ``data[j]`` (its ``autolink`` rule): 0 none, 1
    one, 2 a scheme its ``validateLink`` may refuse (``javascript:``, ``vbscript:``,
    ``file:``, ``data:``). The text up to the first ``<`` or ``>`` must be a letter, 1 to 31
    letters, digits, ``+``, ``.`` or ``-``, a ``:``, then no byte up to a space."""
    cdef Py_ssize_t k = j + 1, colon, m
    while k < end and data[k] != 60 and data[k] != 62:
        k += 1
    if k >= end or data[k] == 60 or k == j + 1 or not (97 <= (data[j + 1] | 32) <= 122):
        return 0
    colon = j + 2
    while colon < k and data[colon] != 58:
        if not _scheme_char(<char>data[colon]):
            return 0
        colon += 1
    if colon >= k or not 3 <= colon - j <= 33:
        return 0
    for m in range(colon + 1, k):
        if data[m] <= 32:
            return 0
    return 2 if _refused_scheme(data + j + 1, colon - j - 1) else 1


cdef bint _refused_scheme(const unsigned char* s, Py_ssize_t n):
    """Whether the scheme ``s[:n]`` (ASCII) is one markdown-it's ``validateLink`` may refuse."""
    cdef const char* names[4]
    cdef Py_ssize_t i, k
    names[:] = [b"javascript", b"vbscript", b"file", b"data"]
    for k in range(4):
        i = 0
        while i < n and names[k][i] != 0 and (s[i] | 32) == <unsigned char>names[k][i]:
            i += 1
        if i == n and names[k][i] == 0:
            return True
    return False


cdef bint _autolink_text_changes(const unsigned char* data, Py_ssize_t j, Py_ssize_t end):
    """Whether markdown-it may show the URI autolink at the ``<`` ``data[j]`` otherwise than
    it is written, as md4c shows it: its ``normalizeLinkText`` (mdurl's parse and format, then
    percent-decoding) changes ``<ab:::1>`` to ``ab::1:``, ``<ab:[x]>`` to ``ab:x``, ``%41`` to
    ``A``, and trims Unicode spaces. A URI holding a ``%``, or after its scheme's ``:`` an
    ``@``, ``:``, ``[``, backslash, ``xn--`` or a byte past ASCII, may change; in a million
    random URIs without them (ASCII, NBSP, U+3000), none did."""
    cdef Py_ssize_t k = j + 1
    cdef bint scheme = True
    cdef unsigned char c
    while k < end and data[k] != 62:
        c = data[k]
        if c == 37:
            return True
        if not scheme and (c == 64 or c == 58 or c == 91 or c == 92 or c > 127):
            return True
        if not scheme and (c | 32) == 120 and k + 3 < end and (data[k + 1] | 32) == 110 \
                and data[k + 2] == 45 and data[k + 3] == 45:
            return True  # "xn--": a hostname markdown-it may decode from punycode
        scheme = scheme and c != 58
        k += 1
    return False


cdef bint _email_text_changes(const unsigned char* data, Py_ssize_t j, Py_ssize_t end):
    """Whether the ``<`` ``data[j]`` may open an email autolink markdown-it shows otherwise
    (``normalizeLinkText`` again): up to a ``>``, no space or ``<``, an ``@``, and a ``%``
    (``<a%41@b.c>`` reads ``aA@b.c``) or a ``/`` first (``<//@x>`` reads ``//x``)."""
    cdef Py_ssize_t k = j + 1
    cdef bint at = False, percent = False
    while k < end and data[k] != 62:
        if data[k] <= 32 or data[k] == 60:
            return False
        at = at or data[k] == 64
        percent = percent or data[k] == 37
        k += 1
    return k < end and at and (percent or data[j + 1] == 47)


cdef bint _autolink_differs(const char* data, Py_ssize_t j, Py_ssize_t end):
    """Whether md4c 0.4.8 and markdown-it read the ``<`` at ``data[j]`` differently as the
    start of a URI autolink (md4c takes ``<11:>``, ``<-b:a>`` or ``<>b:c>`` for autolinks;
    markdown-it takes a 32-letter scheme, refuses some schemes, and may show the URI or
    email address otherwise: ``_autolink_text_changes``, ``_email_text_changes``)."""
    cdef const unsigned char* u = <const unsigned char*>data
    cdef bint md4c = _md4c_autolink(u, j, end)
    cdef int mdit = _mdit_autolink(u, j, end)
    if md4c != (mdit == 1) or mdit == 2 or (mdit == 1 and _autolink_text_changes(u, j, end)):
        return True
    return _email_text_changes(u, j, end)
