# Markdown: pyromark's (event, range) stream to headings and blocks (included by _parse.pyx).
#
# The rules are those of docqa.text.markdown_fast's module docstring: a block's first line is
# the line of its first event's start (ranges are UTF-8 byte offsets); inside it the line
# advances at each soft or hard break and at each newline inside inline HTML; text straight
# inside a list item is a paragraph, ended by the next block-level event.



_INLINE_STARTS = frozenset(
    {"Emphasis", "Strong", "Strikethrough", "Link", "Image", "Superscript", "Subscript"}
)
_LEVELS = {f"H{n}": n for n in range(1, 7)}


cdef bint _shown_otherwise(dict link):
    """Whether markdown-it reads an autolink (a URI, an email address) otherwise than
    pulldown-cmark, which gives it as written: its ``validateLink`` refuses some schemes
    (``<javascript:alert(1)>`` is no link, its ``<`` and ``>`` stay), and its
    ``normalizeLinkText`` re-formats the text through mdurl and percent-decodes it
    (``<ab:::1>`` reads ``ab::1:``, ``%20`` a space)."""
    kind = link["link_type"]
    if kind != "Autolink" and kind != "Email":
        return False
    from markdown_it.common.normalize_url import (  # only where an autolink is met
        normalizeLink,
        normalizeLinkText,
        validateLink,
    )

    url = link["dest_url"]
    if not validateLink(normalizeLink(url if kind == "Autolink" else "mailto:" + url)):
        return True
    return normalizeLinkText(url) != url


