# The HTML scanner's text buffers (included by _html_page.pxi): code points appended with
# whitespace collapsed as they come (``" ".join(s.split())`` done on the fly), made a Python
# str once per output line, heading, cell row or title.

cdef struct HBuf:
    uint32_t* d
    Py_ssize_t n, cap
    bint pend  # collapsing: a space is due before the next non-space


cdef bint _hreserve(HBuf* b, Py_ssize_t more) except False:
    cdef Py_ssize_t cap
    cdef void* p
    if b.n + more <= b.cap:
        return True
    cap = max(64, 2 * b.cap, b.n + more)
    p = realloc(b.d, cap * sizeof(uint32_t))
    if p == NULL:
        raise MemoryError("cannot grow the HTML text buffer")
    b.d, b.cap = <uint32_t*>p, cap
    return True


cdef inline bint _hspace(uint32_t c) noexcept nogil:
    """A character ``str.split()`` splits on."""
    if c < 128:
        return c == 32 or (9 <= c <= 13) or (28 <= c <= 31)
    return Py_UNICODE_ISSPACE(c)


cdef inline void _hput(HBuf* b, uint32_t c) noexcept nogil:
    """Append ``c`` collapsing whitespace (room reserved: a character and a space)."""
    if _hspace(c):
        b.pend = b.n > 0
        return
    if b.pend:
        b.d[b.n] = 32
        b.n += 1
        b.pend = False
    b.d[b.n] = c
    b.n += 1


cdef inline void _hclear(HBuf* b) noexcept nogil:
    b.n = 0
    b.pend = False


cdef inline str _hstr(HBuf* b, Py_ssize_t start, Py_ssize_t end):
    return PyUnicode_FromKindAndData(4, b.d + start, end - start)


cdef inline object _atomic(object obj):
    """``obj`` (a ``Line``, ``Heading`` or ``Block`` made here, or the tuple of a block's
    lines) untracked by the cycle collector: it holds only str, int and such objects, so it
    can be in no cycle (CPython untracks its tuples and dicts of atomic values the same way),
    and the collector no longer walks a page's thousands of lines at each collection."""
    PyObject_GC_UnTrack(<PyObject*>obj)
    return obj
