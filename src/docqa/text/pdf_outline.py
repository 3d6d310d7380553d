"""A PDF's sections at its outline's headings (the bookmarks a reader shows beside the pages).

A PDF made from a manual (LaTeX, Texinfo, DocBook, Sphinx, a word processor) usually carries
its table of contents as an outline: each entry a heading's title, level and page. Those are
the sections a user means, and a section's heading path is what keyword search and the
embedder read first, so a file with an outline is cut at its headings
(``zsh.pdf#description-of-options``) instead of at its pages (``zsh.pdf#p106``).

An entry starts on the line of its page that reads as its title (``"16.2 Description of
Options"`` for the entry ``Description of Options``: the number a file prints before it
aside); that line is the heading, not body text. An entry whose title no line of its page
reads as starts at the top of its page, or just after the entry before it on the same page.
The pages before the first entry (a title page, the table of contents) stay a section per
page. Pure functions over the page lines :mod:`docqa.text.pdf` has read and cleaned.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from docqa.text.documents import Block, Line, Section

MAX_LEVEL = 6
_WORD = re.compile(r"\w+")
# what a file prints before a heading's title: "16", "2" (of 16.2), "B", "iv", "Chapter"
_NUMBERING = re.compile(r"\d+|[a-z]|[ivxlc]+|chapter|appendix|part|section")


@dataclass(frozen=True, slots=True)
class Mark:
    """An outline entry: its ``title``, its ``level`` (1 for the top entries) and the
    1-based ``page`` it points at."""

    title: str
    level: int
    page: int


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _ends_with(words: list[str], tail: list[str]) -> bool:
    return bool(tail) and len(words) >= len(tail) and words[len(words) - len(tail) :] == tail


def _is_heading(words: list[str], title: list[str]) -> bool:
    """Whether a line of ``words`` is ``title``, or ``title`` after its number: up to six
    words before it, each a number, a letter, a roman numeral or a word such as "Chapter"."""
    extra = words[: len(words) - len(title)]
    return _ends_with(words, title) and len(extra) <= 6 and all(map(_NUMBERING.fullmatch, extra))


def _heading_lines(lines: list[str], at: int, title: str) -> tuple[int, int] | None:
    """The first ``(line index, line count)`` from ``at`` on where ``title`` is printed: a
    line of its words, or of its words after a section number (``"16.2 Description of
    Options"``, ``"Appendix B Major ..."``), quotes and punctuation aside (```=' expansion``
    printed ``‘=’ expansion``); or wrapped over two lines, the second holding its last words
    only."""
    words = _words(title)
    for i in range(at, len(lines)):
        if _is_heading(_words(lines[i]), words):
            return i, 1
        second = _words(lines[i + 1]) if i + 1 < len(lines) else []
        wrapped = 0 < len(second) < len(words) and _ends_with(words, second)
        if wrapped and _is_heading(_words(lines[i]), words[: len(words) - len(second)]):
            return i, 2
    return None


def _placed(pages: list[list[str]], marks: list[Mark]) -> list[tuple[int, int, int]] | None:
    """Per mark, ``(page index, line index, heading lines)``: where its heading is printed
    and on how many lines (0: not found, its body starts there); None when the marks do not
    go forward through the pages."""
    places: list[tuple[int, int, int]] = []
    page, at = -1, 0
    for mark in marks:
        if mark.page - 1 < page:
            return None
        if mark.page - 1 > page:
            page, at = mark.page - 1, 0
        found = _heading_lines(pages[page], at, mark.title)
        if found is None:
            places.append((page, at, 0))
        else:
            places.append((page, *found))
            at = found[0] + found[1]
    return places


_CODE_CHARS = frozenset("()[]{}<>;=|\\$`*/#@%&+~^\"'")


def paragraphs(lines: list[str], first: int, code: frozenset[int] = frozenset()) -> Iterator[Block]:
    """A page's ``lines`` (the first numbered ``first``) as paragraphs: runs of non-blank
    lines, whitespace collapsed; the lines at the indexes ``code`` (set in a monospaced font)
    are ``"code"`` blocks of their own, a block a run, their lines kept apart (an example
    between two lines of prose: "Example:" / ``plot sin(x)`` / "This graph ..."); but a lone
    such line with no character of code in it (a term of a Texinfo table set in ``@code``:
    "exit status") stays in its paragraph."""
    code = frozenset(
        i
        for i in code
        if i - 1 in code or i + 1 in code or (i < len(lines) and _CODE_CHARS & set(lines[i]))
    )
    run: list[Line] = []
    kind = "text"
    for at, line in enumerate([*lines, ""]):
        words = " ".join(line.split())
        is_code = at in code
        if run and (not words or (is_code != (kind == "code"))):
            yield Block("code" if kind == "code" else "text", tuple(run))
            run = []
        if words:
            kind = "code" if is_code else "text"
            run.append(Line(first + at, words))


def _blocks(pages: list[list[str]], starts: list[int], first: tuple[int, int],
            end: tuple[int, int], code: list[frozenset[int]]) -> Iterator[Block]:  # fmt: skip
    """The paragraphs from ``first`` up to ``end`` (``(page index, line index)``, end
    excluded), split at blank lines and page ends; ``starts[p]`` numbers page ``p``'s first
    line; ``code[p]``: page ``p``'s lines of code."""
    page, at = first
    while (page, at) < end and page < len(pages):
        stop = end[1] if page == end[0] else len(pages[page])
        lines = frozenset(i - at for i in code[page] if at <= i < stop) if code else frozenset()
        yield from paragraphs(pages[page][at:stop], starts[page] + at, lines)
        page, at = page + 1, 0


def outline_sections(
    pages: list[list[str]],
    marks: list[Mark],
    starts: list[int],
    code: list[frozenset[int]] | None = None,
) -> tuple[tuple[int, int], list[Section]] | None:
    """Where the first outlined section begins (``(page index, line index)``: the lines
    before it are the front matter) and the sections at ``marks`` over the cleaned ``pages``
    (``starts[p]``: the file's line number of page ``p``'s first line; ``code[p]``: its lines
    of code, :func:`paragraphs`); None when no mark
    points at a page of the file or the marks do not go forward through the pages (the
    caller then cuts the file at its pages)."""
    marks = [m for m in marks if 1 <= m.page <= len(pages) and m.title.strip()]
    places = _placed(pages, marks) if marks else None
    if not places:
        return None
    sections: list[Section] = []
    for k, (mark, (page, at, printed)) in enumerate(zip(marks, places, strict=True)):
        body = (page, at + printed)
        end = places[k + 1][:2] if k + 1 < len(places) else (len(pages), 0)
        blocks = tuple(_blocks(pages, starts, body, end, code or []))
        start = starts[page] + at
        last = blocks[-1].lines[-1].number if blocks else start
        heading = " ".join(mark.title.split())
        level = min(max(mark.level, 1), MAX_LEVEL)
        sections.append(Section(heading, level, start, last, blocks, page=page + 1))
    return places[0][:2], sections
