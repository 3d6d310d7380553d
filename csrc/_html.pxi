# The HTML scanner (included by _parse.pyx; see its docstring): HTMLParser's tokenizer over the
# text's code units, for the common well-formed subset, driving _Page (_html_page.pxi).

include "_html_page.pxi"
include "_html_marks.pxi"
include "_html_text.pxi"

_COMMENT_CLOSE = re.compile(r"--\s*>")
_CDATA_END = {
    T_SCRIPT: re.compile(r"</\s*script\s*>", re.I),
    T_STYLE: re.compile(r"</\s*style\s*>", re.I),
}
cdef extern from *:
    """
    static const DocqaTag DOCQA_TAGS[] = {
        {"a", 1, 1}, {"address", 7, HT_B}, {"article", 7, HT_M|HT_B}, {"aside", 5, HT_D},
        {"blockquote", 10, HT_B}, {"body", 4, HT_B}, {"br", 2, 7}, {"button", 6, HT_D}, {"dd", 2, HT_B},
        {"details", 7, HT_B}, {"div", 3, HT_B}, {"dl", 2, HT_B}, {"dt", 2, HT_B},
        {"figcaption", 10, HT_B}, {"figure", 6, HT_B}, {"footer", 6, HT_C}, {"form", 4, HT_B},
        {"h1", 2, 11|HT_K}, {"h2", 2, 12|HT_K}, {"h3", 2, 13|HT_K}, {"h4", 2, 14|HT_K},
        {"h5", 2, 15|HT_K}, {"h6", 2, 16|HT_K}, {"header", 6, HT_C}, {"hr", 2, HT_B},
        {"html", 4, HT_B}, {"li", 2, HT_B}, {"main", 4, HT_M|HT_B}, {"nav", 3, HT_D},
        {"noscript", 8, HT_D}, {"ol", 2, HT_B}, {"p", 1, HT_B}, {"pre", 3, 3|HT_K},
        {"script", 6, 9|HT_D}, {"section", 7, HT_B}, {"style", 5, 10|HT_D}, {"summary", 7, HT_B},
        {"svg", 3, HT_D}, {"table", 5, 8|HT_B}, {"td", 2, 5|HT_K}, {"template", 8, HT_D},
        {"th", 2, 6|HT_K}, {"title", 5, 2}, {"tr", 2, 4|HT_K}, {"ul", 2, HT_B},
        {"", 0, 0}};
    static const signed char DOCQA_TAG_FIRST[26] = {0, 4, -1, 8, -1, 13, -1, 17, -1, -1, -1,
        26, 27, 28, 30, 31, -1, -1, 33, 38, 44, -1, -1, -1, -1, -1};

    /* The code and flags of a lower-case tag name the handlers know, else 0. */
    static int docqa_html_tag(const char* s, Py_ssize_t n) {
        int k;
        if (s[0] < 'a' || s[0] > 'z' || (k = DOCQA_TAG_FIRST[s[0] - 'a']) < 0) return 0;
        for (; DOCQA_TAGS[k].name[0] == s[0]; k++)
            if (DOCQA_TAGS[k].n == n && memcmp(DOCQA_TAGS[k].name, s, n) == 0)
                return DOCQA_TAGS[k].v;
        return 0;
    }
    """
    int _tag_value "docqa_html_tag"(const char* s, Py_ssize_t n) noexcept nogil


cdef inline bint _ws(uint32_t c) noexcept nogil:
    return c == 32 or c == 9 or c == 10 or c == 13 or c == 12 or c == 11


cdef inline bint _alpha(uint32_t c) noexcept nogil:
    return (65 <= c <= 90) or (97 <= c <= 122)


cdef inline bint _name_char(uint32_t c) noexcept nogil:
    return _alpha(c) or (48 <= c <= 57) or c == 45 or c == 46 or c == 58 or c == 95


cdef inline bint _attr_char(uint32_t c) noexcept nogil:
    """A character the fast path accepts in an attribute name (printable ASCII, no syntax)."""
    return 33 <= c <= 126 and c != 47 and c != 62 and c != 61 and c != 34 and c != 39 and c != 60


