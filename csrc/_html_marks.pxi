# Whether a page marks its content (included by _html.pxi): the native twin of
# docqa.text.html._MARKS_CONTENT.search (r"<(?:main|article)[\s>]|role\s*=\s*["']?main\b",
# IGNORECASE) in one pass over the code units. Under IGNORECASE the only characters beyond
# ASCII that match one of the pattern's letters are U+0130 and U+0131 (for "i"); \s is
# str.isspace and \b after "main" is a character that is not alphanumeric or "_".

cdef inline bint _word_ci(const hch_t* s, Py_ssize_t n, Py_ssize_t i, const char* word) noexcept nogil:
    cdef Py_ssize_t k = 0
    cdef uint32_t ch, w
    while word[k]:
        if i + k >= n:
            return False
        ch, w = s[i + k], <uint8_t>word[k]
        if w == 105:  # i
            if not (ch == 105 or ch == 73 or ch == 0x130 or ch == 0x131):
                return False
        elif ch >= 128 or (ch | 32) != w:
            return False
        k += 1
    return True


cdef inline Py_ssize_t _skip_space(const hch_t* s, Py_ssize_t n, Py_ssize_t k) noexcept nogil:
    while k < n and _hspace(s[k]):
        k += 1
    return k


cdef bint _role_main(const hch_t* s, Py_ssize_t n, Py_ssize_t i) noexcept nogil:
    """``role\\s*=\\s*["']?main\\b`` matches at ``i``."""
    cdef Py_ssize_t k
    if not _word_ci(s, n, i, b"role"):
        return False
    k = _skip_space(s, n, i + 4)
    if k >= n or s[k] != 61:
        return False
    k = _skip_space(s, n, k + 1)
    if k < n and (s[k] == 34 or s[k] == 39):
        k += 1
    if not _word_ci(s, n, k, b"main"):
        return False
    k += 4
    return k == n or not (s[k] == 95 or _alnum_cp(s[k]))


cdef inline bint _alnum_cp(uint32_t c) noexcept nogil:
    if c < 128:
        return (48 <= c <= 57) or _alpha(c)
    return Py_UNICODE_ISALNUM(c)


cdef bint _marks(const hch_t* s, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i, k
    cdef uint32_t c
    for i in range(n):
        c = s[i]
        if c == 60:
            if _word_ci(s, n, i + 1, b"main"):
                k = i + 5
            elif _word_ci(s, n, i + 1, b"article"):
                k = i + 8
            else:
                continue
            if k < n and (s[k] == 62 or _hspace(s[k])):
                return True
        elif (c | 32) == 114 and _role_main(s, n, i):
            return True
    return False


def marks_content(str text):
    """``bool(docqa.text.html._MARKS_CONTENT.search(text))``: the page marks its content."""
    cdef int kind = PyUnicode_KIND(text)
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text)
    if kind == 1:
        return _marks(<const uint8_t*>PyUnicode_DATA(text), n)
    if kind == 2:
        return _marks(<const uint16_t*>PyUnicode_DATA(text), n)
    return _marks(<const uint32_t*>PyUnicode_DATA(text), n)


cdef inline bint _is_list(const char* name, int n) noexcept nogil:
    """``name`` (``n`` bytes) is ``ul`` or ``ol``."""
    return n == 2 and (memcmp(name, b"ul", 2) == 0 or memcmp(name, b"ol", 2) == 0)
