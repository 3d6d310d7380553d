# The Heading, Block and Line objects the native parsers build (included by _parse.pyx and
# _md4c.pyx): frozen dataclasses whose slots are set directly.

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


cdef list _code_lines(int first, list texts):
    content = "".join(texts)
    lines = []
    cdef int i = 0
    for text in content.split("\n"):
        lines.append(_line(first + i, text.rstrip()))
        i += 1
    while lines and not lines[len(lines) - 1].text.strip():
        lines.pop()
    while lines and not lines[0].text.strip():
        lines.pop(0)
    return lines


cdef str _table_row(list cells):
    """``docqa.text.documents.table_row``: ``| a | b |``, a ``|`` inside a cell written ``\\|``."""
    return "| " + " | ".join([(<str>c).replace("|", "\\|") for c in cells]) + " |"
