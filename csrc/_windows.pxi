# Section windows (included by _parse.pyx): the fast twin of docqa.text.sections'
# ``_Units`` + ``window_bounds`` + ``_Units.render``. A section's units are its prose words
# (weight 1) and its table rows / code lines (weight: their words); windows take units while
# their words stay within max_words, the next starts back as far as the overlap allows.




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
    cdef int start = 0, end, total, carried, first
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
    return bounds


cdef str _render(list texts, int* firsts, char* atomic, int n_blocks, int start, int end):
    cdef list parts = []
    cdef int b = _bisect_right(firsts, n_blocks, start) - 1, stop, lo, hi
    while b < n_blocks and firsts[b] < end:
        stop = firsts[b + 1]
        lo = firsts[b] if firsts[b] > start else start
        hi = stop if stop < end else end
        if lo < hi:
            parts.append(("\n" if atomic[b] else " ").join(texts[lo:hi]))
        b += 1
    return "\n\n".join(parts)


cdef int* _grow(int* buf, int* cap, int need) except NULL:
    """``buf`` with room for ``need`` ints (doubling ``cap``)."""
    cdef int* out
    if need <= cap[0] and buf != NULL:
        return buf
    while cap[0] < need:
        cap[0] *= 2
    out = <int*>realloc(buf, cap[0] * sizeof(int))
    if out == NULL:
        free(buf)
        raise MemoryError()
    return out


def section_windows(tuple blocks, int max_words, int overlap):
    """``[(text, first line, last line)]`` of the windows over a section's ``blocks``, as
    ``docqa.text.sections`` cuts them."""
    cdef list texts = [], words
    cdef int n_blocks = len(blocks), n = 0, b = 0, k, number, cap_lines = 256, cap_weights = 256
    cdef int* lines = NULL
    cdef int* weights = NULL
    cdef int* firsts = <int*>malloc((n_blocks + 1) * sizeof(int))
    cdef char* atomic = <char*>malloc(n_blocks + 1)
    try:
        if firsts == NULL or atomic == NULL:
            raise MemoryError()
        for block in blocks:
            firsts[b] = n
            atomic[b] = block.kind != "text"
            for line in block.lines:
                number = line.number
                words = line.text.split()
                k = 1 if atomic[b] else len(words)
                lines = _grow(lines, &cap_lines, n + k)
                weights = _grow(weights, &cap_weights, n + k)
                if atomic[b]:
                    texts.append(line.text)
                    lines[n], weights[n] = number, len(words)
                    n += 1
                else:
                    texts.extend(words)
                    for k in range(n, n + len(words)):
                        lines[k], weights[k] = number, 1
                    n += len(words)
            b += 1
        firsts[n_blocks] = n
        return [
            (_render(texts, firsts, atomic, n_blocks, s, e), lines[s], lines[e - 1])
            for s, e in _bounds(weights, n, max_words, overlap)
        ]
    finally:
        free(lines)
        free(weights)
        free(firsts)
        free(atomic)
