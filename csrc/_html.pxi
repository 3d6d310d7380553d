_DROP = frozenset({"script", "style", "noscript", "template", "svg", "nav", "aside"})
_SITE_CHROME = frozenset({"header", "footer"})
_CONTENT = frozenset({"main", "article"})
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_BREAKS_HEADING = frozenset({*_HEADINGS, "pre", "tr", "td", "th"})
_BLOCK_TAGS = frozenset(
    {
        "address", "article", "blockquote", "body", "dd", "details", "div", "dl", "dt",
        "figcaption", "figure", "form", "hr", "html", "li", "main", "ol", "p", "section",
        "summary", "table", "ul",
    }
)
_COMMENT_CLOSE = re.compile(r"--\s*>")
_CDATA_END = {
    "script": re.compile(r"</\s*script\s*>", re.I),
    "style": re.compile(r"</\s*style\s*>", re.I),
}
cdef inline bint _ws(Py_UCS4 c):
    return c == 32 or c == 9 or c == 10 or c == 13 or c == 12 or c == 11


cdef inline bint _alpha(Py_UCS4 c):
    return (65 <= c <= 90) or (97 <= c <= 122)


cdef inline bint _name_char(Py_UCS4 c):
    return _alpha(c) or (48 <= c <= 57) or c == 45 or c == 46 or c == 58 or c == 95


cdef inline bint _attr_char(Py_UCS4 c):
    """A character the fast path accepts in an attribute name (printable ASCII, no syntax)."""
    return 33 <= c <= 126 and c != 47 and c != 62 and c != 61 and c != 34 and c != 39 and c != 60


cdef inline bint _bare_char(Py_UCS4 c):
    return 33 <= c <= 126 and c != 62 and c != 34 and c != 39 and c != 60 and c != 96


cdef int _add(dict lines, int first_line, str data) except -1:
    """Append ``data`` to the per-line fragments from ``first_line`` on (the reference's
    ``setdefault`` loop, without a new list per fragment)."""
    cdef int offset = 0
    cdef object found
    if PyUnicode_FindChar(data, 10, 0, PyUnicode_GET_LENGTH(data), 1) < 0:
        found = lines.get(first_line)
        if found is None:
            lines[first_line] = [data]
        else:
            (<list>found).append(data)
        return 0
    for piece in data.split("\n"):
        lines.setdefault(first_line + offset, []).append(piece)
        offset += 1
    return 0


cdef tuple _prose(dict lines):
    out = []
    for n in sorted(lines):
        text = " ".join("".join(lines[n]).split())
        if text:
            out.append(_line(n, text))
    return tuple(out)


