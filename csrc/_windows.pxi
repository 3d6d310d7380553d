# Section windows (included by _parse.pyx): the fast twin of docqa.text.sections'
# ``_Units`` + ``window_bounds`` + ``_Units.render``. A section's units are its prose words
# (weight 1) and its table rows / code lines (weight: their words); windows take units while
# their words stay within max_words, the next starts back as far as the overlap allows; a last
# window adding fewer than min_tail(max_words) = max_words // 6 words joins the one before.




cdef int _bisect_right(int* a, int n, int x):
    cdef int lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if x < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef list _bounds(int* weights, int n, int max_words, int overlap):
    """``window_bounds`` over the C array ``weights``."""
    cdef list bounds = []
    cdef int start = 0, end, total, carried, first, k
    while start < n:
        end, total = start + 1, weights[start]
        while end < n and total + weights[end] <= max_words:
            total += weights[end]
            end += 1
        bounds.append((start, end))
        if end == n:
            break
        first, start, carried = start, end, 0
        while start - 1 > first and carried + weights[start - 1] <= overlap:
            start -= 1
            carried += weights[start]
        if carried + weights[end] > max_words:
            start = end
    if len(bounds) > 1:
        first, end = bounds[len(bounds) - 2]
        total = 0
        for k in range(end, n):
            total += weights[k]
        if total < max_words // 6:  # docqa.text.windows.min_tail
            bounds[len(bounds) - 2 :] = [(first, n)]
    return bounds


cdef struct _Units:
    # unit k: words weights[k] on source line lines[k], the code points lo[k]:hi[k] of the
    # line text texts[src[k]] (a prose word, or a table row / code line whole)
    int n
    int cap
    int* lines
    int* weights
    int* src
    int* lo
    int* hi
    const char** at  # lines of 1-byte kind: where the unit's characters start


cdef int _unit_room(_Units* u) except -1:
    """Room for one more unit (doubling the arrays)."""
    cdef int cap = u.cap * 2 if u.cap else 256
    cdef const char** out
    if u.n < u.cap:
        return 0
    _more(&u.lines, cap)
    _more(&u.weights, cap)
    _more(&u.src, cap)
    _more(&u.lo, cap)
    _more(&u.hi, cap)
    out = <const char**>realloc(u.at, cap * sizeof(char*))
    if out == NULL:
        raise MemoryError()
    u.at = out
    u.cap = cap
    return 0


cdef int _more(int** arr, int cap) except -1:
    """``arr[0]`` grown to ``cap`` ints (left as it was, for the caller to free, on failure)."""
    cdef int* out = <int*>realloc(arr[0], cap * sizeof(int))
    if out == NULL:
        raise MemoryError()
    arr[0] = out
    return 0


cdef inline int _add(_Units* u, int line, int weight, int src, int lo, int hi,
                     const char* at) except -1:
    _unit_room(u)
    u.lines[u.n], u.weights[u.n], u.src[u.n], u.lo[u.n], u.hi[u.n] = line, weight, src, lo, hi
    u.at[u.n] = at
    u.n += 1
    return 0


