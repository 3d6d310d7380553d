# What a start tag's attributes say (included by _html.pxi): the class names, roles and ids
# that make an element site chrome, navigation, a heading's permalink or an admonition, and
# an href to one of the page's own anchors; each the twin of a set or test of
# docqa.text.html_reference, with a slow path through unescape for values with entities or
# characters beyond ASCII.

# which class names _class_is looks for (_CLASS_SETS' order)
DEF CLASS_NAV = 0
DEF CLASS_CHROME = 1
DEF CLASS_ADMONITION = 2
DEF CLASS_FRAGMENT = 3

# which ids _id_in looks for (_ID_SETS' order)
DEF ID_TOC = 0
DEF ID_FOOTER = 1


# docqa.text.html_reference._PERMALINK_CLASSES: the classes of an ``a`` that is a heading's permalink
_PERMALINK_CLASSES = frozenset(
    {
        *("headerlink", "anchor", "doc-anchor", "anchor-link", "hash-link", "mark", "permalink"),
        *("copiable-anchor", "copiable-link"),
    }
)


cdef inline bint _permalink_word(const hch_t* s, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    """``s[a:b] in _PERMALINK_CLASSES`` for an ASCII ``s[a:b]``."""
    return (
        _same(s, a, b, b"headerlink") or _same(s, a, b, b"anchor")
        or _same(s, a, b, b"doc-anchor") or _same(s, a, b, b"anchor-link") or _same(s, a, b, b"hash-link")
        or _same(s, a, b, b"mark") or _same(s, a, b, b"permalink")
        or _same(s, a, b, b"copiable-anchor") or _same(s, a, b, b"copiable-link")
    )


# docqa.text.html_chrome.HIDDEN_LINE_CLASSES: the class of a span holding an example's hidden
# lines (mdBook's)
_HIDDEN_LINE_CLASSES = frozenset({"boring"})


cdef int _mark(str text, const hch_t* s, Py_ssize_t a, Py_ssize_t b, bint hidden) except -1:
    """``not names.isdisjoint(unescape(value).split())`` for the class value ``s[a:b]``,
    ``names`` being ``_HIDDEN_LINE_CLASSES`` (a span's, ``hidden``) or ``_PERMALINK_CLASSES``
    (an a's): the marks dropped with their text, compared as written."""
    cdef Py_ssize_t k, w = a
    for k in range(a, b):
        if s[k] == 38 or s[k] > 126 or (s[k] < 32 and not (9 <= s[k] <= 13)):
            names = _HIDDEN_LINE_CLASSES if hidden else _PERMALINK_CLASSES
            return not names.isdisjoint(unescape(text[a:b]).split())
    for k in range(a, b + 1):
        if k == b or _ws(s[k]):
            if k > w and (_same(s, w, k, b"boring") if hidden else _permalink_word(s, w, k)):
                return True
            w = k + 1
    return False


# docqa.text.html_chrome.NAV_CLASSES (on the elements NAV_CONTAINERS: class names that mark
# navigation where documentation generators put it, DocBook's div.navheader / table.nav,
# gtk-doc's table.navigation, Doxygen's div.navpath, Javadoc's div.topNav, Bootstrap's ul.nav,
# tables of contents, Doxygen's hidden tooltips div.ttc, a book's index, the Apache manual's
# language bars, Sphinx's sidebar, SQLite's div.nosearch) and _CHROME_CLASSES (on a div
# outside the page's marked content, as the header and footer elements: Texinfo's bars)
_NAV_CLASSES = frozenset({
    "nav", "navbar", "navigation", "navheader", "navfooter", "navpath", "topnav", "bottomnav",
    "subnav", "breadcrumb", "breadcrumbs", "toc", "nav-panel", "mini-toc", "ttc", "toplang",
    "bottomlang", "indexdiv", "indextable", "index-cp", "index-fn", "index-vr", "index-ky", "index-pg",
    "index-tp", "sphinxsidebar", "nosearch",
})
_CHROME_CLASSES = frozenset({"header", "footer"})
# docqa.text.html_reference._ADMONITION_CLASSES (on a div: a heading inside is a label)
_ADMONITION_CLASSES = frozenset(
    {"admonition", "note", "tip", "hint", "warning", "caution", "important", "danger", "attention"}
)
# docqa.text.html_reference._FRAGMENT_CLASSES (on a div: a block of code, its child divs lines)
_FRAGMENT_CLASSES = frozenset({"fragment"})
_CLASS_SETS = (_NAV_CLASSES, _CHROME_CLASSES, _ADMONITION_CLASSES, _FRAGMENT_CLASSES)  # by ``which``


def _class_slow(value, names):
    """The reference's test on a class value with entities or non-ASCII characters (a plain
    function: a generator expression in the fused-type caller does not compile)."""
    return any(c.lower() in names for c in unescape(value).split())


cdef inline bint _nav_word(const hch_t* s, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    """``s[a:b].lower() in _NAV_CLASSES`` for an ASCII ``s[a:b]``."""
    return (
        _same_ci(s, a, b, b"nav") or _same_ci(s, a, b, b"navbar")
        or _same_ci(s, a, b, b"navigation") or _same_ci(s, a, b, b"navheader")
        or _same_ci(s, a, b, b"navfooter") or _same_ci(s, a, b, b"navpath")
        or _same_ci(s, a, b, b"topnav") or _same_ci(s, a, b, b"bottomnav")
        or _same_ci(s, a, b, b"subnav") or _same_ci(s, a, b, b"breadcrumb")
        or _same_ci(s, a, b, b"breadcrumbs") or _same_ci(s, a, b, b"toc")
        or _same_ci(s, a, b, b"nav-panel") or _same_ci(s, a, b, b"mini-toc")
        or _same_ci(s, a, b, b"ttc") or _same_ci(s, a, b, b"toplang")
        or _same_ci(s, a, b, b"bottomlang") or _same_ci(s, a, b, b"indexdiv")
        or _same_ci(s, a, b, b"indextable") or _same_ci(s, a, b, b"index-cp")
        or _same_ci(s, a, b, b"index-fn") or _same_ci(s, a, b, b"index-vr")
        or _same_ci(s, a, b, b"index-ky") or _same_ci(s, a, b, b"index-pg")
        or _same_ci(s, a, b, b"index-tp") or _same_ci(s, a, b, b"sphinxsidebar")
        or _same_ci(s, a, b, b"nosearch")
    )


cdef inline bint _chrome_word(const hch_t* s, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    """``s[a:b].lower() in _CHROME_CLASSES`` for an ASCII ``s[a:b]``."""
    return _same_ci(s, a, b, b"header") or _same_ci(s, a, b, b"footer")


cdef inline bint _admonition_word(const hch_t* s, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    """``s[a:b].lower() in _ADMONITION_CLASSES`` for an ASCII ``s[a:b]``."""
    return (
        _same_ci(s, a, b, b"admonition") or _same_ci(s, a, b, b"note")
        or _same_ci(s, a, b, b"tip") or _same_ci(s, a, b, b"hint")
        or _same_ci(s, a, b, b"warning") or _same_ci(s, a, b, b"caution")
        or _same_ci(s, a, b, b"important") or _same_ci(s, a, b, b"danger")
        or _same_ci(s, a, b, b"attention")
    )


cdef inline bint _class_word(const hch_t* s, Py_ssize_t a, Py_ssize_t b, int which) noexcept nogil:
    """``s[a:b].lower() in _CLASS_SETS[which]`` for an ASCII ``s[a:b]``."""
    if which == CLASS_NAV:
        return _nav_word(s, a, b)
    if which == CLASS_FRAGMENT:
        return _same_ci(s, a, b, b"fragment")
    return _chrome_word(s, a, b) if which == CLASS_CHROME else _admonition_word(s, a, b)


cdef inline bint _nav_container(const char* name, int n) noexcept nogil:
    """The tag is a div, table, ul, ol or section."""
    if n == 3:
        return memcmp(name, b"div", 3) == 0
    if n == 5:
        return memcmp(name, b"table", 5) == 0
    if n == 2:
        return memcmp(name, b"ul", 2) == 0 or memcmp(name, b"ol", 2) == 0
    return n == 7 and memcmp(name, b"section", 7) == 0


cdef int _class_is(str text, const hch_t* s, Py_ssize_t a, Py_ssize_t b, int which) except -1:
    """``any(c.lower() in names for c in unescape(value).split())`` for the class value
    ``s[a:b]``, ``names`` being ``_CLASS_SETS[which]`` (``CLASS_NAV``, ``CLASS_CHROME``,
    ``CLASS_ADMONITION`` or ``CLASS_FRAGMENT``; the reference's tests, in the same shape as
    :func:`_mark`)."""
    cdef Py_ssize_t k, w = a
    for k in range(a, b):
        if s[k] == 38 or s[k] > 126 or (s[k] < 32 and not (9 <= s[k] <= 13)):
            return _class_slow(text[a:b], _CLASS_SETS[which])
    for k in range(a, b + 1):
        if k == b or _ws(s[k]):
            if k > w and _class_word(s, w, k, which):
                return True
            w = k + 1
    return False


# docqa.text.html_reference._CHROME_ROLES and _NAV_IDS
_CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search"})
_NAV_IDS = frozenset({"toc", "table-of-contents", "table_of_contents"})
_ID_SETS = (_NAV_IDS, frozenset({"footer", "page-header"}))  # by _id_in's ``which``


cdef int _chrome_role(str text, const hch_t* s, Py_ssize_t a, Py_ssize_t b) except -1:
    """``unescape(value) in _CHROME_ROLES`` for the role value ``s[a:b]``."""
    if _find(s, a, b, 38) >= 0:
        return unescape(text[a:b]) in _CHROME_ROLES
    return (
        _same(s, a, b, b"navigation") or _same(s, a, b, b"banner")
        or _same(s, a, b, b"contentinfo") or _same(s, a, b, b"complementary")
        or _same(s, a, b, b"search")
    )


cdef inline bint _same_lower(const hch_t* s, Py_ssize_t a, Py_ssize_t b, const char* word) noexcept nogil:
    """``s[a:b].lower() == word`` for an ASCII ``s[a:b]`` (``_same_ci`` folds by ``| 32``,
    which also maps ``_`` to DEL)."""
    cdef Py_ssize_t k
    cdef uint32_t c
    for k in range(b - a):
        c = s[a + k]
        if 65 <= c <= 90:
            c += 32
        if c != <uint8_t>word[k]:
            return False
    return word[b - a] == 0


cdef int _id_in(str text, const hch_t* s, Py_ssize_t a, Py_ssize_t b, int which) except -1:
    """``unescape(value).lower() in _ID_SETS[which]`` for the id value ``s[a:b]`` (``ID_TOC``:
    ``_NAV_IDS``; ``ID_FOOTER``: html_chrome.CHROME_IDS, ``{"footer", "page-header"}``)."""
    cdef Py_ssize_t k
    for k in range(a, b):
        if s[k] == 38 or s[k] > 126 or s[k] < 32:
            return unescape(text[a:b]).lower() in _ID_SETS[which]
    if which == ID_FOOTER:
        return _same_lower(s, a, b, b"footer") or _same_lower(s, a, b, b"page-header")
    return (
        _same_lower(s, a, b, b"toc") or _same_lower(s, a, b, b"table-of-contents")
        or _same_lower(s, a, b, b"table_of_contents")
    )


cdef int _inpage(str text, const hch_t* s, Py_ssize_t a, Py_ssize_t b) except -1:
    """The href value ``s[a:b]``, unescaped, is a link to one of the page's own anchors
    (``#`` and a name)."""
    if _find(s, a, b, 38) >= 0:
        href = unescape(text[a:b])
        return len(href) > 1 and href.startswith("#")
    return b - a > 1 and s[a] == 35
