"""Plain text to a parser's stream: paragraphs, and the headings a plain-text manual writes.

A paragraph is a run of non-blank lines. Manuals in plain text (specs, FAQs, the text that
documentation tools print) mark their headings in two ways, and a paragraph is read as a
heading only when it is one of them:

- **a numbered line** standing alone: ``2.1. Removal of the unversioned packages``,
  ``4.10. How do I perform a case-insensitive search?``, ``III. Reading``. The numbers' depth
  is the level (``2.`` level 2, ``2.1.`` level 3; a roman numeral, level 2). A single number
  needs its dot (``5. Formatting``, never ``3 years``); the title starts with a capital, is at
  most 72 characters and 16 words, ends in no ``,``, ``;`` or ``:``, is indented at most 3
  spaces and holds no dot leader (a contents entry). A title ending in ``.`` and one wrapped
  onto an indented second line need a section number of two parts or more (``5.9.``): after
  ``1.`` they are list items;
- **an underlined line** (setext, as reStructuredText and Markdown write it): a line, then a
  line of one repeated ``= - ~ ^ * #`` at least half as long. Levels follow the order the
  underline characters first appear in (the first level 2).

Contents lists are runs of numbered lines with no blank line between them, so they stay
text; an entry standing alone between blank lines is text too when the same heading is
written again later. Text saved from a terminal formatter first loses its SGR escapes and overstrikes
(``ESC [ 1 m``, ``_`` backspace ``X``). Lines keep their numbers.
"""

from __future__ import annotations

import re

from docqa.text.documents import Block, Heading, Line

# What a terminal formatter leaves in text saved from it (man-db's manual as Debian ships it,
# a man page saved without `col -b`): SGR escapes (ESC [ 1 m bold, ESC [ 4 m underline) and
# overstrikes (a character, a backspace, then the character shown: "_\bX", "X\bX").
_TERMINAL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[^\n]\x08")
_NUMBERED = re.compile(
    r"(?P<indent> {0,3})(?:(?P<num>\d{1,3}(?:\.\d{1,3}){0,5})|(?P<roman>[IVX]{1,5}))"
    r"(?P<dot>\.?)\s+(?P<title>[A-Z].*?)\s*¶?\s*"
)
_UNDERLINE = re.compile(r"\s*([=\-~^*#])\1{2,}\s*")
_DOT_LEADER = re.compile(r"\.{4,}|(?:\. ){3,}")
MAX_TITLE = 72
MAX_WORDS = 16


def strip_terminal(text: str) -> str:
    """``text`` without a terminal's SGR escapes and overstrikes (newlines untouched)."""
    if "\x1b" not in text and "\x08" not in text:
        return text
    return _TERMINAL.sub("", text)


def numbered_heading(line: str, wrapped: bool = False) -> tuple[str, int] | None:
    """``(title as written, level)`` when ``line`` is a numbered heading (module doc);
    ``wrapped``: ``line`` is a heading's two lines joined (only a section number such as
    ``4.41.`` may wrap)."""
    m = _NUMBERED.fullmatch(line.rstrip())
    if m is None:
        return None
    num, title = m.group("num"), m.group("title")
    if num is not None and "." not in num and not m.group("dot"):
        return None  # "3 years", not "3. Years"
    if m.group("roman") is not None and not m.group("dot"):
        return None
    depth = num.count(".") + 1 if num is not None else 1
    if (wrapped or title.endswith(".")) and depth < 2:
        return None  # "1. Install the package." is a list item; "5.9. The r command ..." not
    if not _title_like(title, 2 if wrapped else 1):
        return None
    text = " ".join(line.split()).rstrip("¶").rstrip()
    return text, min(6, depth + 1)


def _title_like(title: str, lines: int) -> bool:
    return (
        len(title) <= MAX_TITLE * lines
        and len(title.split()) <= MAX_WORDS * lines
        and title[-1] not in ",;:"
        and _DOT_LEADER.search(title) is None
    )


def text_items(text: str) -> list[Heading | Block]:
    """``text`` as headings (module doc) and one ``"text"`` block per other paragraph, each
    line's whitespace collapsed. A heading written again later (a contents list that leaves
    blank lines between its groups) is text where it first stands: the last one heads."""
    paragraphs: list[list[tuple[int, str]]] = []
    paragraph: list[tuple[int, str]] = []
    for number, raw in enumerate([*strip_terminal(text).splitlines(), ""], start=1):
        if raw.strip():
            paragraph.append((number, raw))
        elif paragraph:
            paragraphs.append(paragraph)
            paragraph = []
    underlines: dict[str, int] = {}
    items = [_item(p, underlines) for p in paragraphs]
    last = {" ".join(i.text.split()): at for at, i in enumerate(items) if isinstance(i, Heading)}
    return [
        _block(p) if isinstance(i, Heading) and last[" ".join(i.text.split())] != at else i
        for at, (i, p) in enumerate(zip(items, paragraphs, strict=True))
    ]


def _block(paragraph: list[tuple[int, str]]) -> Block:
    return Block("text", tuple(Line(n, " ".join(raw.split())) for n, raw in paragraph))


def _item(paragraph: list[tuple[int, str]], underlines: dict[str, int]) -> Heading | Block:
    """One paragraph as a heading, or as a text block."""
    if len(paragraph) == 1:
        found = numbered_heading(paragraph[0][1])
        if found is not None:
            return Heading(found[0], found[1], paragraph[0][0])
    if len(paragraph) == 2 and paragraph[1][1][:1].isspace():  # a wrapped title goes on indented
        found = numbered_heading(f"{paragraph[0][1]} {paragraph[1][1].strip()}", wrapped=True)
        if found is not None:
            return Heading(found[0], found[1], paragraph[0][0])
    if len(paragraph) == 2:
        (number, first), (_, second) = paragraph
        m = _UNDERLINE.fullmatch(second)
        title = first.strip()
        long_enough = m is not None and len(second.strip()) * 2 >= len(title)
        if m is not None and long_enough and len(title) <= MAX_TITLE and title[-1] not in ".,;:":
            level = underlines.setdefault(m.group(1), min(6, len(underlines) + 2))
            return Heading(title, level, number)
    return _block(paragraph)
