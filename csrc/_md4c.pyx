# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""Markdown headings and blocks from md4c's callbacks (``docqa._md4c``, compiled with md4c 0.4.8
from ``csrc/vendor/md4c``; the wrapper is ``docqa.text.markdown_md4c``).

md4c (CommonMark, GFM tables) calls C functions here with pointers into the UTF-8 source, so
the walk makes no Python object per event: text goes into a byte buffer, one ``str`` and one
``Line`` are made per source line. The rules are those of ``docqa.text.markdown`` (the spec,
markdown-it-py) as ``markdown_fast``'s docstring lists them. md4c gives no block offsets, so a
block's first line is found from its first text that points into the source, less the line
breaks before it (markdown-it's count). Where that count is not known to be exact (an empty
link or a code span's newline before the first text, a heading or a table with no text at
all, a newline inside a table cell), and where md4c 0.4.8 reads the source otherwise than
markdown-it (each case is named where it is checked, here and in ``_md4c_scan.pxi``), the walk
stops and ``walk_md4c`` returns ``None``: the caller then parses the document with the
pyromark path, so the result is always the spec's.
"""

from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memchr
from libc.stdint cimport uint64_t
from cpython.unicode cimport PyUnicode_DecodeUTF8

cdef extern from "md4c.h":
    ctypedef unsigned MD_SIZE
    ctypedef char MD_CHAR
    ctypedef enum MD_BLOCKTYPE:
        MD_BLOCK_DOC, MD_BLOCK_QUOTE, MD_BLOCK_UL, MD_BLOCK_OL, MD_BLOCK_LI, MD_BLOCK_HR
        MD_BLOCK_H, MD_BLOCK_CODE, MD_BLOCK_HTML, MD_BLOCK_P, MD_BLOCK_TABLE, MD_BLOCK_THEAD
        MD_BLOCK_TBODY, MD_BLOCK_TR, MD_BLOCK_TH, MD_BLOCK_TD
    ctypedef enum MD_SPANTYPE:
        MD_SPAN_EM, MD_SPAN_STRONG, MD_SPAN_A, MD_SPAN_IMG, MD_SPAN_CODE
    ctypedef enum MD_TEXTTYPE:
        MD_TEXT_NORMAL, MD_TEXT_NULLCHAR, MD_TEXT_BR, MD_TEXT_SOFTBR, MD_TEXT_ENTITY
        MD_TEXT_CODE, MD_TEXT_HTML
    ctypedef struct MD_BLOCK_H_DETAIL:
        unsigned level
    ctypedef struct MD_PARSER:
        unsigned abi_version
        unsigned flags
        int (*enter_block)(MD_BLOCKTYPE, void*, void*) noexcept
        int (*leave_block)(MD_BLOCKTYPE, void*, void*) noexcept
        int (*enter_span)(MD_SPANTYPE, void*, void*) noexcept
        int (*leave_span)(MD_SPANTYPE, void*, void*) noexcept
        int (*text)(MD_TEXTTYPE, const MD_CHAR*, MD_SIZE, void*) noexcept
        void (*debug_log)(const char*, void*) noexcept
        void (*syntax)() noexcept
    int md_parse(const MD_CHAR* text, MD_SIZE size, const MD_PARSER* parser, void* userdata)
    unsigned MD_FLAG_TABLES

include "_items.pxi"

# what the walk is inside: nothing, an inline run (a paragraph, or text straight inside a
# list item), a heading, a table cell, a code block, an HTML block
cdef enum:
    NONE, RUN, ITEM_RUN, HEAD, CELL, CODE, HTML
# a callback's answer that stops md_parse: the document goes back to the pyromark path (or,
# on an exception, walk_md4c raises it)
cdef enum:
    HAND_BACK = 1
    FAILED = 2


include "_md4c_autolinks.pxi"
include "_md4c_scan.pxi"


include "_md4c_walk.pxi"


# md4c's callbacks: the walk's methods. md4c 0.4.8 does not stop on every non-zero answer
# (leave_block's is dropped), so the walk keeps its answer and gives it again to every later
# callback; an exception is kept for walk_md4c to raise.
cdef int _answer(_Walk walk, int what, int kind, void* detail, bint enter) noexcept:
    """The walk's answer to one callback (``what``: 0 a block, 1 a span)."""
    if not walk.stop:
        try:
            if what == 1:
                walk.stop = walk.span(<MD_SPANTYPE>kind, enter)
            elif enter:
                walk.stop = walk.enter(<MD_BLOCKTYPE>kind, detail)
            else:
                walk.stop = walk.leave(<MD_BLOCKTYPE>kind)
        except BaseException as exc:
            walk.error, walk.stop = exc, FAILED
    return walk.stop


cdef int _enter_block(MD_BLOCKTYPE kind, void* detail, void* user) noexcept:
    return _answer(<_Walk>user, 0, kind, detail, True)


cdef int _leave_block(MD_BLOCKTYPE kind, void* detail, void* user) noexcept:
    return _answer(<_Walk>user, 0, kind, detail, False)


cdef int _enter_span(MD_SPANTYPE kind, void* detail, void* user) noexcept:
    return _answer(<_Walk>user, 1, kind, detail, True)


cdef int _leave_span(MD_SPANTYPE kind, void* detail, void* user) noexcept:
    return _answer(<_Walk>user, 1, kind, detail, False)


cdef int _text(MD_TEXTTYPE kind, const MD_CHAR* text, MD_SIZE size, void* user) noexcept:
    walk = <_Walk>user
    if not walk.stop:
        try:
            walk.stop = walk.text(kind, text, size)
        except BaseException as exc:
            walk.error, walk.stop = exc, FAILED
    return walk.stop


def walk_md4c(bytes source, object html_blocks, object entity, object table_agrees,
              object inline_html):
    """Headings and blocks of the Markdown ``source`` (UTF-8, newlines normalised, front
    matter blanked), or ``None`` when the document must go to the pyromark path.

    ``html_blocks(text, first_line)`` parses an HTML block (``None``: hand it back); ``entity(raw)`` is the UTF-8
    of an entity reference as the spec decodes it (``raw`` like ``b"&amp;"``);
    ``table_agrees(lines, header_cells, followed)`` tells whether markdown-it reads a table
    of these source lines (header, delimiter, rows, then the line after when ``followed``)
    with the rows md4c found; ``inline_html(text)`` whether markdown-it reads inline HTML
    at the start of ``text``.
    """
    _types()
    if len(source) >= 1 << 31:
        return None
    cdef _Walk walk = _Walk(source, html_blocks, entity, table_agrees, inline_html)
    if walk.stop:
        return None
    cdef MD_PARSER parser
    parser.abi_version, parser.flags = 0, MD_FLAG_TABLES
    parser.enter_block, parser.leave_block = _enter_block, _leave_block
    parser.enter_span, parser.leave_span = _enter_span, _leave_span
    parser.text, parser.debug_log, parser.syntax = _text, NULL, NULL
    md_parse(source, <MD_SIZE>len(source), &parser, <void*>walk)
    if walk.error is not None:
        raise walk.error
    return None if walk.stop else walk.items
