# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
# (Bounds are checked by the Python shell, docqa.text.tokenize, and by the loops' own limits.)
"""Private native core of docqa's tokenizer (wrapped by ``docqa.text.tokenize``).

The algorithm is defined by ``docqa.text.tokenize_reference``; this module is its fast twin:

* tokens are the maximal runs of characters for which ``str.isalnum()`` is true in
  ``text.lower()`` (ASCII texts take a fast path, 8 bytes a step; other texts are lowered per
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

# The parts, one concept each, compiled with this file as one module: hashing and character
# tables, and the cache of token strs by hash; the stop-word set; the term table (token -> term id while scanning, and ``Terms``);
# the scanner and its token sinks; the hashing embedder's rows (``Rows``,
# ``embed_hashing_rows``); BM25 postings of a batch (``count_postings``). This file keeps the batches and the entry points over them.
include "_hashes.pxi"
include "_stopset.pxi"
include "_terms.pxi"
include "_scanner.pxi"
include "_rows.pxi"
include "_postings.pxi"


# ---------------------------------------------------------------------------------------------
# Batches: texts pinned once under the GIL, then scanned without it
# ---------------------------------------------------------------------------------------------

def _special_segments(str t):
    """``t`` as ``(text, start, end)`` segments in which every whitespace-delimited word
    holding U+0130 or U+03A3 is replaced by its ``str.lower()`` (a new, short str): the two
    characters whose lowering is not per character (U+0130 becomes two characters; U+03A3
    lowers by its context, the final-sigma rule). The rule's context skips only
    case-ignorable characters, and no whitespace character is cased or case-ignorable, so
    lowering these words alone equals lowering the whole text, and no token spans two
    segments. The rest of ``t`` is not copied: its segments point into ``t`` itself and are
    lowered per character by the scanner."""
    cdef Py_ssize_t n = len(t), pos = 0, i, start, end
    hits = sorted(j for ch in ("\u0130", "\u03a3") for j in _find_all(t, ch))
    segments = []
    for i in hits:
        if i < pos:
            continue
        start = i
        while start > pos and not t[start - 1].isspace():
            start -= 1
        end = i + 1
        while end < n and not t[end].isspace():
            end += 1
        word = t[start:end].lower()
        segments.append((t, pos, start))
        segments.append((word, 0, len(word)))
        pos = end
    segments.append((t, pos, n))
    return segments


def _find_all(str t, str ch):
    cdef Py_ssize_t i = t.find(ch)
    while i >= 0:
        yield i
        i = t.find(ch, i + 1)


cdef class Batch:
    """A list of texts pinned for GIL-free scanning, as segments: one per text, except that a
    text holding U+0130 or U+03A3 has those words lowered by ``str.lower`` in segments of
    their own (see ``_special_segments``); everything else is lowered per character."""
    cdef list _keep
    cdef readonly Py_ssize_t n
    cdef object _ptrs, _lens, _kinds, _starts

    def __cinit__(self, texts):
        import array
        cdef Py_ssize_t i, n = len(texts), used = 0
        cdef int kind
        # Two passes: check every text and split the rare ones holding U+0130 or U+03A3, then
        # fill exactly sized typed arrays through memoryviews, with no Python object made per
        # ordinary text (15k texts: 12 ms with appends and tuples, 4.5 ms now).
        cdef list keep = [None] * n
        special = {}
        for i in range(n):
            t = texts[i]
            if type(t) is not str:
                if not isinstance(t, str):
                    raise TypeError(
                        f"texts[{i}] is {type(t).__name__}, expected str; "
                        "decode bytes first (e.g. data.decode('utf-8'))")
                t = PyUnicode_FromObject(t)  # the value, never an overridden __str__
            keep[i] = t
            if not PyUnicode_IS_ASCII(t) and ("\u0130" in t or "\u03a3" in t):
                special[i] = _special_segments(t)
        total = n + sum(len(parts) - 1 for parts in special.values())
        self._keep = keep
        self._ptrs = array.array("Q", bytes(8 * total))
        self._lens = array.array("q", bytes(8 * total))
        self._kinds = array.array("b", bytes(total))
        self._starts = array.array("q", bytes(8 * (n + 1)))
        cdef uint64_t[::1] ptrs = self._ptrs
        cdef int64_t[::1] lens = self._lens
        cdef signed char[::1] kinds = self._kinds
        cdef int64_t[::1] starts = self._starts
        for i in range(n):
            starts[i] = used
            if not special or i not in special:
                t = keep[i]
                ptrs[used] = <uint64_t>PyUnicode_DATA(t)
                lens[used] = PyUnicode_GET_LENGTH(t)
                kinds[used] = 0 if PyUnicode_IS_ASCII(t) else PyUnicode_KIND(t)  # 0: ASCII path
                used += 1
                continue
            parts = special[i]
            keep[i] = [part for part, _, _ in parts]  # the lowered words stay alive
            for part, start, end in parts:
                kind = PyUnicode_KIND(part)
                ptrs[used] = <uint64_t>PyUnicode_DATA(part) + <uint64_t>(start * kind)
                lens[used] = end - start
                kinds[used] = 0 if PyUnicode_IS_ASCII(part) else kind
                used += 1
        starts[n] = used
        self.n = n


cdef inline void _scan_one(Py_ssize_t i, Sink* k,
                           const uint64_t* ptrs, const int64_t* lens,
                           const signed char* kinds, const int64_t* starts) noexcept nogil:
    """Scan text ``i``: its segments ``starts[i]:starts[i + 1]`` in order."""
    cdef int64_t s
    for s in range(starts[i], starts[i + 1]):
        if k.failed:
            return
        if kinds[s] == 0:
            _scan_ascii(<const uint8_t*>ptrs[s], lens[s], k)
        elif kinds[s] == 1:
            _scan_wide(<const uint8_t*>ptrs[s], lens[s], k)
        elif kinds[s] == 2:
            _scan_wide(<const uint16_t*>ptrs[s], lens[s], k)
        else:
            _scan_wide(<const uint32_t*>ptrs[s], lens[s], k)


cdef void _free_sink(Sink* k) noexcept nogil:
    free(k.tok)
    free(k.seg)
    free(k.blob)
    free(k.ends)
    free(k.hashes)
    free(k.ids)
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
    cdef const int64_t[::1] starts = batch._starts
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
                    _scan_one(i, &k, &ptrs[0], &lens[0], &kinds[0], &starts[0])
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


cdef object _scan_counted(Batch batch, Sink* k, int64_t first_doc):
    """Scan every text of ``batch`` into ``k`` with the GIL released; returns the int64
    ``array.array`` offsets (text i owns items ``offsets[i]:offsets[i + 1]`` of ``k``'s
    output). With a term table in ``k``, text i counts as document ``first_doc + i``.
    MemoryError if the scan ran out of memory; the caller frees ``k``."""
    import array
    offsets = array.array("q", bytes(8 * (batch.n + 1)))
    cdef int64_t[::1] off = offsets
    cdef const uint64_t[::1] ptrs = batch._ptrs
    cdef const int64_t[::1] lens = batch._lens
    cdef const signed char[::1] kinds = batch._kinds
    cdef const int64_t[::1] starts = batch._starts
    cdef Py_ssize_t i
    if batch.n:
        with nogil:
            for i in range(batch.n):
                if k.terms != NULL:
                    k.terms.doc = first_doc + i
                _scan_one(i, k, &ptrs[0], &lens[0], &kinds[0], &starts[0])
                if k.failed:
                    break
                off[i + 1] = k.count
    if k.failed:
        raise MemoryError("tokenizer ran out of memory")
    return offsets


def hash_batch(Batch batch not None, Vocab stops, bint fold):
    """``(hashes uint64 array.array, offsets int64 array.array)``: text i owns
    ``hashes[offsets[i]:offsets[i + 1]]``. No Python object is made per token."""
    import array
    cdef Sink k
    memset(&k, 0, sizeof(Sink))
    k.mode = MODE_HASH
    k.stops = _stops_of(stops)
    k.fold = fold
    try:
        offsets = _scan_counted(batch, &k, 0)
        hashes = array.array("Q", bytes(8 * k.count))
        if k.count:
            _copy_u64(hashes, k.hashes, k.count)
    finally:
        _free_sink(&k)
    return hashes, offsets


cdef void _copy_u64(object dst, const uint64_t* src, Py_ssize_t n):
    cdef uint64_t[::1] d = dst
    memcpy(&d[0], src, n * sizeof(uint64_t))


cdef void _copy_i64(object dst, const int64_t* src, Py_ssize_t n):
    cdef int64_t[::1] d = dst
    memcpy(&d[0], src, n * sizeof(int64_t))
