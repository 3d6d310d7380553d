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
"""

import re
from html import unescape

cdef extern from "Python.h":
    int PyUnicode_KIND(object u)
    void* PyUnicode_DATA(object u)
    Py_ssize_t PyUnicode_GET_LENGTH(object u)
    Py_ssize_t PyUnicode_FindChar(object u, Py_UCS4 c, Py_ssize_t start, Py_ssize_t end, int direction) except -2
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t i) nogil

from cpython.object cimport PyTypeObject, Py_TYPE

cdef object Heading = None, Block = None, Line = None
cdef object _new = object.__new__
# the slot descriptors of the frozen dataclasses' fields, set directly: their generated
# ``__init__`` (one Python frame and an ``object.__setattr__`` per field) cost a micro-second
# an object, and the parsers make one per source line
cdef object _line_number, _line_text, _block_kind, _block_lines
cdef object _heading_text, _heading_level, _heading_line


cdef void _types():
    global Heading, Block, Line, _line_number, _line_text, _block_kind, _block_lines
    global _heading_text, _heading_level, _heading_line
    if Line is None:
        from docqa.text.documents import Block as B, Heading as H, Line as L
        _line_number, _line_text = L.__dict__["number"], L.__dict__["text"]
        _block_kind, _block_lines = B.__dict__["kind"], B.__dict__["lines"]
        _heading_text, _heading_level = H.__dict__["text"], H.__dict__["level"]
        _heading_line = H.__dict__["line"]
        Heading, Block, Line = H, B, L


cdef inline int _set(object descr, object obj, object value) except -1:
    return (<PyTypeObject*>Py_TYPE(descr)).tp_descr_set(descr, obj, value)


cdef object _line(int number, str text):
    """``Line(number, text)`` without its ``__init__``."""
    cdef object out = _new(Line)
    _set(_line_number, out, number)
    _set(_line_text, out, text)
    return out


cdef object _block(str kind, tuple lines):
    """``Block(kind, lines)`` without its ``__init__``."""
    cdef object out = _new(Block)
    _set(_block_kind, out, kind)
    _set(_block_lines, out, lines)
    return out


cdef object _heading(str text, int level, int line):
    """``Heading(text, level, line)`` without its ``__init__``."""
    cdef object out = _new(Heading)
    _set(_heading_text, out, text)
    _set(_heading_level, out, level)
    _set(_heading_line, out, line)
    return out



from libc.stdlib cimport malloc, realloc, free

include "_html.pxi"
include "_markdown.pxi"
include "_windows.pxi"