cdef inline bint _bare_char(uint32_t c) noexcept nogil:
    return 33 <= c <= 126 and c != 62 and c != 34 and c != 39 and c != 60 and c != 96


cdef inline uint32_t _at(const hch_t* s, Py_ssize_t n, Py_ssize_t i) noexcept nogil:
    return s[i] if i < n else 0


cdef inline Py_ssize_t _find(const hch_t* s, Py_ssize_t i, Py_ssize_t n, uint32_t c) noexcept nogil:
    cdef const void* p
    if hch_t is uint8_t:
        p = memchr(s + i, c, n - i) if i < n else NULL
        return -1 if p == NULL else <const uint8_t*>p - s
    else:
        while i < n:
            if s[i] == c:
                return i
            i += 1
        return -1


cdef struct LinePos:
    Py_ssize_t pos
    int line


cdef inline int _line_at(const hch_t* s, LinePos* p, Py_ssize_t i) noexcept nogil:
    """The source line of ``s[i]``, counted on from the last position asked (never back)."""
    cdef Py_ssize_t k
    cdef int count = 0
    for k in range(p.pos, i):
        count += s[k] == 10
    p.pos = i
    p.line += count
    return p.line


cdef inline bint _same_ci(const hch_t* s, Py_ssize_t a, Py_ssize_t b, const char* word) noexcept nogil:
    """``s[a:b].lower() == word`` for an ASCII ``word``."""
    cdef Py_ssize_t k
    for k in range(b - a):
        if (s[a + k] | 32) != <uint8_t>word[k]:
            return False
    return word[b - a] == 0


cdef inline bint _same(const hch_t* s, Py_ssize_t a, Py_ssize_t b, const char* word) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(b - a):
        if s[a + k] != <uint8_t>word[k]:
            return False
    return word[b - a] == 0


cdef int _value_is(str text, const hch_t* s, Py_ssize_t a, Py_ssize_t b, const char* word) except -1:
    """The attribute value ``s[a:b]``, unescaped, equals ``word``."""
    if _find(s, a, b, 38) >= 0:
        return unescape(text[a:b]) == word.decode()
    return _same(s, a, b, word)


include "_html_attrs.pxi"


cdef struct Attr:
    Py_ssize_t a, b    # the name
    Py_ssize_t v0, v1  # the value, or -1: none


cdef Py_ssize_t _attribute(const hch_t* s, Py_ssize_t n, Py_ssize_t j, Attr* at) noexcept nogil:
    """Read the attribute at ``j`` into ``at``; its end, or -1 to fall back."""
    cdef uint32_t c, q
    at.a = j
    while _attr_char(_at(s, n, j)):
        j += 1
    if j == at.a:
        return -1
    at.b = j
    at.v0 = at.v1 = -1
    while _ws(_at(s, n, j)):
        j += 1
    if _at(s, n, j) == 61:
        j += 1
        while _ws(_at(s, n, j)):
            j += 1
        q = _at(s, n, j)
        if q == 61:  # "==": the reference reads every "=" as the indicator
            return -1
        if q == 34 or q == 39:
            at.v0 = j + 1
            j = _find(s, at.v0, n, q)
            if j < 0:
                return -1
            at.v1, j = j, j + 1
        else:
            at.v0 = j
            while _bare_char(_at(s, n, j)):
                j += 1
            at.v1 = j
        c = _at(s, n, j)
        if not (_ws(c) or c == 62 or (c == 47 and _at(s, n, j + 1) == 62)):
            return -1
    elif _at(s, n, j) != 62 and _at(s, n, j) != 47 and j == at.b:
        return -1
    return j


