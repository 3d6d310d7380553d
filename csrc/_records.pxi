# Chunk records (included by _parse.pyx): the fast twin of the per-window loop of
# docqa.text.records.chunk_records. A section's windows (section_windows, _windows.pxi) become
# their records' JSON bytes and embed texts in one call: the text escaped as json's
# c_encode_basestring does with ensure_ascii=False (", \, \b \f \n \r \t as two characters,
# other code points below 0x20 as \u00xx, everything else as is), working on the text's UTF-8
# bytes, and its sha256 through OpenSSL (or hashlib where the build found no libcrypto).

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE, PyBytes_FromStringAndSize
from libc.stdio cimport snprintf

cdef extern from "Python.h":
    const char* PyUnicode_AsUTF8AndSize(object u, Py_ssize_t* size) except NULL

cdef extern from *:
    """
    #ifdef DOCQA_OPENSSL
    #include <openssl/evp.h>
    static EVP_MD *docqa_md = NULL;
    /* sha256 of data[0:n] into md (32 bytes); 1 on success, 0 when OpenSSL fails */
    static int docqa_sha256(const char *data, size_t n, unsigned char *md) {
        unsigned int size = 0;
        if (docqa_md == NULL && (docqa_md = EVP_MD_fetch(NULL, "SHA256", NULL)) == NULL)
            return 0;
        return EVP_Digest(data, n, md, &size, docqa_md, NULL) && size == 32;
    }
    #else
    static int docqa_sha256(const char *data, size_t n, unsigned char *md) {
        (void)data; (void)n; (void)md;
        return 0;  /* not built with OpenSSL: the caller hashes with hashlib */
    }
    #endif
    """
    int docqa_sha256(const char* data, size_t n, unsigned char* md) nogil

cdef const char* _HEX = b"0123456789abcdef"
cdef object _sha256 = None


cdef struct _Buf:
    char* data
    Py_ssize_t size
    Py_ssize_t cap


cdef int _reserve(_Buf* b, Py_ssize_t more) except -1:
    cdef Py_ssize_t cap = b.cap if b.cap else 4096
    cdef char* out
    if b.size + more <= b.cap:
        return 0
    while cap < b.size + more:
        cap *= 2
    out = <char*>realloc(b.data, cap)
    if out == NULL:
        raise MemoryError()
    b.data, b.cap = out, cap
    return 0


cdef int _put(_Buf* b, const char* data, Py_ssize_t n) except -1:
    _reserve(b, n)
    memcpy(b.data + b.size, data, n)
    b.size += n
    return 0


cdef int _put_int(_Buf* b, const char* fmt, Py_ssize_t value) except -1:
    _reserve(b, 48)
    b.size += snprintf(b.data + b.size, 48, fmt, value)
    return 0


cdef int _put_escaped(_Buf* b, const unsigned char* s, Py_ssize_t n) except -1:
    """``s`` (UTF-8) inside a JSON string as ``c_encode_basestring`` writes it (no quotes)."""
    cdef Py_ssize_t i
    cdef unsigned char c
    cdef char* out
    _reserve(b, 6 * n)
    out = b.data + b.size
    for i in range(n):
        c = s[i]
        if c >= 0x20 and c != 34 and c != 92:
            out[0] = <char>c
            out += 1
            continue
        out[0] = 92
        if c == 34 or c == 92:
            out[1] = <char>c
        elif c == 8:
            out[1] = 98  # b
        elif c == 12:
            out[1] = 102  # f
        elif c == 10:
            out[1] = 110  # n
        elif c == 13:
            out[1] = 114  # r
        elif c == 9:
            out[1] = 116  # t
        else:
            out[1], out[2], out[3], out[4] = 117, 48, 48, _HEX[c >> 4]  # u00x
            out[5] = _HEX[c & 15]
            out += 4
        out += 2
    b.size = out - b.data
    return 0


cdef int _put_sha(_Buf* b, const char* s, Py_ssize_t n) except -1:
    """The hex sha256 of ``s[0:n]``."""
    global _sha256
    cdef unsigned char md[32]
    cdef int i
    _reserve(b, 64)
    if docqa_sha256(s, n, md):
        for i in range(32):
            b.data[b.size + 2 * i] = _HEX[md[i] >> 4]
            b.data[b.size + 2 * i + 1] = _HEX[md[i] & 15]
        b.size += 64
        return 0
    if _sha256 is None:
        import hashlib
        _sha256 = hashlib.sha256
    digest = _sha256(PyBytes_FromStringAndSize(s, n)).hexdigest().encode("ascii")
    return _put(b, PyBytes_AS_STRING(digest), 64)


def section_records(tuple blocks, int max_words, int overlap, bytes id_json, bytes middle,
                    bytes tail, str title, Py_ssize_t position, list records, list texts,
                    Py_ssize_t first_part=1, list rest=None):
    """Append the records (bytes) and embed texts of a section's windows to ``records`` and
    ``texts``; returns how many. ``id_json`` is the section id as a JSON string, ``middle``
    the record's bytes from ``,"section":`` to ``"position":``, ``tail`` those from the end of
    the content hash on, ``title`` the embed texts' heading line (``""`` for none),
    ``position`` the first window's position in the document and ``first_part`` its number
    in the section (1: its id is the section id, then ``-p2``, ...). ``rest``: as for
    ``section_windows`` (``blocks`` are only the start of the section)."""
    cdef _Buf b
    cdef Py_ssize_t n, part = first_part - 1
    cdef const char* utf8
    cdef str text
    b.data, b.size, b.cap = NULL, 0, 0
    try:
        for text, start_line, end_line in section_windows(blocks, max_words, overlap, rest):
            part += 1
            utf8 = PyUnicode_AsUTF8AndSize(text, &n)
            b.size = 0
            _put(&b, b'{"id":', 6)
            if part == 1:
                _put(&b, PyBytes_AS_STRING(id_json), PyBytes_GET_SIZE(id_json))
            else:  # the window id: the section id and -p<part>, inside the same quotes
                _put(&b, PyBytes_AS_STRING(id_json), PyBytes_GET_SIZE(id_json) - 1)
                _put_int(&b, '-p%zd"', part)
            _put(&b, PyBytes_AS_STRING(middle), PyBytes_GET_SIZE(middle))
            _put_int(&b, "%zd", position + part - first_part)
            _put_int(&b, ',"start_line":%zd', <Py_ssize_t>start_line)
            _put_int(&b, ',"end_line":%zd', <Py_ssize_t>end_line)
            _put(&b, b',"text":"', 9)
            _put_escaped(&b, <const unsigned char*>utf8, n)
            _put(&b, b'","content_hash":"', 18)
            _put_sha(&b, utf8, n)
            _put(&b, PyBytes_AS_STRING(tail), PyBytes_GET_SIZE(tail))
            records.append(PyBytes_FromStringAndSize(b.data, b.size))
            texts.append(title + text if title else text)
        return part - first_part + 1
    finally:
        free(b.data)
