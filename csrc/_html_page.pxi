# The HTML scanner's page state (included by _html.pxi): a port of
# docqa.text.html_reference.PageParser's handlers over C state. Text goes into code-point
# buffers (_html_buf.pxi), becoming a Python str once per output line, heading, cell row or
# title; tags are codes and flags (HT_*), names compared as bytes; no Python object is made per
# tag or text run.

from libc.stdint cimport uint8_t, uint16_t, uint32_t
from libc.string cimport memchr, memcmp, memcpy

from cpython.ref cimport PyObject

cdef extern from "Python.h":
    void PyObject_GC_UnTrack(void* op)
    object PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch) nogil
    bint Py_UNICODE_ISALNUM(Py_UCS4 ch) nogil

cdef extern from *:
    """
    enum { HT_D = 1 << 8, HT_C = 1 << 9, HT_M = 1 << 10, HT_B = 1 << 11, HT_K = 1 << 12 };
    typedef struct { const char* name; int n; int v; } DocqaTag;
    """
    enum:
        HT_D, HT_C, HT_M, HT_B, HT_K

# tag codes (the low byte of a tag's value; the flags above are its high bits)
DEF T_A = 1
DEF T_TITLE = 2
DEF T_PRE = 3
DEF T_TR = 4
DEF T_TD = 5
DEF T_TH = 6
DEF T_BR = 7
DEF T_TABLE = 8
DEF T_SCRIPT = 9
DEF T_STYLE = 10
DEF T_H1 = 11
DEF T_H6 = 16
DEF NAME_MAX = 64  # longer tag names are handed back

# where a text run goes (PageParser.handle_data's branches, in its order)
DEF SINK_NONE = 0
DEF SINK_TITLE = 1
DEF SINK_HEADING = 2
DEF SINK_CELL = 3
DEF SINK_CODE = 4
DEF SINK_TEXT = 5


ctypedef fused hch_t:  # a code unit of the text (PEP 393 kinds), or of a decoded run
    uint8_t
    uint16_t
    uint32_t


include "_html_buf.pxi"