cdef int _tag_name(const hch_t* s, Py_ssize_t n, Py_ssize_t* j, char* name) noexcept nogil:
    """Lower-case the tag name at ``j[0]`` into ``name`` (moving ``j[0]`` past it); its
    length, or -1 when it is longer than NAME_MAX."""
    cdef int nlen = 0
    while _name_char(_at(s, n, j[0])):
        if nlen == NAME_MAX:
            return -1
        name[nlen] = <char>(s[j[0]] | 32) if 65 <= s[j[0]] <= 90 else <char>s[j[0]]
        nlen += 1
        j[0] += 1
    return nlen


cdef Py_ssize_t _start_tag(str text, const hch_t* s, Py_ssize_t n, Py_ssize_t i, _Page page, int* cdata) except -2:
    """Handle the start tag at ``i`` (``<`` + letter); its end, or -1 to fall back."""
    cdef Py_ssize_t j = i + 1, k0 = -1, k1 = -1, d0 = -1, d1 = -1, h0 = -1, h1 = -1
    cdef uint32_t c
    cdef bint nav = False, main = False, closing = False
    cdef char name[NAME_MAX]
    cdef int nlen = _tag_name(s, n, &j, name), tag
    cdef Attr at
    c = _at(s, n, j)
    if nlen < 0 or not (c == 32 or c == 9 or c == 10 or c == 13 or c == 12 or c == 47 or c == 62):
        return -1
    while True:
        while _ws(_at(s, n, j)):
            j += 1
        c = _at(s, n, j)
        if c == 62 or c == 47:
            if c == 47 and _at(s, n, j + 1) != 62:
                return -1
            closing, j = c == 47, j + (2 if c == 47 else 1)
            break
        j = _attribute(s, n, j, &at)
        if j < 0:
            return -1
        if at.b - at.a == 4 and at.v0 >= 0 and _same_ci(s, at.a, at.b, b"role"):
            nav = nav or _chrome_role(text, s, at.v0, at.v1)
            main = main or _value_is(text, s, at.v0, at.v1, b"main")
        elif at.b - at.a == 5 and _same_ci(s, at.a, at.b, b"class"):
            k0, k1 = at.v0, at.v1
        elif at.b - at.a == 2 and _same_ci(s, at.a, at.b, b"id"):
            d0, d1 = at.v0, at.v1  # the last one counts, as in dict(attrs)
        elif at.b - at.a == 4 and _same_ci(s, at.a, at.b, b"href"):
            h0, h1 = at.v0, at.v1
    tag = _tag_value(name, nlen)
    if k0 >= 0 and not nav and _nav_container(name, nlen):
        nav = _class_is(text, s, k0, k1, CLASS_NAV) or (
            nlen == 3 and page.content_depth == 0 and _class_is(text, s, k0, k1, CLASS_CHROME)
        )
    if d0 >= 0 and not nav and _nav_container(name, nlen):
        nav = _id_in(text, s, d0, d1, ID_TOC) or (
            nlen == 3 and page.content_depth == 0 and _id_in(text, s, d0, d1, ID_FOOTER)
        )
    page.starttag(
        tag, name, nlen, nav, main,
        k0 >= 0 and (
            ((tag & 255) == T_A and _mark(text, s, k0, k1, False))
            or (nlen == 4 and memcmp(name, b"span", 4) == 0 and _mark(text, s, k0, k1, True))
        ),
        (tag & 255) == T_A and h0 >= 0 and _inpage(text, s, h0, h1),
        nlen == 3 and memcmp(name, b"div", 3) == 0 and k0 >= 0
        and _class_is(text, s, k0, k1, CLASS_ADMONITION),
        nlen == 3 and memcmp(name, b"div", 3) == 0 and k0 >= 0
        and _class_is(text, s, k0, k1, CLASS_FRAGMENT),
    )
    if closing:
        page.endtag(tag, name, nlen)
    elif (tag & 255) == T_SCRIPT or (tag & 255) == T_STYLE:
        cdata[0] = tag & 255
    return j


