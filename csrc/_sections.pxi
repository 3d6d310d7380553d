# Sections (included by _parse.pyx after _items.pxi): the fast twin of
# docqa.text.documents.build_sections. The same grouping, with each Section's slots set
# directly (as _items.pxi does for lines, blocks and headings) instead of through the frozen
# dataclass's generated ``__init__``.

cdef object Section = None
cdef object _sec_heading, _sec_level, _sec_start, _sec_end, _sec_blocks, _sec_page


cdef void _section_types():
    global Section, _sec_heading, _sec_level, _sec_start, _sec_end, _sec_blocks, _sec_page
    if Section is None:
        _types()
        from docqa.text.documents import Section as S
        d = S.__dict__
        _sec_heading, _sec_level, _sec_start = d["heading"], d["level"], d["start_line"]
        _sec_end, _sec_blocks, _sec_page = d["end_line"], d["blocks"], d["page"]
        Section = S


cdef int _close(list sections, object heading, list blocks) except -1:
    """Append the section of ``heading`` (None: the text before the first heading) and
    ``blocks``, if there is one."""
    if heading is None and not blocks:
        return 0
    start = heading.line if heading is not None else blocks[0].lines[0].number
    last = blocks[len(blocks) - 1].lines if blocks else ()  # (indexed from the start: no wraparound)
    out = _new(Section)
    _set(_sec_heading, out, heading.text if heading is not None else "")
    _set(_sec_level, out, heading.level if heading is not None else 0)
    _set(_sec_start, out, start)
    _set(_sec_end, out, last[len(last) - 1].number if blocks else start)
    _set(_sec_blocks, out, tuple(blocks))
    _set(_sec_page, out, 0)
    sections.append(out)
    return 0


def build_sections(items):
    """``docqa.text.documents.build_sections(items)``: one section per heading, one for any
    text before the first; blocks without lines dropped."""
    _section_types()
    cdef list sections = [], blocks = []
    heading = None
    for item in items:
        if isinstance(item, Heading):
            _close(sections, heading, blocks)
            heading, blocks = item, []
        elif item.lines:
            blocks.append(item)
    _close(sections, heading, blocks)
    return tuple(sections)
