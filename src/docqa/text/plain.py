"""Plain text to a parser's stream: paragraphs, and the headings a plain-text manual writes.

A paragraph is a run of non-blank lines. Manuals in plain text (specs, FAQs, the text that
documentation tools print) mark their headings in a few ways, and a paragraph is read as a
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
  underline characters first appear in (the first level 2);
- **a man page's section** (``man ls > ls.txt``): a name in capitals at the margin, at most
  five words (``NAME``, ``SEE ALSO``), whose paragraph goes on indented. A line in capitals on
  its own (``NOTE``, ``WARNING``) stays text;
- **a title at the margin over indented text** (a browser's text dump, DocBook's text
  output: ``Synopsis``, then its paragraphs indented): one line of at most six words and 60
  characters, starting with a capital, no punctuation but ``' ( ) / & -``, whose next paragraph
  is indented 3 spaces or more, in a text whose paragraphs are mostly indented (elsewhere an
  indented paragraph is code, and the line before it a sentence leading into it). Level 2.

Contents lists are runs of numbered lines with no blank line between them, so they stay
text; an entry standing alone between blank lines is text too when the same heading is
written again later. Text saved from a terminal formatter first loses its SGR escapes and overstrikes
(``ESC [ 1 m``, ``_`` backspace ``X``). Lines keep their numbers.
"""

from __future__ import annotations

import itertools
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
_MARGIN_TITLE = re.compile(r"[A-Z][\w'()/&-]*(?: [\w'()/&-]+){0,5}")
MARGIN_TITLE = 60
_MAN_SECTION = re.compile(r"[A-Z][A-Z0-9]*(?:[ /&-][A-Z0-9]+){0,4}\s*")
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
    items = _paragraph_items(paragraphs)
    last = {
        " ".join(i[0].text.split()): at
        for at, i in enumerate(items)
        if len(i) == 1 and isinstance(i[0], Heading)
    }
    out: list[Heading | Block] = []
    for at, (found, p) in enumerate(zip(items, paragraphs, strict=True)):
        alone = len(found) == 1 and isinstance(found[0], Heading)
        out.extend([_block(p)] if alone and last[" ".join(found[0].text.split())] != at else found)
    return out


def _paragraph_items(paragraphs: list[list[tuple[int, str]]]) -> list[list[Heading | Block]]:
    """Each paragraph's items (``_items``; a title at the margin over indented text, in a
    text dump, as a heading). A paragraph that became anything but one heading is emptied
    as its items are made: its raw lines would otherwise stay beside their blocks' copies
    (twice the text's lines in memory, the most of a large file's parse)."""
    margin: set[int] = set()
    if _indented_body(paragraphs):  # titles at the margin over indented text (a text dump)
        pairs = itertools.pairwise(paragraphs)
        margin = {at for at, (p, after) in enumerate(pairs) if _margin_title(p, after)}
    underlines: dict[str, int] = {}
    items: list[list[Heading | Block]] = []
    for at, p in enumerate(paragraphs):
        found = _items(p, underlines)
        if at in margin and isinstance(found[0], Block):
            found = [Heading(p[0][1].strip(), 2, p[0][0])]
        items.append(found)
        if not (len(found) == 1 and isinstance(found[0], Heading)):
            paragraphs[at] = []  # text_items needs a paragraph again only for a lone heading
    return items


def _block(paragraph: list[tuple[int, str]]) -> Block:
    return Block("text", tuple(Line(n, " ".join(raw.split())) for n, raw in paragraph))


def _indented_body(paragraphs: list[list[tuple[int, str]]]) -> bool:
    """Whether most of the text is indented (at least 70% of the paragraphs of two lines or
    more), as in a text dump; in a text written at the margin, an indented paragraph is code
    and the line before it a sentence leading into it ("Typical code is just")."""
    body = [p for p in paragraphs if len(p) > 1]
    indented = sum(all(raw[:3].isspace() for _, raw in p) for p in body)
    return bool(body) and indented >= 0.7 * len(body)


def _margin_title(paragraph: list[tuple[int, str]], after: list[tuple[int, str]]) -> bool:
    """Whether ``paragraph`` is one short title at the margin and ``after`` is indented (how a
    browser's text dump and DocBook's text output lay out sections: ``Synopsis`` then
    ``   /etc/fonts/fonts.conf``)."""
    if len(paragraph) != 1:
        return False
    line = paragraph[0][1].rstrip()
    return (
        _MARGIN_TITLE.fullmatch(line) is not None
        and len(line) <= MARGIN_TITLE
        and all(raw[:3].isspace() for _, raw in after)
    )


def _items(paragraph: list[tuple[int, str]], underlines: dict[str, int]) -> list[Heading | Block]:
    """One paragraph as a heading, a text block, or a man page's section: its name in capitals
    at the margin, then its text indented (``NAME`` / ``       ls - list directory contents``)."""
    (number, first), rest = paragraph[0], paragraph[1:]
    if rest and _MAN_SECTION.fullmatch(first) and all(raw[:3].isspace() for _, raw in rest):
        return [Heading(first.strip(), 2, number), _block(rest)]
    return [_item(paragraph, underlines)]


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
