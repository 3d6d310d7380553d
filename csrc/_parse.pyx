# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""Private native parsers' cores: the HTML scanner (wrapped by ``docqa.text.html``) and the
Markdown event walker (wrapped by ``docqa.text.markdown_fast``).

``_html.pxi``: the fast twin of ``docqa.text.html._PageParser`` over the standard library's
``html.parser.HTMLParser``.

The scanner tokenizes the common, well-formed subset of HTML exactly as ``HTMLParser``
(``convert_charrefs=True``) does - start tags with quoted, bare or empty attribute values,
``/>``, end tags ``</name>``, comments, doctypes, processing instructions, bogus comments,
``script``/``style`` raw text, a ``<`` that opens nothing - and hands the same events, with
the same line numbers, to ``_Page``, a line-for-line port of ``_PageParser``'s handlers. On
anything outside that subset (a tag left open at the end of the text, ``<![``, a non-ASCII or
control character in tag syntax, ``==``, ``</a b>``, ...) ``scan_html`` returns ``None`` and
the caller parses the text with ``HTMLParser`` instead, so the result is always the
reference's. Only the attributes the handlers read are kept: ``role`` (navigation, main) and
the last ``class``.

``_markdown.pxi``: pyromark's ``(event, range)`` stream to headings and blocks, the rules of
``docqa.text.markdown_fast`` (whose spec is markdown-it-py's ``docqa.text.markdown``).

``_windows.pxi`` and ``_records.pxi``: a section's windows, and their chunk records' bytes and
embed texts (the fast twins of ``docqa.text.sections``' windows and of
``docqa.text.records.section_records_python``). ``_sections.pxi``: a parser's items grouped
into sections (the twin of ``docqa.text.documents.build_sections``).
"""

import re

cdef object _unescape = None


cdef object unescape(object s):
    """``html.unescape(s)``, imported at first use: a build of Markdown alone skips the
    1.2 ms ``html`` and its entity table take to import."""
    global _unescape
    if _unescape is None:
        from html import unescape as f
        _unescape = f
    return _unescape(s)

cdef extern from "Python.h":
    int PyUnicode_KIND(object u)
    void* PyUnicode_DATA(object u)
    Py_ssize_t PyUnicode_GET_LENGTH(object u)
    Py_ssize_t PyUnicode_FindChar(object u, Py_UCS4 c, Py_ssize_t start, Py_ssize_t end, int direction) except -2
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t i) nogil

from libc.stdlib cimport malloc, realloc, free

include "_items.pxi"
include "_html.pxi"
include "_markdown.pxi"
include "_windows.pxi"
include "_records.pxi"
include "_sections.pxi"