cdef class _Page:
    """``docqa.text.html._PageParser``'s state and handlers; ``line`` is set by the scanner to
    the source line of the event being handled."""

    cdef public int line
    cdef bint content_only
    cdef object main_tag
    cdef int main_depth
    cdef public list items
    cdef public str title
    cdef public str first_h1
    cdef object drop_tag
    cdef int drop_depth
    cdef int content_depth
    cdef object title_parts
    cdef bint in_heading
    cdef int heading_level, heading_line
    cdef list heading_parts
    cdef dict text
    cdef object code
    cdef object cell
    cdef bint in_row
    cdef int row_line
    cdef list row_cells
    cdef list rows

    def __init__(self, bint content_only):
        self.content_only = content_only
        self.main_tag = None
        self.items = []
        self.title = ""
        self.first_h1 = ""
        self.drop_tag = None
        self.title_parts = None
        self.text = {}
        self.code = None
        self.cell = None
        self.rows = []

    cdef inline bint wants_data(self):
        if self.drop_tag is not None:
            return False
        return self.title_parts is not None or not (self.content_only and self.content_depth == 0)

    cdef void flush(self):
        text = _prose(self.text)
        if text:
            self.items.append(_block("text", text))
        self.text = {}
        if self.rows and not self.in_row:
            self.items.append(_block("table", tuple(self.rows)))
            self.rows = []

    cdef void track_main(self, str tag, bint role_main, bint opening):
        if self.main_tag is None:
            if opening and role_main:
                self.main_tag, self.main_depth = tag, 1
                self.content_depth += 1
            return
        if tag != self.main_tag:
            return
        self.main_depth += 1 if opening else -1
        if not self.main_depth:
            self.main_tag = None
            self.content_depth = max(0, self.content_depth - 1)

    cdef void starttag(self, str tag, bint role_nav, bint role_main, object klass):
        if self.drop_tag is not None:
            if tag == self.drop_tag:
                self.drop_depth += 1
            return
        chrome = tag in _SITE_CHROME and self.content_depth == 0
        permalink = tag == "a" and "headerlink" in (klass or "").split()
        if tag in _DROP or chrome or permalink or role_nav:
            self.drop_tag, self.drop_depth = tag, 1
            return
        self.track_main(tag, role_main, True)
        if tag in _CONTENT:
            self.content_depth += 1
        if self.in_heading and (tag in _BLOCK_TAGS or tag in _BREAKS_HEADING):
            self.close_heading()
        if tag == "title":
            self.title_parts = []
        elif tag in _HEADINGS:
            self.flush()
            self.in_heading = True
            self.heading_level, self.heading_line, self.heading_parts = _HEADINGS[tag], self.line, []
        elif tag == "pre":
            self.flush()
            self.code = {}
        elif tag == "tr":
            self.close_row()
            self.in_row, self.row_line, self.row_cells = True, self.line, []
        elif tag == "td" or tag == "th":
            self.close_cell()
            self.cell = []
        elif tag == "br":
            self.data(" ")
        elif tag in _BLOCK_TAGS and not self.in_row:
            self.flush()

    cdef void endtag(self, str tag):
        if self.drop_tag is not None:
            if tag == self.drop_tag:
                self.drop_depth -= 1
                if not self.drop_depth:
                    self.drop_tag = None
            return
        self.track_main(tag, False, False)
        if tag in _CONTENT:
            self.content_depth = max(0, self.content_depth - 1)
        if tag == "title" and self.title_parts is not None:
            self.title = " ".join("".join(self.title_parts).split())
            self.title_parts = None
        elif tag in _HEADINGS and self.in_heading:
            self.close_heading()
        elif tag == "pre" and self.code is not None:
            self.close_code()
        elif tag == "td" or tag == "th":
            self.close_cell()
        elif tag == "tr":
            self.close_row()
        elif tag == "table" or (tag in _BLOCK_TAGS and not self.in_row):
            self.close_row()
            self.flush()

    cdef void data(self, str data):
        if self.drop_tag is not None:
            return
        if self.title_parts is not None:
            self.title_parts.append(data)
        elif self.content_only and self.content_depth == 0:
            return
        elif self.in_heading:
            self.heading_parts.append(data)
        elif self.cell is not None:
            self.cell.append(data)
        elif self.code is not None:
            _add(self.code, self.line, data)
        elif not self.in_row:
            _add(self.text, self.line, data)

    cdef void close_heading(self):
        self.in_heading = False
        text = " ".join("".join(self.heading_parts).split())
        if text:
            self.items.append(_heading(text, self.heading_level, self.heading_line))
            if self.heading_level == 1 and not self.first_h1:
                self.first_h1 = text

    cdef void close_code(self):
        raw = [_line(n, "".join(self.code[n]).rstrip()) for n in sorted(self.code)]
        while raw and not raw[len(raw) - 1].text.strip():
            raw.pop()
        while raw and not raw[0].text.strip():
            raw.pop(0)
        if raw:
            self.items.append(_block("code", tuple(raw)))
        self.code = None

    cdef void close_cell(self):
        if self.cell is not None and self.in_row:
            self.row_cells.append(" ".join("".join(self.cell).split()))
        self.cell = None

    cdef void close_row(self):
        self.close_cell()
        if self.in_row:
            if any(self.row_cells):
                self.rows.append(_line(self.row_line, "| " + " | ".join(self.row_cells) + " |"))
            self.in_row = False

    cdef void finish(self):
        if self.in_heading:
            self.close_heading()
        if self.code is not None:
            self.close_code()
        self.close_row()
        self.flush()


cdef class _Text:
    """The text being scanned, with its kind and data pointer for ``PyUnicode_READ``."""

    cdef str s
    cdef int kind
    cdef void* data
    cdef Py_ssize_t n

    def __init__(self, str s):
        self.s = s
        self.kind = PyUnicode_KIND(s)
        self.data = PyUnicode_DATA(s)
        self.n = PyUnicode_GET_LENGTH(s)

    cdef inline Py_UCS4 at(self, Py_ssize_t i):
        return PyUnicode_READ(self.kind, self.data, i) if i < self.n else 0

    cdef Py_ssize_t find(self, Py_UCS4 c, Py_ssize_t i):
        while i < self.n:
            if PyUnicode_READ(self.kind, self.data, i) == c:
                return i
            i += 1
        return -1

    cdef int newlines(self, Py_ssize_t i, Py_ssize_t j):
        cdef int count = 0
        while i < j:
            if PyUnicode_READ(self.kind, self.data, i) == 10:
                count += 1
            i += 1
        return count