cdef class _Walker:
    """The walk's state: the open inline run (``parts``, by line), the open heading, code
    block, HTML block or table, and the items so far."""

    cdef Py_ssize_t* newlines
    cdef Py_ssize_t n_newlines
    cdef bytes source
    cdef bint unsure  # the walk would not give markdown-it's items: the caller parses with it
    cdef list items
    cdef object parts  # dict line -> list of str, or None
    cdef int line
    cdef bint in_heading, in_code, in_html, in_table
    cdef int heading_level, heading_line, block_line, row_line
    cdef list texts
    cdef list rows
    cdef list cells
    cdef object html_blocks
    cdef list cur  # parts[cur_line] of the dict cur_parts: where the last text went
    cdef object cur_parts
    cdef int cur_line

    def __cinit__(self, bytes source, object html_blocks):
        cdef const char* data = source
        cdef Py_ssize_t n = len(source), i, count = 0
        for i in range(n):
            count += data[i] == 10
        self.newlines = <Py_ssize_t*>malloc((count + 1) * sizeof(Py_ssize_t))
        if self.newlines == NULL:
            raise MemoryError()
        count = 0
        for i in range(n):
            if data[i] == 10:
                self.newlines[count] = i
                count += 1
        self.n_newlines = count
        self.source = source
        self.unsure = False
        self.items = []
        self.parts = None
        self.cells = []
        self.html_blocks = html_blocks

    def __dealloc__(self):
        free(self.newlines)

    cdef int line_of(self, Py_ssize_t offset):
        """1 + the newlines before ``offset`` (``bisect_left`` + 1)."""
        cdef Py_ssize_t lo = 0, hi = self.n_newlines, mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if self.newlines[mid] < offset:
                lo = mid + 1
            else:
                hi = mid
        return <int>lo + 1

    cdef list lines(self):
        parts = self.parts if self.parts is not None else {}
        self.parts = None
        out = []
        for n, p in parts.items():
            text = " ".join("".join(p).split())
            if text:
                out.append(_line(n, text))
        return out

    cdef inline dict inline(self, Py_ssize_t offset):
        if self.parts is None:
            self.parts, self.line = {}, self.line_of(offset)
        return self.parts

    cdef void flush(self):
        if self.parts is not None and not self.in_heading and not self.in_table:
            self.items.append(_block("text", tuple(self.lines())))

    cdef int append_part(self, str value) except -1:
        """``parts.setdefault(line, []).append(value)``, the list of the last call reused."""
        if self.cur_parts is self.parts and self.cur_line == self.line:
            self.cur.append(value)
            return 0
        found = (<dict>self.parts).get(self.line)
        if found is None:
            found = []
            (<dict>self.parts)[self.line] = found
        (<list>found).append(value)
        self.cur, self.cur_parts, self.cur_line = found, self.parts, self.line
        return 0

    cdef bint indented(self, int line):
        """Whether source line ``line`` starts with a tab or four spaces (markdown-it reads a
        line so indented as code, never as a table's row, wherever the table is)."""
        cdef const char* data = self.source
        cdef Py_ssize_t i = 0 if line <= 1 else self.newlines[line - 2] + 1
        cdef Py_ssize_t n = len(self.source), spaces = 0
        while i < n and data[i] == 32 and spaces < 4:
            i += 1
            spaces += 1
        return spaces == 4 or (i < n and data[i] == 9)

    cdef void add_text(self, str value, Py_ssize_t offset):
        if self.in_code or self.in_html:
            self.texts.append(value)
        else:
            self.inline(offset)
            self.append_part(value)

    cdef void start(self, object tag, Py_ssize_t offset):
        name = tag if type(tag) is str else next(iter(tag))
        if name in _INLINE_STARTS:
            self.inline(offset)
            if name == "Link" and _shown_otherwise(tag["Link"]):
                self.unsure = True
            return
        self.flush()
        if name == "Heading":
            self.in_heading = True
            self.heading_level = _LEVELS[tag["Heading"]["level"]]
            self.heading_line = self.line_of(offset)
            self.parts, self.line = {}, self.heading_line
        elif name == "CodeBlock":
            self.in_code, self.texts = True, []
            self.block_line = self.line_of(offset) + isinstance(tag["CodeBlock"], dict)
        elif name == "HtmlBlock":
            self.in_html, self.texts = True, []
            self.block_line = self.line_of(offset)
        elif name == "Table":
            self.in_table, self.rows = True, []
        elif name == "TableHead" or name == "TableRow":
            self.cells, self.row_line = [], self.line_of(offset)
            if name == "TableRow" and self.indented(self.row_line):
                self.unsure = True  # markdown-it ends a table at a line indented as code
        elif name == "TableCell" or name == "Paragraph":
            self.parts, self.line = {}, self.line_of(offset)

    cdef void end(self, object tag):
        name = tag if type(tag) is str else next(iter(tag))
        if name in _INLINE_STARTS:
            return
        if name == "Heading" and self.in_heading:
            self.in_heading = False
            text = " ".join([x.text for x in self.lines()])
            self.items.append(_heading(text, self.heading_level, self.heading_line))
        elif name == "CodeBlock" and self.in_code:
            self.items.append(_block("code", tuple(_code_lines(self.block_line, self.texts))))
            self.in_code = False
        elif name == "HtmlBlock" and self.in_html:
            self.in_html = False
            found = self.html_blocks("".join(self.texts), first_line=self.block_line)
            self.items.extend(found)
        elif name == "TableCell":
            self.cells.append(" ".join([x.text for x in self.lines()]))
        elif (name == "TableHead" or name == "TableRow") and self.in_table:
            self.rows.append(_line(self.row_line, _table_row(self.cells)))
        elif name == "Table" and self.in_table:
            self.items.append(_block("table", tuple(self.rows)))
            self.in_table = False
        else:
            self.flush()


def walk_markdown(object events, bytes source, object html_blocks):
    """Headings and blocks of pyromark's ``events_with_range`` list over ``source`` (the
    parsed text as UTF-8); ``html_blocks(text, first_line=...)`` parses an HTML block. None
    where pulldown-cmark is known to read the text otherwise than markdown-it (a table row on
    a line indented as code)."""
    _types()
    cdef _Walker walker = _Walker(source, html_blocks)
    cdef Py_ssize_t start
    for event, where in events:
        if type(event) is str:
            if event == "SoftBreak" or event == "HardBreak":
                walker.inline(where["start"])
                walker.line += 1
            else:
                walker.flush()
            continue
        for kind, value in (<dict>event).items():
            break
        if kind == "Text":
            if walker.parts is not None and not walker.in_code and not walker.in_html:
                walker.append_part(value)
            else:
                walker.add_text(value, where["start"])
        elif kind == "Start":
            walker.start(value, where["start"])
        elif kind == "End":
            walker.end(value)
        elif kind == "Code" or kind == "Html":
            walker.add_text(value, where["start"])
        elif kind == "InlineHtml":
            walker.inline(where["start"])
            walker.line += value.count("\n")
    walker.flush()
    return None if walker.unsure else walker.items
