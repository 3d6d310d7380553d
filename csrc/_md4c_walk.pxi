# The md4c walk's state and steps (included by _md4c.pyx): md4c's block, span and text
# callbacks turned into headings and blocks, or a hand-back (see _md4c.pyx's docstring).

cdef class _Walk:
    """The walk's state: the open block types, the open run or verbatim block and its
    buffer, the table so far, the items so far."""

    cdef const char* data
    cdef Py_ssize_t size, n_newlines
    cdef Py_ssize_t* newlines
    cdef int* stack
    cdef int depth, cap, leaf, level
    cdef int start  # the run's or verbatim block's first line, 0 while not known
    cdef int count  # markdown-it's line count since the start (breaks, newlines in HTML)
    cdef int line  # the count of the line in the buffer
    cdef bint unsure  # something before the first text may have moved the line
    cdef int image  # open image spans (their alt text is kept, their breaks are not)
    cdef const char* last  # where the run's last text in the source ended
    cdef int marks  # the run's delimiter runs (``_runs``)
    cdef bint code_first  # a code span was entered, its first text is still to come
    cdef int code_break  # 1 a code span just ended, 2 and then a line break
    cdef Py_ssize_t pending  # md4c's own indentation before a code or HTML line's text
    cdef char* buf
    cdef Py_ssize_t length, room
    cdef int table_start, row, header_cells
    cdef list lines, cells, rows, items
    cdef object html_blocks, entity, table_agrees, inline_html, error
    cdef int stop  # HAND_BACK or FAILED once a callback answered it

    def __cinit__(self, bytes source, object html_blocks, object entity, object table_agrees,
                  object inline_html):
        cdef const char* data = source
        cdef Py_ssize_t i, count = 0, begin, end
        cdef const char* p = data
        self.data, self.size = data, len(source)
        while True:  # the newlines, twice: counted, then placed (memchr's wide steps)
            p = <const char*>memchr(p, 10, data + self.size - p)
            if p == NULL:
                break
            count += 1
            p += 1
        self.newlines = <Py_ssize_t*>malloc((count + 1) * sizeof(Py_ssize_t))
        self.cap, self.room = 16, 256
        self.stack = <int*>malloc(self.cap * sizeof(int))
        self.buf = <char*>malloc(self.room)
        if self.newlines == NULL or self.stack == NULL or self.buf == NULL:
            raise MemoryError()
        count, p = 0, data
        while True:
            p = <const char*>memchr(p, 10, data + self.size - p)
            if p == NULL:
                break
            self.newlines[count] = p - data
            count += 1
            p += 1
        self.n_newlines = count
        self.items, self.cells, self.rows, self.lines = [], [], [], []
        self.html_blocks, self.entity, self.table_agrees = html_blocks, entity, table_agrees
        self.inline_html = inline_html
        for i in range(1, count + 2):
            begin, end = self.begin_of(i), self.end_of(i)
            if (
                _underline_tab(data, begin, end)
                or _tab_before_quote(data, begin, end)
                or _reads_otherwise(data, begin, end)
            ):
                self.stop = HAND_BACK
                break
            # md4c 0.4.8 lets an empty list item go on past a blank line and interrupt a
            # paragraph
            if _bare_marker(data, self.begin_of(i), self.end_of(i)):
                self.stop = HAND_BACK
                break

    cdef inline Py_ssize_t begin_of(self, int line):
        """The offset where the 1-based ``line`` begins."""
        return self.newlines[line - 2] + 1 if line > 1 else 0

    cdef inline Py_ssize_t end_of(self, int line):
        """The offset of the newline that ends ``line`` (or the end of the text)."""
        return self.newlines[line - 1] if line <= self.n_newlines else self.size

    def __dealloc__(self):
        free(self.newlines)
        free(self.stack)
        free(self.buf)

    cdef int line_of(self, const char* text):
        """1 + the newlines before ``text`` (``bisect_left`` + 1)."""
        cdef Py_ssize_t offset = text - self.data, lo = 0, hi = self.n_newlines, mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if self.newlines[mid] < offset:
                lo = mid + 1
            else:
                hi = mid
        return <int>lo + 1

    cdef inline bint in_source(self, const char* text):
        return self.data <= text < self.data + self.size

    cdef bint indented(self, int line):
        """Whether ``line`` starts with four columns of whitespace."""
        cdef Py_ssize_t i = self.begin_of(line), end = self.end_of(line)
        cdef int columns = 0
        while i < end and columns < 4 and (self.data[i] == 32 or self.data[i] == 9):
            columns += 1 if self.data[i] == 32 else 4 - columns % 4
            i += 1
        return columns >= 4

    cdef bint after_newline(self, const char* text):
        """Whether only spaces and tabs lie between ``text`` and the newline before it (a
        code span's text there may follow the span's opening on an earlier line)."""
        cdef const char* p = text - 1
        while p >= self.data and (p[0] == 32 or p[0] == 9):
            p -= 1
        return p >= self.data and p[0] == 10

    cdef int append(self, const char* text, Py_ssize_t n) except -1:
        cdef Py_ssize_t room = self.room
        if self.length + n > room:
            while self.length + n > room:
                room *= 2
            grown = <char*>realloc(self.buf, room)
            if grown == NULL:
                raise MemoryError()
            self.buf, self.room = grown, room
        memcpy(self.buf + self.length, text, n)
        self.length += n
        return 0

    cdef void begin(self, int leaf):
        self.leaf, self.start, self.count, self.line = leaf, 0, 0, 0
        self.unsure, self.image, self.length = False, 0, 0
        self.last, self.pending, self.marks = NULL, 0, 0
        self.code_first, self.code_break = False, 0
        self.lines = []

    cdef int flush_line(self) except -1:
        """The buffered line into ``lines`` when it has text (its start is then known)."""
        text = _normal(self.buf, self.length)
        self.length = 0
        if text:
            if self.start == 0:
                return HAND_BACK
            self.lines.append(_line(self.start + self.line, text))
        return 0

    cdef bint tail_risky(self):
        """Whether the run's delimiter runs, with those between its last text and the end of
        that line, may need the rule of three."""
        if self.last != NULL:
            end = <const char*>memchr(self.last, 10, self.data + self.size - self.last)
            stop = (end - self.data) if end != NULL else self.size
            self.marks |= _runs(self.data, self.size, self.last - self.data, stop)
        return _rule_of_three(self.marks)

    cdef bint table_inside(self):
        """Whether a line of the paragraph could be a table's delimiter row (markdown-it's
        table may interrupt a paragraph; md4c's does not)."""
        cdef int k
        if self.start == 0:
            return False
        for k in range(self.start + 1, self.start + self.count + 1):
            if k <= self.n_newlines + 1 and _delimiter_like(self.data, self.begin_of(k), self.end_of(k)):
                return True
        return False

    cdef int end_run(self) except -1:
        """The open paragraph (or list item text) as a text block."""
        if self.flush_line() or self.tail_risky() or self.table_inside():
            return HAND_BACK
        self.items.append(_block("text", tuple(self.lines)))
        self.leaf = NONE
        return 0

    cdef int found_start(self, const char* text) except -1:
        """The run's first line from its first text in the source; a cell's gives the
        table's (the header is its first line, the delimiter row its second)."""
        if self.unsure:
            return HAND_BACK
        line = self.line_of(text)
        self.start = line - self.count
        self.last = self.data + self.begin_of(line)
        if self.leaf == RUN and self.depth == 2 and self.indented(self.start):
            return HAND_BACK  # md4c 0.4.8 may start a paragraph where an indented code is
        if self.leaf == CELL and self.table_start == 0:
            self.table_start = self.start - (self.row + 1 if self.row else 0)
        return 0

    cdef int inline_text(self, MD_TEXTTYPE kind, const char* text, Py_ssize_t n) except -1:
        if kind == MD_TEXT_BR or kind == MD_TEXT_SOFTBR:
            self.count += self.image == 0
            self.code_break = 2 if self.code_break == 1 else 0
            return 0
        if self.code_break == 2 and n and text[0] == 96:
            return HAND_BACK  # md4c 0.4.8: a code span closed at a line's start, its break and
            # closing backtick are given again after it
        self.code_break = 0
        if self.start == 0:
            if not self.in_source(text):
                self.unsure = True
            elif self.found_start(text):
                return HAND_BACK
        if self.last != NULL and self.in_source(text):
            self.marks |= _runs(self.data, self.size, self.last - self.data, text - self.data)
            if kind == MD_TEXT_NORMAL:
                self.marks |= _runs(self.data, self.size, text - self.data, text - self.data + n)
                if self.missed_html(text, n):
                    return HAND_BACK
            self.last = text + n
        if kind == MD_TEXT_HTML:
            if self.image == 0:
                newlines = text[:n].count(b"\n") if memchr(text, 10, n) != NULL else 0
                if newlines and self.leaf == CELL:
                    return HAND_BACK
                self.count += newlines
            return 0
        if kind == MD_TEXT_NULLCHAR or self.image > 1:  # no NUL reaches md4c; nested alt
            return HAND_BACK if kind == MD_TEXT_NULLCHAR else 0
        if self.to_line():
            return HAND_BACK
        if kind == MD_TEXT_ENTITY:
            decoded = <bytes>self.entity(text[:n])
            self.append(decoded, len(decoded))
            return 0
        if kind == MD_TEXT_CODE and self.code_first:
            self.code_first = False
            if self.in_source(text) and self.after_newline(text):
                return HAND_BACK  # md4c 0.4.8 drops a code span's leading line break
        self.append(text, n)
        return 0

    cdef bint missed_html(self, const char* text, Py_ssize_t n) except -1:
        """Whether markdown-it reads inline HTML at a ``<`` md4c gave as text (md4c 0.4.8
        does not take a comment over several lines): ``inline_html`` over the source from an
        unescaped ``<`` to the next blank line."""
        cdef const char* p = text
        cdef const char* end = text + n
        cdef const char* stop
        cdef const char* q
        cdef char c
        while True:
            p = <const char*>memchr(p, 60, end - p)
            if p == NULL or p + 1 >= self.data + self.size:
                return False
            c = p[1]
            q = p
            while q > self.data and q[-1] == 92:
                q -= 1
            if (p - q) % 2 == 0 and (c == 33 or c == 47 or c == 63 or 97 <= (c | 32) <= 122):
                stop = _blank_after(p, self.data + self.size)
                if self.inline_html(PyUnicode_DecodeUTF8(p, stop - p, "replace")):
                    return True
            p += 1

    cdef int to_line(self) except -1:
        """Text goes to markdown-it's current line: a new line of a paragraph, a space in a
        heading or cell."""
        if self.count != self.line:
            if self.leaf == HEAD or self.leaf == CELL:
                self.append(" ", 1)
            elif self.flush_line():
                return HAND_BACK
            self.line = self.count
        return 0

    cdef int verbatim_text(self, const char* text, Py_ssize_t n) except -1:
        """Code or HTML block text: the first line from the first text in the source."""
        cdef Py_ssize_t i
        if self.in_source(text):
            if self.start == 0:
                self.start = self.line_of(text) - self.count
            for i in range(1, self.pending + 1):  # md4c's spaces: the source's, no tab
                if text - i < self.data or (text - i)[0] != 32:
                    return HAND_BACK
            self.pending = 0
        elif memchr(text, 10, n) != NULL:
            self.count += self.start == 0
            self.pending = 0
        else:
            self.pending += n
        self.append(text, n)
        return 0

    cdef int push(self, int kind) except -1:
        if self.depth == self.cap:
            grown = <int*>realloc(self.stack, 2 * self.cap * sizeof(int))
            if grown == NULL:
                raise MemoryError()
            self.stack, self.cap = grown, 2 * self.cap
        self.stack[self.depth] = kind
        self.depth += 1
        return 0

    cdef int enter(self, MD_BLOCKTYPE kind, void* detail) except -1:
        if self.leaf == ITEM_RUN and self.end_run():
            return HAND_BACK
        self.push(kind)
        if kind == MD_BLOCK_P:
            self.begin(RUN)
        elif kind == MD_BLOCK_H:
            self.begin(HEAD)
            self.level = (<MD_BLOCK_H_DETAIL*>detail).level
        elif kind == MD_BLOCK_TH or kind == MD_BLOCK_TD:
            self.begin(CELL)
        elif kind == MD_BLOCK_CODE:
            self.begin(CODE)
        elif kind == MD_BLOCK_HTML:
            self.begin(HTML)
        elif kind == MD_BLOCK_TR:
            self.row += 1
            self.cells = []
        elif kind == MD_BLOCK_TABLE:
            self.table_start, self.row, self.rows, self.header_cells = 0, -1, [], 0
        return 0

    cdef int leave(self, MD_BLOCKTYPE kind) except -1:
        self.depth -= 1
        if self.depth == 1 and self.start and self.indented(self.start) and (
            kind == MD_BLOCK_H or kind == MD_BLOCK_HTML
        ):
            return HAND_BACK  # md4c 0.4.8 may start these where a paragraph goes on
        if self.leaf == RUN or self.leaf == ITEM_RUN:
            return self.end_run()
        if (kind == MD_BLOCK_H or kind == MD_BLOCK_TH or kind == MD_BLOCK_TD) and self.tail_risky():
            return HAND_BACK
        if kind == MD_BLOCK_H:
            if self.start == 0 or self.table_inside():  # a setext heading's lines, as a
                return HAND_BACK  # paragraph's, may hold markdown-it's table
            text = _normal(self.buf, self.length)
            self.items.append(_heading(text, self.level, self.start))
        elif kind == MD_BLOCK_TH or kind == MD_BLOCK_TD:
            self.cells.append(_normal(self.buf, self.length))
            self.header_cells += kind == MD_BLOCK_TH
        elif kind == MD_BLOCK_TR:
            self.rows.append((self.row, _table_row(self.cells)))
        elif kind == MD_BLOCK_TABLE:
            return self.end_table()
        elif kind == MD_BLOCK_CODE:
            return self.end_code()
        elif kind == MD_BLOCK_HTML:
            content = PyUnicode_DecodeUTF8(self.buf, self.length, NULL)
            found = self.html_blocks(content, self.start)
            if found is None:
                return HAND_BACK
            self.items.extend(found)
        self.leaf = NONE
        return 0

    cdef int end_table(self) except -1:
        """The table's rows; handed back unless markdown-it would read the same rows (its
        ``table_agrees`` over the source lines from the header to the line after)."""
        cdef int k
        if self.table_start == 0:
            return HAND_BACK
        first = self.table_start
        last = first + self.row + 2  # the line after the last row
        source = [
            PyUnicode_DecodeUTF8(self.data + self.begin_of(k), self.end_of(k) - self.begin_of(k), NULL)
            for k in range(first, min(last, self.n_newlines + 1) + 1)
        ]
        if not self.table_agrees(source, self.header_cells, last <= self.n_newlines + 1):
            return HAND_BACK
        rows = tuple([_line(first + (r + 1 if r else 0), text) for r, text in self.rows])
        self.items.append(_block("table", rows))
        return 0

    cdef int end_code(self) except -1:
        content = PyUnicode_DecodeUTF8(self.buf, self.length, NULL)
        lines = _code_lines(self.start, [content])
        if lines and self.start == 0:
            return HAND_BACK
        self.items.append(_block("code", tuple(lines)))
        self.leaf = NONE
        return 0

    cdef int text(self, MD_TEXTTYPE kind, const char* text, Py_ssize_t n) except -1:
        if self.leaf == CODE or self.leaf == HTML:
            return self.verbatim_text(text, n)
        if self.leaf == NONE:
            if self.depth == 0 or self.stack[self.depth - 1] != MD_BLOCK_LI:
                return HAND_BACK
            self.begin(ITEM_RUN)
        return self.inline_text(kind, text, n)

    cdef int span(self, MD_SPANTYPE kind, bint entering) except -1:
        if self.leaf == NONE:
            if self.depth == 0 or self.stack[self.depth - 1] != MD_BLOCK_LI:
                return HAND_BACK
            self.begin(ITEM_RUN)
        if kind == MD_SPAN_IMG:
            self.image += 1 if entering else -1
        if kind == MD_SPAN_CODE and not entering and self.code_first:
            return HAND_BACK  # a code span of a line break alone, dropped by md4c 0.4.8
        self.code_first = kind == MD_SPAN_CODE and entering
        self.code_break = kind == MD_SPAN_CODE and not entering
        if not entering and self.start == 0 and (kind == MD_SPAN_A or kind == MD_SPAN_IMG):
            self.unsure = True
        return 0