cdef Py_ssize_t _start_tag(_Text t, Py_ssize_t i, _Page page, list cdata) except -2:
    """Handle the start tag at ``i`` (``<`` + letter); its end, or -1 to fall back."""
    cdef Py_ssize_t j = i + 1, a, b, v0, v1
    cdef Py_UCS4 c, q
    cdef bint role_nav = False, role_main = False, closing = False
    cdef bint upper = False
    klass = None
    while _name_char(t.at(j)):
        upper = upper or 65 <= t.at(j) <= 90
        j += 1
    c = t.at(j)
    if not (c == 32 or c == 9 or c == 10 or c == 13 or c == 12 or c == 47 or c == 62):
        return -1
    tag = t.s[i + 1 : j].lower() if upper else t.s[i + 1 : j]
    while True:
        while _ws(t.at(j)):
            j += 1
        c = t.at(j)
        if c == 62:
            j += 1
            break
        if c == 47:
            if t.at(j + 1) != 62:
                return -1
            closing, j = True, j + 2
            break
        a = j
        while _attr_char(t.at(j)):
            j += 1
        if j == a:
            return -1
        b = j
        v0 = v1 = -1
        while _ws(t.at(j)):
            j += 1
        if t.at(j) == 61:
            j += 1
            while _ws(t.at(j)):
                j += 1
            q = t.at(j)
            if q == 61:  # "==": the reference reads every "=" as the indicator
                return -1
            if q == 34 or q == 39:
                v0 = j + 1
                j = t.find(q, v0)
                if j < 0:
                    return -1
                v1, j = j, j + 1
            else:
                v0 = j
                while _bare_char(t.at(j)):
                    j += 1
                v1 = j
            c = t.at(j)
            if not (_ws(c) or c == 62 or (c == 47 and t.at(j + 1) == 62)):
                return -1
        elif t.at(j) != 62 and t.at(j) != 47 and j == b:
            return -1
        if b - a == 4 or b - a == 5:
            name = t.s[a:b].lower()
            if name == "role" or name == "class":
                value = t.s[v0:v1] if v0 >= 0 else None
                if value and "&" in value:
                    value = unescape(value)
                if name == "class":
                    klass = value
                elif value == "navigation":
                    role_nav = True
                elif value == "main":
                    role_main = True
    page.starttag(tag, role_nav, role_main, klass)
    if closing:
        page.endtag(tag)
    elif tag == "script" or tag == "style":
        cdata.append(tag)
    return j


cdef Py_ssize_t _end_tag(_Text t, Py_ssize_t i, _Page page) except -2:
    """Handle the end tag ``</name>`` at ``i``; its end, or -1 to fall back."""
    cdef Py_ssize_t j = i + 2, a
    while _ws(t.at(j)):
        j += 1
    if not _alpha(t.at(j)):
        return -1
    cdef bint upper = False
    a = j
    while _name_char(t.at(j)):
        upper = upper or 65 <= t.at(j) <= 90
        j += 1
    tag = t.s[a:j].lower() if upper else t.s[a:j]
    while _ws(t.at(j)):
        j += 1
    if t.at(j) != 62:
        return -1
    page.endtag(tag)
    return j + 1


cdef Py_ssize_t _markup(_Text t, Py_ssize_t i) except -2:
    """The end of the comment, doctype, processing instruction or bogus comment at ``i``
    (ignored, as the reference's handlers ignore them), or -1 to fall back."""
    cdef Py_ssize_t k
    if t.s.startswith("<!--", i):
        m = _COMMENT_CLOSE.search(t.s, i + 4)
        return -1 if m is None else m.end()
    if t.at(i + 1) == 63:  # <?
        k = t.find(62, i + 2)
        return -1 if k < 0 else k + 1
    if t.at(i + 2) == 91:  # <![
        return -1
    if t.s[i : i + 9].lower() == "<!doctype":
        k = t.find(62, i + 9)
    else:
        k = t.find(62, i + 2)
    return -1 if k < 0 else k + 1


def scan_html(str text, int first_line, bint content_only):
    """``(title, first h1, headings and blocks)`` as ``_PageParser`` gives them for ``text``
    found at ``first_line``, or ``None`` when the text needs the reference parser."""
    _types()
    cdef _Text t = _Text(text)
    cdef _Page page = _Page(content_only)
    cdef Py_ssize_t i = 0, j, k, n = t.n
    cdef Py_UCS4 c
    cdef list cdata = []
    cdef int line = first_line
    while i < n:
        if cdata:
            tag = cdata.pop()
            m = _CDATA_END[tag].search(text, i)
            if m is None:
                break  # the rest is the element's raw text
            j = m.start()
            line += t.newlines(i, j)
            page.line = line
            page.endtag(tag)
            line += t.newlines(j, m.end())
            i = m.end()
            continue
        j = t.find(60, i)
        if j < 0:
            j = n
        if i < j:
            if page.wants_data():
                s = text[i:j]
                page.line = line
                page.data(unescape(s) if "&" in s else s)
            line += t.newlines(i, j)
            i = j
        if i == n:
            break
        page.line = line
        c = t.at(i + 1)
        if _alpha(c):
            k = _start_tag(t, i, page, cdata)
        elif c == 47:
            k = _end_tag(t, i, page)
        elif c == 33 or c == 63:
            k = _markup(t, i)
        else:
            if page.wants_data():
                page.data("<")
            k = i + 1
        if k < 0:
            return None
        line += t.newlines(i, k)
        i = k
    page.finish()
    return page.title, page.first_h1, page.items
