# Text runs of the HTML scanner (included by _html.pxi): character references decoded as
# html.unescape decodes them (natively for the common ones), then appended to the page.

# the named character references decoded natively (``&name;`` only; any other goes to
# ``html.unescape``), their code points taken from ``html.entities.html5`` at first use
_ENTITIES = (
    "amp", "lt", "gt", "quot", "apos", "nbsp", "copy", "reg", "mdash", "ndash", "hellip",
    "laquo", "raquo", "para", "sect", "middot", "trade", "lsquo", "rsquo", "ldquo", "rdquo",
    "bull", "times", "shy", "deg", "rarr", "larr",
)  # fmt: skip
DEF N_ENTITIES = 27
cdef char _ent_name[N_ENTITIES][8]
cdef int _ent_len[N_ENTITIES]
cdef uint32_t _ent_cp[N_ENTITIES]
cdef bint _ent_ready = False

cdef int _entities() except -1:
    global _ent_ready
    from html.entities import html5
    for k, name in enumerate(_ENTITIES):
        _ent_len[k] = len(name)
        raw = name.encode()
        memcpy(_ent_name[k], <const char*>raw, len(name))
        _ent_cp[k] = ord(html5[name + ";"])
    _ent_ready = True
    return 0


cdef inline Py_ssize_t _entity(const hch_t* s, Py_ssize_t i, Py_ssize_t n, uint32_t* cp) noexcept nogil:
    """The end of the character reference ``&...;`` at ``i`` decoded natively (into ``cp``),
    ``i + 1`` for an ``&`` that is kept as it is, or -1: let ``html.unescape`` decode it."""
    cdef Py_ssize_t j = i + 1, k
    cdef uint32_t c = _at(s, n, j), v = 0
    if c == 9 or c == 10 or c == 12 or c == 32 or c == 60 or c == 38 or c == 59 or c == 0:
        cp[0] = 38
        return i + 1
    if c == 35:  # &#digits; and &#xhex; in the ranges unescape maps to themselves
        j += 1
        if _at(s, n, j) | 32 == 120:
            j += 1
            while j < n and j - i < 10 and (48 <= s[j] <= 57 or 97 <= (s[j] | 32) <= 102):
                v = v * 16 + (s[j] - 48 if s[j] <= 57 else (s[j] | 32) - 87)
                j += 1
        else:
            while j < n and j - i < 10 and 48 <= s[j] <= 57:
                v = v * 10 + s[j] - 48
                j += 1
        if _at(s, n, j) != 59 or not (v == 9 or 32 <= v <= 126 or 160 <= v <= 0xD7FF or 0xE000 <= v <= 0xFDCF):
            return -1
        if s[j - 1] == 35 or s[j - 1] | 32 == 120:
            return -1
        cp[0] = v
        return j + 1
    while j < n and j - i <= 8 and _alpha(s[j]):
        j += 1
    if _at(s, n, j) != 59:
        return -1
    for k in range(N_ENTITIES):
        if _ent_len[k] == j - i - 1 and _same(s, i + 1, j, _ent_name[k]):
            cp[0] = _ent_cp[k]
            return j + 1
    return -1


cdef int _feed_str(_Page page, str u, int line, int sink) except -1:
    cdef int kind = PyUnicode_KIND(u)
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(u)
    if kind == 1:
        return _hfeed(page, <const uint8_t*>PyUnicode_DATA(u), 0, n, line, sink)
    if kind == 2:
        return _hfeed(page, <const uint16_t*>PyUnicode_DATA(u), 0, n, line, sink)
    return _hfeed(page, <const uint32_t*>PyUnicode_DATA(u), 0, n, line, sink)


cdef int _data(str text, const hch_t* s, Py_ssize_t i, Py_ssize_t j, _Page page, int line, int sink) except -1:
    """``handle_data(unescape(text[i:j]))``; 1 to hand the page back."""
    cdef Py_ssize_t p, k, amp = _find(s, i, j, 38)
    cdef HBuf* tmp = &page.tmp_b
    cdef uint32_t cp
    if amp < 0:
        return _hfeed(page, s, i, j, line, sink)
    _hreserve(tmp, j - i)
    tmp.n = 0
    for p in range(i, amp):
        tmp.d[tmp.n] = s[p]
        tmp.n += 1
    p = amp
    while p < j:
        if s[p] != 38:
            tmp.d[tmp.n] = s[p]
            tmp.n += 1
            p += 1
            continue
        k = _entity(s, p, j, &cp)
        if k < 0:  # a reference decoded by unescape, whose newlines must be the source's
            raw = text[i:j]
            decoded = unescape(raw)
            if decoded.count("\n") != raw.count("\n"):
                return 1
            return _feed_str(page, decoded, line, sink)
        tmp.d[tmp.n] = cp
        tmp.n += 1
        p = k
    return _hfeed(page, <const uint32_t*>tmp.d, 0, tmp.n, line, sink)


cdef int _hfeed(_Page page, const hch_t* s, Py_ssize_t a, Py_ssize_t b, int line, int sink) except -1:
    """Append the decoded run ``s[a:b]`` (no ``&`` left in it) to ``sink`` at ``line``; 1 to
    hand the page back."""
    cdef HBuf* buf
    cdef uint32_t c
    cdef Py_ssize_t k
    if sink == SINK_NONE:
        return 0
    if page.toc_depth and sink != SINK_TITLE:
        for k in range(a, b):
            if not _hspace(s[k]):
                page.list_text(sink)
                break
    if page.at_line(sink, line):
        return 1
    buf = page.buf(sink)
    _hreserve(buf, b - a + 1)
    if sink == SINK_CODE:
        for k in range(a, b):
            c = s[k]
            if c == 10:
                page.newline(sink)
            else:
                buf.d[buf.n] = c
                buf.n += 1
    elif sink == SINK_TEXT:
        for k in range(a, b):
            c = s[k]
            if c == 10:
                page.newline(sink)
            else:
                _hput(buf, c)
    else:
        for k in range(a, b):
            _hput(buf, s[k])
    return 0