cdef class _Page:
    """``PageParser``'s state and handlers. ``line`` is the source line of the event."""

    cdef int line
    cdef bint content_only
    cdef list items
    cdef str title
    cdef str first_h1
    cdef char drop_name[NAME_MAX]
    cdef int drop_len, drop_depth  # drop_len -1: no element is being dropped
    cdef char main_name[NAME_MAX]
    cdef int main_len, main_depth  # main_len -1: not inside a role="main" element
    cdef int content_depth
    cdef int sections  # open section elements (a header in one is its own)
    cdef int admonition  # open divs from the outermost admonition's in (0: in none)
    cdef int fragment  # open divs from a code fragment's in (0: in none)
    cdef bint in_title, in_heading, in_code, in_cell, in_row
    cdef int heading_level, heading_line, row_line, row_cells
    cdef bint row_any
    cdef bint row_td  # the open row has a data cell (a row of th cells only is a header)
    cdef HBuf title_b, heading_b, cell_b, row_b, code_b, text_b, tmp_b
    cdef int code_line, text_line  # the line being appended to; -1: none
    cdef list code_lines, text_lines, rows
    cdef list terms, definitions  # a definition list's marks, as ``PageParser``'s
    cdef Py_ssize_t term_at  # where the open dt's text block will stand; -1: none
    cdef bint in_link  # inside an ``a`` to one of the page's own anchors
    # the outermost open list (``PageParser._toc``): its nesting (0: none), len(items) at its
    # start, all its text in such links so far, any text in one
    cdef int toc_depth
    cdef Py_ssize_t toc_start
    cdef bint toc_only, toc_linked

    def __cinit__(self):
        self.drop_len = self.main_len = -1
        self.code_line = self.text_line = -1
        self.items, self.code_lines, self.text_lines, self.rows = [], [], [], []
        self.terms, self.definitions = [], []
        self.term_at = -1
        self.title = self.first_h1 = ""

    def __dealloc__(self):
        free(self.title_b.d)
        free(self.heading_b.d)
        free(self.cell_b.d)
        free(self.row_b.d)
        free(self.code_b.d)
        free(self.text_b.d)
        free(self.tmp_b.d)

    cdef inline int sink(self):
        if self.drop_len >= 0:
            return SINK_NONE
        if self.in_title:
            return SINK_TITLE
        if self.content_only and self.content_depth == 0:
            return SINK_NONE
        if self.in_heading:
            return SINK_HEADING
        if self.in_cell:
            return SINK_CELL
        if self.in_code:
            return SINK_CODE
        return SINK_NONE if self.in_row else SINK_TEXT

    cdef int end_text_line(self) except -1:
        if self.text_b.n:
            self.text_lines.append(_atomic(_line(self.text_line, _hstr(&self.text_b, 0, self.text_b.n))))
        _hclear(&self.text_b)
        return 0

    cdef int end_code_line(self) except -1:
        cdef Py_ssize_t n = self.code_b.n
        while n and _hspace(self.code_b.d[n - 1]):
            n -= 1
        self.code_lines.append(_atomic(_line(self.code_line, _hstr(&self.code_b, 0, n))))
        self.code_b.n = 0
        return 0

    cdef int at_line(self, int sink, int line) except -1:
        """Start appending a run at ``line``: 1 when that would go back (hand back)."""
        if sink == SINK_TEXT and line != self.text_line:
            if line < self.text_line:
                return 1
            if self.text_line >= 0:
                self.end_text_line()
            self.text_line = line
        elif sink == SINK_CODE and line != self.code_line:
            if line < self.code_line:
                return 1
            if self.code_line >= 0:
                self.end_code_line()
            self.code_line = line
        return 0

    cdef int newline(self, int sink) except -1:
        if sink == SINK_TEXT:
            self.end_text_line()
            self.text_line += 1
        else:
            self.end_code_line()
            self.code_line += 1
        return 0

    cdef inline HBuf* buf(self, int sink):
        if sink == SINK_TITLE:
            return &self.title_b
        if sink == SINK_HEADING:
            return &self.heading_b
        if sink == SINK_CELL:
            return &self.cell_b
        return &self.code_b if sink == SINK_CODE else &self.text_b

    cdef int flush(self) except -1:
        if self.text_line >= 0:
            self.end_text_line()
            self.text_line = -1
        if self.text_lines:
            if self.term_at == len(self.items):  # a dt's text, ended by its end or implied
                self.terms.append(self.term_at)
            self.term_at = -1
            self.items.append(_atomic(_block("text", _atomic(tuple(self.text_lines)))))
            self.text_lines = []
        if self.rows and not self.in_row:
            self.items.append(_atomic(_block("table", _atomic(tuple(self.rows)))))
            self.rows = []
        return 0

    cdef void track_main(self, const char* name, int n, bint role_main, bint opening):
        if self.main_len < 0:
            if opening and role_main:
                memcpy(self.main_name, name, n)
                self.main_len, self.main_depth = n, 1
                self.content_depth += 1
            return
        if n != self.main_len or memcmp(name, self.main_name, n) != 0:
            return
        self.main_depth += 1 if opening else -1
        if not self.main_depth:
            self.main_len = -1
            self.content_depth = max(0, self.content_depth - 1)

    cdef int starttag(self, int tag, const char* name, int n, bint nav, bint main, bint mark, bint inpage, bint admonition, bint fragment) except -1:
        # mark: a heading's permalink mark (an ``a``) or an example's hidden lines (a ``span``)
        cdef int code = tag & 255
        if self.drop_len >= 0:
            if n == self.drop_len and memcmp(name, self.drop_name, n) == 0:
                self.drop_depth += 1
            return 0
        if (tag & HT_D) or ((tag & HT_C) and self.content_depth == 0 and (self.sections == 0 or (n == 6 and memcmp(name, b"footer", 6) == 0))) or nav or mark or (self.in_link and n == 3 and memcmp(name, b"sup", 3) == 0):
            memcpy(self.drop_name, name, n)
            self.drop_len, self.drop_depth = n, 1
            return 0
        self.track_main(name, n, main, True)
        if tag & HT_M:
            self.content_depth += 1
        if n == 7 and memcmp(name, b"section", 7) == 0:
            self.sections += 1
        if n == 3 and memcmp(name, b"div", 3) == 0 and (self.admonition or admonition):
            self.admonition += 1
        if n == 3 and memcmp(name, b"div", 3) == 0 and (self.fragment or fragment):
            self.fragment += 1
        if self.in_heading and (tag & (HT_B | HT_K)):
            self.close_heading()
        if code == T_TITLE:
            self.in_title = True
            _hclear(&self.title_b)
        elif T_H1 <= code <= T_H6:
            self.flush()
            self.in_heading, self.heading_level, self.heading_line = True, code - T_H1 + 1, self.line
            _hclear(&self.heading_b)
        elif code == T_PRE or (self.fragment == 1 and n == 3 and memcmp(name, b"div", 3) == 0 and not self.in_code):
            self.flush()
            self.in_code, self.code_lines, self.code_line = True, [], -1
            self.code_b.n = 0
        elif code == T_TR:
            self.close_row()
            self.in_row, self.row_line, self.row_cells, self.row_any = True, self.line, 0, False
            self.row_td = False
            self.row_b.n = 0
        elif code == T_TD or code == T_TH:
            self.close_cell()
            self.in_cell = True
            self.row_td = self.row_td or code == T_TD
            _hclear(&self.cell_b)
        elif code == T_BR:
            self.space(True)
        elif (tag & HT_B) and self.in_cell:
            self.space()  # a cell's items and paragraphs: "a</li><li>b" is "a b"
        elif (tag & HT_B) and not self.in_row:
            self.flush()
            # a dt's text is the next text block made, unless its end or a dd comes first
            if n == 2 and memcmp(name, b"dt", 2) == 0:
                self.term_at = len(self.items)
            elif n == 2 and memcmp(name, b"dd", 2) == 0:
                self.term_at = -1
                self.definitions.append(len(self.items))
        if code == T_A:
            self.in_link = inpage
        elif _is_list(name, n):
            if self.toc_depth == 0:
                self.toc_depth, self.toc_start = 1, len(self.items)
                self.toc_only, self.toc_linked = True, False
            else:
                self.toc_depth += 1
        return 0

    cdef void list_text(self, int sink) noexcept:
        """``PageParser._list_text``: text met inside a list, in ``sink``."""
        if sink == SINK_TEXT and self.in_link:
            self.toc_linked = True
        elif sink != SINK_NONE:
            self.toc_only = False

    cdef int space(self, bint br=False) except -1:
        """``handle_data(" ")``; for a ``<br>`` (``br``), ``PageParser._line_break``: in
        running text it ends the block instead."""
        cdef uint32_t c = 32
        if br and self.sink() == SINK_TEXT and self.term_at < 0:
            return self.flush()
        return _hfeed(self, &c, 0, 1, self.line, self.sink())

    cdef int endtag(self, int tag, const char* name, int n) except -1:
        cdef int code = tag & 255
        cdef bint fragment_ends
        if self.drop_len >= 0:
            if n == self.drop_len and memcmp(name, self.drop_name, n) == 0:
                self.drop_depth -= 1
                if not self.drop_depth:
                    self.drop_len = -1
            return 0
        self.track_main(name, n, False, False)
        if tag & HT_M:
            self.content_depth = max(0, self.content_depth - 1)
        if n == 7 and memcmp(name, b"section", 7) == 0:
            self.sections = max(0, self.sections - 1)
        if n == 3 and memcmp(name, b"div", 3) == 0 and self.admonition:
            self.admonition -= 1
        fragment_ends = n == 3 and memcmp(name, b"div", 3) == 0 and self.fragment == 1
        if n == 3 and memcmp(name, b"div", 3) == 0 and self.fragment:
            self.fragment -= 1
        if code == T_TITLE and self.in_title:
            self.title = _hstr(&self.title_b, 0, self.title_b.n)
            self.in_title = False
        elif T_H1 <= code <= T_H6 and self.in_heading:
            self.close_heading()
        elif (code == T_PRE or fragment_ends) and self.in_code:
            self.close_code()
        elif code == T_TD or code == T_TH:
            self.close_cell()
        elif code == T_TR:
            self.close_row()
        elif code != T_TABLE and (tag & HT_B) and self.in_cell:
            self.space()  # "<div>a</div>b" in a cell is "a b"
        elif code == T_TABLE or ((tag & HT_B) and not self.in_row):
            self.close_row()
            self.flush()
            if n == 2 and memcmp(name, b"dt", 2) == 0:
                self.term_at = -1
        if code == T_A:
            self.in_link = False
        elif self.toc_depth and _is_list(name, n):
            self.toc_depth -= 1
            if not self.toc_depth and self.toc_only and self.toc_linked:
                del self.items[self.toc_start:]  # a table of contents: its blocks go
                self.terms = [i for i in self.terms if i < self.toc_start]
                self.definitions = [i for i in self.definitions if i < self.toc_start]
        return 0

    cdef int close_heading(self) except -1:
        self.in_heading = False
        text = _hstr(&self.heading_b, 0, self.heading_b.n) if self.heading_b.n else None
        if text is not None and self.admonition:  # an admonition's label: text
            self.items.append(_atomic(_block("text", _atomic((_atomic(_line(self.heading_line, text)),)))))
        elif text is not None:
            self.items.append(_atomic(_heading(text, self.heading_level, self.heading_line)))
            if self.heading_level == 1 and not self.first_h1:
                self.first_h1 = text
        return 0

    cdef int close_code(self) except -1:
        cdef list raw
        cdef Py_ssize_t a = 0, b
        if self.code_line >= 0:
            self.end_code_line()
        raw = self.code_lines
        b = len(raw)
        while b > a and not (<str>raw[b - 1].text):
            b -= 1
        while a < b and not (<str>raw[a].text):
            a += 1
        if a < b:
            self.items.append(_atomic(_block("code", _atomic(tuple(raw[a:b])))))
        self.in_code, self.code_lines, self.code_line = False, [], -1
        return 0

    cdef int close_cell(self) except -1:
        cdef Py_ssize_t i
        if self.in_cell and self.in_row:
            _hreserve(&self.row_b, 2 * self.cell_b.n + 5)  # a "|" in the cell: \|
            if self.row_cells:
                self.row_b.d[self.row_b.n] = 32
                self.row_b.d[self.row_b.n + 1] = 124
                self.row_b.d[self.row_b.n + 2] = 32
                self.row_b.n += 3
            for i in range(self.cell_b.n):
                if self.cell_b.d[i] == 124:
                    self.row_b.d[self.row_b.n] = 92
                    self.row_b.n += 1
                self.row_b.d[self.row_b.n] = self.cell_b.d[i]
                self.row_b.n += 1
            self.row_cells += 1
            self.row_any = self.row_any or self.cell_b.n > 0
        self.in_cell = False
        return 0

    cdef int close_row(self) except -1:
        self.close_cell()
        if self.in_row:
            if self.row_any:
                if not self.rows and self.row_td:  # no header row: an empty one says so
                    empty = "| " + " | ".join([""] * self.row_cells) + " |"
                    self.rows.append(_atomic(_line(self.row_line, empty)))
                text = "| " + _hstr(&self.row_b, 0, self.row_b.n) + " |"
                self.rows.append(_atomic(_line(self.row_line, text)))
            self.in_row = False
        return 0

    cdef int finish(self) except -1:
        if self.in_heading:
            self.close_heading()
        if self.in_code:
            self.close_code()
        self.close_row()
        self.flush()
        return 0