cdef Py_ssize_t _end_tag(const hch_t* s, Py_ssize_t n, Py_ssize_t i, _Page page) except -2:
    """Handle the end tag ``</name>`` at ``i``; its end, or -1 to fall back."""
    cdef Py_ssize_t j = i + 2
    cdef char name[NAME_MAX]
    cdef int nlen
    while _ws(_at(s, n, j)):
        j += 1
    if not _alpha(_at(s, n, j)):
        return -1
    nlen = _tag_name(s, n, &j, name)
    while _ws(_at(s, n, j)):
        j += 1
    if nlen < 0 or _at(s, n, j) != 62:
        return -1
    page.endtag(_tag_value(name, nlen), name, nlen)
    return j + 1


cdef Py_ssize_t _markup(str text, const hch_t* s, Py_ssize_t n, Py_ssize_t i) except -2:
    """The end of the comment, doctype, processing instruction or bogus comment at ``i``
    (ignored, as the reference's handlers ignore them), or -1 to fall back."""
    cdef Py_ssize_t k
    if _at(s, n, i + 1) == 33 and _at(s, n, i + 2) == 45 and _at(s, n, i + 3) == 45:  # <!--
        m = _COMMENT_CLOSE.search(text, i + 4)
        return -1 if m is None else m.end()
    if _at(s, n, i + 1) == 63:  # <?
        k = _find(s, i + 2, n, 62)
        return -1 if k < 0 else k + 1
    if _at(s, n, i + 2) == 91:  # <![
        return -1
    if i + 9 <= n and _same_ci(s, i + 2, i + 9, b"doctype"):
        k = _find(s, i + 9, n, 62)
    else:
        k = _find(s, i + 2, n, 62)
    return -1 if k < 0 else k + 1


cdef object _scan(str text, const hch_t* s, Py_ssize_t n, _Page page, int first_line):
    """HTMLParser.goahead's loop over ``s``; the result, or None to hand the text back."""
    cdef Py_ssize_t i = 0, j, k
    cdef uint32_t c
    cdef int cdata = 0, sink
    cdef LinePos pos
    pos.pos, pos.line = 0, first_line
    while i < n:
        if cdata:
            m = (<object>_CDATA_END[cdata]).search(text, i)
            if m is None:
                break  # the rest is the element's raw text
            page.line = _line_at(s, &pos, <Py_ssize_t>m.start())
            if cdata == T_SCRIPT:
                page.endtag(_tag_value(b"script", 6), b"script", 6)
            else:
                page.endtag(_tag_value(b"style", 5), b"style", 5)
            i, cdata = m.end(), 0
            continue
        j = _find(s, i, n, 60)
        if j < 0:
            j = n
        if i < j:
            sink = page.sink()
            if sink != SINK_NONE and _data(text, s, i, j, page, _line_at(s, &pos, i), sink):
                return None
            i = j
        if i == n:
            break
        page.line = _line_at(s, &pos, i)
        c = _at(s, n, i + 1)
        if _alpha(c):
            k = _start_tag(text, s, n, i, page, &cdata)
        elif c == 47:
            k = _end_tag(s, n, i, page)
        elif c == 33 or c == 63:
            k = _markup(text, s, n, i)
        else:
            sink = page.sink()
            if sink != SINK_NONE and _data(text, s, i, i + 1, page, page.line, sink):
                return None
            k = i + 1
        if k < 0:
            return None
        i = k
    page.finish()
    return page.title, page.first_h1, page.items, page.terms, page.definitions


def scan_html(str text, int first_line, bint content_only):
    """``(title, first h1, headings and blocks, terms, definitions)`` as ``PageParser`` gives
    them for ``text`` found at ``first_line`` (``docqa.text.html.Scanned``), or ``None`` when
    the text needs the reference parser."""
    _types()
    if not _ent_ready:
        _entities()
    cdef _Page page = _Page()
    page.content_only = content_only
    cdef int kind = PyUnicode_KIND(text)
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text)
    if kind == 1:
        return _scan(text, <const uint8_t*>PyUnicode_DATA(text), n, page, first_line)
    if kind == 2:
        return _scan(text, <const uint16_t*>PyUnicode_DATA(text), n, page, first_line)
    return _scan(text, <const uint32_t*>PyUnicode_DATA(text), n, page, first_line)