cdef int _line_units(_Units* u, str text, int number, int src, bint atomic) except -1:
    """A source line's units: its words (``str.split()``'s whitespace), or the whole line
    weighing its word count (none for a blank line). Returns the text's kind (bytes a code
    point)."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), i = 0, start
    cdef int words = 0
    while True:
        while i < n and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i)):
            i += 1
        if i >= n:
            break
        start = i
        while i < n and not Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i)):
            i += 1
        words += 1
        if not atomic:
            _add(u, number, 1, src, <int>start, <int>i, <const char*>data + start)
    if atomic and words:  # a blank line inside a code block is no unit (as the twin's)
        _add(u, number, words, src, 0, <int>n, <const char*>data)
    return kind


cdef Py_UCS4* _room(Py_UCS4* buf, Py_ssize_t* cap, Py_ssize_t need) except NULL:
    cdef Py_UCS4* out
    if need <= cap[0] and buf != NULL:
        return buf
    while cap[0] < need:
        cap[0] *= 2
    out = <Py_UCS4*>realloc(buf, cap[0] * sizeof(Py_UCS4))
    if out == NULL:
        raise MemoryError()  # ``buf`` is still the caller's to free
    return out


cdef str _render1(_Units* u, int* firsts, char* atomic, int n_blocks, int start, int end,
                  Py_UCS4** buf, Py_ssize_t* cap):
    """``_render`` when every line is of 1-byte kind: units copied with ``memcpy``."""
    cdef int b = _bisect_right(firsts, n_blocks, start) - 1, stop, lo, hi, k
    cdef Py_ssize_t size = 0, need
    cdef bint first_part = True
    cdef char* out
    while b < n_blocks and firsts[b] < end:
        stop = firsts[b + 1]
        lo = firsts[b] if firsts[b] > start else start
        hi = stop if stop < end else end
        if lo < hi:
            need = 2
            for k in range(lo, hi):
                need += u.hi[k] - u.lo[k] + 1
            buf[0] = _room(buf[0], cap, (size + need) // 4 + 1)  # a UCS4 buffer's bytes
            out = <char*>buf[0]
            if not first_part:
                out[size], out[size + 1] = 10, 10
                size += 2
            first_part = False
            for k in range(lo, hi):
                if k > lo:
                    out[size] = 10 if atomic[b] else 32
                    size += 1
                memcpy(out + size, u.at[k], u.hi[k] - u.lo[k])
                size += u.hi[k] - u.lo[k]
        b += 1
    return PyUnicode_FromKindAndData(1, buf[0], size)


cdef str _render(_Units* u, list texts, int* firsts, char* atomic, int n_blocks, int start,
                 int end, Py_UCS4** buf, Py_ssize_t* cap):
    """Units ``start:end`` as text: a block's units joined by a space (prose) or a line
    break (rows, code lines), blocks by a blank line; code points copied into ``buf``."""
    cdef int b = _bisect_right(firsts, n_blocks, start) - 1, stop, lo, hi, k, kind
    cdef Py_ssize_t size = 0, j, need
    cdef bint first_part = True
    cdef void* data
    cdef str text
    while b < n_blocks and firsts[b] < end:
        stop = firsts[b + 1]
        lo = firsts[b] if firsts[b] > start else start
        hi = stop if stop < end else end
        if lo < hi:
            need = 2
            for k in range(lo, hi):
                need += u.hi[k] - u.lo[k] + 1
            buf[0] = _room(buf[0], cap, size + need)
            if not first_part:
                buf[0][size] = 10
                buf[0][size + 1] = 10
                size += 2
            first_part = False
            for k in range(lo, hi):
                if k > lo:
                    buf[0][size] = 10 if atomic[b] else 32
                    size += 1
                text = <str>texts[u.src[k]]
                kind, data = PyUnicode_KIND(text), PyUnicode_DATA(text)
                for j in range(u.lo[k], u.hi[k]):
                    buf[0][size] = PyUnicode_READ(kind, data, j)
                    size += 1
        b += 1
    return PyUnicode_FromKindAndData(4, buf[0], size)


cdef int _rest(_Units* u, int* firsts, int* line0, int n_blocks, list bounds,
               list rest) except -1:
    """Leave out the last of ``bounds`` (more units could lengthen it) and set ``rest`` to
    ``[block, line, offset]`` of its first unit (``[0, 0, 0]`` without a window)."""
    cdef int s, b
    if not bounds:
        rest[:] = [0, 0, 0]
        return 0
    s = bounds.pop()[0]
    b = _bisect_right(firsts, n_blocks, s) - 1  # the block holding unit ``s``
    rest[:] = [b, u.src[s] - line0[b], u.lo[s]]
    return 0


def section_windows(tuple blocks, int max_words, int overlap, list rest=None):
    """``[(text, first line, last line)]`` of the windows over a section's ``blocks``, as
    ``docqa.text.sections`` cuts them. No Python object per word: a unit is code-point
    offsets into its line's text, and a window's text is copied from them.

    ``rest``, when a list: ``blocks`` are only the start of what is windowed (more units
    follow), so the last window, which they could lengthen, is left out, and ``rest`` is set
    to where it starts, ``[block, line, offset]``: indexes into ``blocks`` and that block's
    lines, and the code-point offset of its first unit in that line's text (``[0, 0, 0]`` when
    no window is left). Windowing again from there gives the windows that follow."""
    cdef list texts = [], bounds
    cdef str text
    cdef int n_blocks = len(blocks), b = 0
    cdef _Units u
    cdef int* firsts = <int*>malloc((n_blocks + 1) * sizeof(int))
    cdef int* line0 = <int*>malloc((n_blocks + 1) * sizeof(int))
    cdef char* atomic = <char*>malloc(n_blocks + 1)
    cdef Py_ssize_t cap = 1024
    cdef Py_UCS4* buf = <Py_UCS4*>malloc(cap * sizeof(Py_UCS4))
    cdef bint wide = False
    u.n = u.cap = 0
    u.lines = u.weights = u.src = u.lo = u.hi = NULL
    u.at = NULL
    try:
        if firsts == NULL or line0 == NULL or atomic == NULL or buf == NULL:
            raise MemoryError()
        for block in blocks:
            firsts[b] = u.n
            line0[b] = len(texts)
            atomic[b] = block.kind != "text"
            for line in block.lines:
                text = line.text
                texts.append(text)
                if _line_units(&u, text, line.number, len(texts) - 1, atomic[b]) != 1:
                    wide = True
            b += 1
        firsts[n_blocks] = u.n
        bounds = _bounds(u.weights, u.n, max_words, overlap)
        if rest is not None:
            _rest(&u, firsts, line0, n_blocks, bounds, rest)
        if not wide:
            return [
                (_render1(&u, firsts, atomic, n_blocks, s, e, &buf, &cap),
                 u.lines[s], u.lines[e - 1])
                for s, e in bounds
            ]
        return [
            (_render(&u, texts, firsts, atomic, n_blocks, s, e, &buf, &cap),
             u.lines[s], u.lines[e - 1])
            for s, e in bounds
        ]
    finally:
        free(u.lines)
        free(u.weights)
        free(u.src)
        free(u.lo)
        free(u.hi)
        free(u.at)
        free(firsts)
        free(line0)
        free(atomic)
        free(buf)
