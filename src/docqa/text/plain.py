"""Plain text to a parser's stream: paragraphs, and the headings a plain-text manual writes.

A paragraph is a run of non-blank lines. Manuals in plain text (specs, FAQs, the text that
documentation tools print) mark their headings in a few ways, and a paragraph is read as a
heading only when it is one of them:

- **a numbered line** standing alone: ``2.1. Removal of the unversioned packages``,
  ``4.10. How do I perform a case-insensitive search?``, ``III. Reading``. The numbers' depth
  is the level (``2.`` level 2, ``2.1.`` level 3; a roman numeral, level 2). A single number
  needs its dot (``5. Formatting``, never ``3 years``); the title starts with a capital, is
  at most 72 characters and 16 words, ends in no ``,``, ``;`` or ``:``, is indented at most 3
  spaces and holds no dot leader (a contents entry). A title ending in ``.``, one wrapped onto
  an indented second line, and a number ending in ``:`` (zsh's FAQ: ``3.21: Why is ...?``)
  need a section number of two parts or more (``5.9.``): after ``1.`` they are list items;
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
(``ESC [ 1 m``, ``_`` backspace ``X``), and a word it hyphenated at a line's end is whole
again (``dae-`` / ``mon``: ``daemon`` where the text writes ``daemon`` elsewhere, else
``well-known``; :func:`unhyphenated`). Lines keep their numbers.

A long text is read in two passes over its paragraphs (``plain_lines``), neither holding them
all: ``text_outline`` finds the paragraphs that head and the sections they open, then
``text_bodies`` makes each section's blocks as they are taken. ``text_items`` parses a text
whole, splitting it into paragraphs once; both apply the same rules (``_Scan``).
"""

from __future__ import annotations

import collections
import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from docqa.text.documents import Block, Heading, Line, Section
from docqa.text.plain_lines import SLICE, Paragraph, paragraphs

_NUMBERED = re.compile(
    r"(?P<indent> {0,3})(?:(?P<num>\d{1,3}(?:\.\d{1,3}){0,5})|(?P<roman>[IVX]{1,5}))"
    r"(?P<dot>[.:]?)\s+(?P<title>[A-Z].*?)\s*¶?\s*"
)
_UNDERLINE = re.compile(r"\s*([=\-~^*#])\1{2,}\s*")
# a list item's bullet or number at the start of a line: "  * ", "- ", "3. ", "2) "
_ITEM = re.compile(r"\s*(?:[*+\-\u2022]|\d{1,3}[.)])\s+(?=\S)")
_MARGIN_TITLE = re.compile(r"[A-Z][\w'()/&-]*(?: [\w'()/&-]+){0,5}")
MARGIN_TITLE = 60
_MAN_SECTION = re.compile(r"[A-Z][A-Z0-9]*(?:[ /&-][A-Z0-9]+){0,4}\s*")
_DOT_LEADER = re.compile(r"\.{4,}|(?:\. ){3,}")
MAX_TITLE = 72
MAX_WORDS = 16
_LOWER_WORD = re.compile(r"\b[a-z]{2,}\b")
_PROSE_SENTENCE_END = re.compile(r"[a-z)\]\"'][.!?](?:\s|$)")
# a word a formatter hyphenated at a line's end ("dae-"), and the rest of it on the next
# line ("mon(8)"), as _split_word reads them
_HYPHENATED = re.compile(r"(?<![\w])([A-Za-z]*[A-Za-z]{2})-$")
_CONTINUED = re.compile(r"[a-z]+(?![\w])")
EVIDENCE_CHARS = 4 << 20
"""How much of a text :func:`_whole_words` reads for the words it writes whole."""
# bytes.translate tables for _whole_words: every byte but a lower-case letter a space, and
# the same keeping "-"
_APART = bytes(c if 97 <= c <= 122 else 32 for c in range(256))
_APART_KEEPING_HYPHENS = bytes(c if 97 <= c <= 122 or c == 45 else 32 for c in range(256))


def prose_shares(lines: list[str]) -> tuple[float, float]:
    """How much ``lines`` read as prose wrapped by hand rather than code: the share of lines
    holding five lower-case words, and the share holding a sentence's end (a lower-case
    letter or closing bracket, then ``. ! ?`` and a space or the line's end)."""
    if not lines:
        return 0.0, 0.0
    wordy = sum(len(_LOWER_WORD.findall(line)) >= 5 for line in lines)
    ends = sum(_PROSE_SENTENCE_END.search(line) is not None for line in lines)
    return wordy / len(lines), ends / len(lines)


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
    if m.group("roman") is not None and m.group("dot") != ".":
        return None
    depth = num.count(".") + 1 if num is not None else 1
    if m.group("dot") == ":" and depth < 2:
        return None  # "3: the third step", not "3.21: Why is my history not being saved?"
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
    held = list(paragraphs(text))  # split once: the text is parsed whole
    outline = _outline(held, text)
    out: list[Heading | Block] = []
    for at, paragraph in enumerate(held):
        out += _paragraph_items(at, paragraph, outline)
        held[at] = []  # its raw lines go as its block is made (else twice the text's lines)
    return out


@dataclass(frozen=True, slots=True)
class TextOutline:
    """What the first pass over a text finds (``text_outline``).

    ``sections``: the sections ``build_sections(text_items(text))`` gives, each with no blocks
    (``blocks == ()``; the heading, level and lines as they are); ``first``: the text of the
    first item (a heading's, else the first line of the first block; ``""`` for no text);
    ``heads`` and ``man``: by paragraph index, the paragraphs that are a heading alone and
    those that are a man page's section (its heading, then its other lines as a block);
    ``bounds``: each section's paragraphs, as a half-open range of indexes; ``whole``: the
    words hyphenated at a line's end to write without the hyphen (lower-cased,
    :func:`_whole_words`)."""

    sections: tuple[Section, ...]
    first: str
    heads: dict[int, Heading]
    man: dict[int, Heading]
    bounds: tuple[tuple[int, int], ...]
    whole: frozenset[str] = frozenset()


def text_outline(text: str) -> TextOutline:
    """The headings of ``text`` and the sections they open (``TextOutline``), from one pass
    over its paragraphs that keeps only their headings."""
    return _outline(paragraphs(text), text)


def _outline(numbered: Iterable[Paragraph], text: str) -> TextOutline:
    scan = _Scan()
    for at, paragraph in enumerate(numbered):
        scan.add(at, paragraph)
    # a second look at the text only when a line of it ends in a hyphenated word
    return scan.outline(_whole_words(scan.split, text) if scan.split else frozenset())


def _whole_words(split: set[tuple[str, str]], text: str) -> frozenset[str]:
    """Of the words ``split`` at a line's end (lower-cased, as ``(word, hyphenated)``), those
    to write whole: the text writes them whole elsewhere and never with the hyphen
    (``daemon``, not ``well-known``); and when such words outnumber those it writes with
    the hyphen (a formatter's hyphenation, as in a manual page's text), also the words it
    writes in neither form. Only the text's first :data:`EVIDENCE_CHARS` are read for this
    (a large text's words cost about 0.06 s a MB to collect)."""
    forms = {form.encode() for pair in split for form in pair}
    written: set[bytes] = set()
    start, limit = 0, min(len(text), EVIDENCE_CHARS)
    while start < limit and len(written) < len(forms):
        # a slice of lines at a time as ASCII letters between spaces, its words (a compound's
        # parts among them) and its compounds, split and set in C: no regex walks the text
        end = text.find("\n", min(start + SLICE, limit)) + 1 or len(text)
        raw = text[start:end].lower().encode("ascii", "replace")
        seen = {*raw.translate(_APART).split(), *raw.translate(_APART_KEEPING_HYPHENS).split()}
        written |= forms & seen
        start = end
    found = {form.decode() for form in written}
    compound = {w for w, hyphenated in split if hyphenated in found}
    whole = {w for w, _ in split if w in found} - compound
    if len(whole) > len(compound):
        whole |= {w for w, _ in split} - compound
    return frozenset(whole)


@dataclass(slots=True)
class _Scan:
    """The first pass: per paragraph, whether it may head, and where the sections end."""

    underlines: dict[str, int] = field(default_factory=dict)  # character -> level
    lone: dict[int, Heading] = field(default_factory=dict)  # a heading alone
    man: dict[int, Heading] = field(default_factory=dict)  # a man page's section
    margins: dict[int, Heading] = field(default_factory=dict)  # a title over indented text
    before: dict[int, int] = field(default_factory=dict)  # may head -> the line before it
    body: int = 0  # paragraphs of two lines or more
    indented: int = 0  # of them, indented 3 spaces or more
    margin: Heading | None = None  # the paragraph before, when a title at the margin
    opening: Paragraph = field(default_factory=list)  # the first paragraph
    last: int = 0  # the last line
    count: int = 0  # paragraphs
    split: set[tuple[str, str]] = field(default_factory=set)  # (word, hyphenated) at line ends

    def add(self, at: int, paragraph: Paragraph) -> None:
        """Take paragraph ``at``."""
        number, first = paragraph[0]
        rest = len(paragraph) == 1 or all(raw[:3].isspace() for _, raw in paragraph[1:])
        indented = rest and first[:3].isspace()
        if len(paragraph) > 1:
            self.body += 1
            self.indented += indented
        if self.margin is not None and indented:
            self.margins[at - 1] = self.margin
        self.margin = Heading(first.strip(), 2, number) if _margin_line(paragraph) else None
        if len(paragraph) > 1 and rest and _MAN_SECTION.fullmatch(first):  # NAME, indented
            self.man[at] = Heading(first.strip(), 2, number)
        else:
            heading = _heading(paragraph, self.underlines)
            if heading is not None:
                self.lone[at] = heading
        if at in self.man or at in self.lone or self.margin is not None:
            self.before[at] = self.last
        for (_, upper), (_, lower) in itertools.pairwise(paragraph):
            upper = upper.rstrip()  # the same str when nothing trails: no copy a line
            if upper.endswith("-"):
                joined = _split_word(upper, lower.lstrip())
                if joined is not None:
                    self.split.add((joined[0].lower(), joined[1].lower()))
        if at == 0:
            self.opening = paragraph
        self.last, self.count = paragraph[-1][0], at + 1
        if len(paragraph) > 1 and paragraph[-2][1].rstrip().endswith("-"):
            # its last line may hold only a hyphenated word's rest, which goes with the word
            self.last = list(_list_blocks(paragraph))[-1].lines[-1].number

    def outline(self, whole: frozenset[str]) -> TextOutline:
        """The outline of the paragraphs taken (``TextOutline``), ``whole`` its words to write
        whole (:func:`_whole_words`)."""
        # most paragraphs of two lines or more indented (70%): a text dump, whose titles sit at
        # the margin; in a text written at the margin, an indented paragraph is code and the
        # line before it a sentence leading into it ("Typical code is just")
        if self.body and self.indented >= 0.7 * self.body:
            self.lone.update({at: h for at, h in self.margins.items() if at not in self.lone})
        last = {_key(h): at for at, h in sorted(self.lone.items())}
        heads = {at: h for at, h in self.lone.items() if last[_key(h)] == at}
        starts = sorted([*heads, *self.man])
        sections: list[Section] = []
        bounds: list[tuple[int, int]] = []
        if self.count and (not starts or starts[0] > 0):  # text before the first heading
            stop = starts[0] if starts else self.count
            end = self.before[stop] if starts else self.last
            sections.append(Section("", 0, self.opening[0][0], end, ()))
            bounds.append((0, stop))
        for at, stop in itertools.pairwise([*starts, self.count]):
            h = heads.get(at) or self.man[at]
            blocks = at in self.man or stop > at + 1
            end = (self.before[stop] if stop < self.count else self.last) if blocks else h.line
            sections.append(Section(h.text, h.level, h.line, end, ()))
            bounds.append((at, stop))
        # as its block has it: a list item without its bullet, a hyphenated word whole
        opening = next(_list_blocks(self.opening, whole)).lines[0].text if self.opening else ""
        first = sections[0].heading if starts[:1] == [0] else opening
        return TextOutline(tuple(sections), first, heads, self.man, tuple(bounds), whole)


def _key(heading: Heading) -> str:
    """What makes two headings the same heading written twice: their words."""
    return " ".join(heading.text.split())


def _margin_line(paragraph: Paragraph) -> bool:
    """Whether ``paragraph`` is one short title at the margin: in a text dump (a browser's,
    DocBook's text output), a section's title when the next paragraph is indented
    (``Synopsis`` then ``   /etc/fonts/fonts.conf``)."""
    if len(paragraph) != 1:
        return False
    line = paragraph[0][1].rstrip()
    return _MARGIN_TITLE.fullmatch(line) is not None and len(line) <= MARGIN_TITLE


def text_bodies(text: str, outline: TextOutline) -> Iterator[Iterator[Block]]:
    """The blocks of each of ``outline.sections`` in turn (``outline`` being
    ``text_outline(text)``), made from ``text`` as they are taken: ``text_items`` grouped as
    ``build_sections`` groups them, never held whole. Blocks of a section left untaken are
    passed over for the next section's."""
    numbered = enumerate(paragraphs(text))
    for start, stop in outline.bounds:
        section = itertools.islice(numbered, stop - start)
        yield _blocks(section, outline)
        collections.deque(section, maxlen=0)


def _blocks(numbered: Iterator[tuple[int, Paragraph]], outline: TextOutline) -> Iterator[Block]:
    for at, paragraph in numbered:
        for item in _paragraph_items(at, paragraph, outline):
            if isinstance(item, Block):
                yield item


def _paragraph_items(at: int, paragraph: Paragraph, outline: TextOutline) -> list[Heading | Block]:
    """What paragraph ``at`` gives: its heading, its block, or a man page's section heading
    and the block of its other lines."""
    head = outline.heads.get(at)
    if head is not None:
        return [head]
    head = outline.man.get(at)
    if head is not None:
        return [head, *_list_blocks(paragraph[1:], outline.whole)]
    return list(_list_blocks(paragraph, outline.whole))


def _split_word(upper: str, lower: str) -> tuple[str, str, str] | None:
    """The word hyphenated across the lines ``upper`` and ``lower`` (stripped), without and
    with its hyphen, and what ``lower`` writes up to its first space: ``("daemon",
    "dae-mon", "mon(8)")`` for ``"the dae-"`` and ``"mon(8) runs"``; None when ``upper`` ends
    in no letters and a hyphen (two letters at least: ``-a, -`` is not a word) or ``lower``
    starts with no word in lower case."""
    if not upper.endswith("-"):
        return None
    head = _HYPHENATED.search(upper)
    tail = _CONTINUED.match(lower) if head is not None else None
    if head is None or tail is None:
        return None
    left, right = head.group(1), tail.group(0)
    return left + right, f"{left}-{right}", lower.split(" ", 1)[0]


def unhyphenated(lines: list[tuple[int, str]], whole: frozenset[str]) -> list[tuple[int, str]]:
    """``lines`` (numbered, whitespace collapsed) with each word hyphenated at a line's end
    written on that line: without its hyphen when ``whole`` holds it (lower-cased, as
    :func:`_whole_words` decides: ``dae-`` / ``mon`` is ``daemon``), else with it (``well-`` /
    ``known`` is ``well-known``: a compound the line broke at its hyphen). A line left empty
    goes."""
    if not any(text.endswith("-") for _, text in lines[:-1]):
        return lines  # the common case, at the cost of one look a line
    out: list[tuple[int, str]] = []
    for number, text in lines:
        joined = _split_word(out[-1][1], text) if out else None
        if joined is not None:
            word, _, piece = joined
            upper = out[-1][1]
            upper = upper[:-1] + piece if word.lower() in whole else upper + piece
            out[-1] = (out[-1][0], upper)
            text = text[len(piece) :].lstrip()
        if text:
            out.append((number, text))
    return out


def _list_blocks(paragraph: Paragraph, whole: frozenset[str] = frozenset()) -> Iterator[Block]:
    """A paragraph's blocks: the paragraph, or, when it is a list (its first line an item, or
    two items in it), its lead-in and each item a block without its bullet or number, as the
    Markdown and reStructuredText readers give a list (``Update the consumer package:`` /
    ``* Declare an interest in the trigger.``)."""
    items = [i for i, (_, raw) in enumerate(paragraph) if _ITEM.match(raw)]
    if items[:1] != [0] and len(items) < 2:
        items = []  # one line starting with "- " inside a paragraph: prose
    for start, end in itertools.pairwise(sorted({0, *items, len(paragraph)})):
        lines = paragraph[start:end]
        if start in items:
            lines = [(lines[0][0], _unbulleted(lines[0][1])), *lines[1:]]
        shown = unhyphenated([(n, " ".join(raw.split())) for n, raw in lines], whole)
        yield Block("text", tuple(Line(n, text) for n, text in shown))


def _unbulleted(line: str) -> str:
    """``line`` without a list item's bullet or number at its start."""
    item = _ITEM.match(line)
    return line[item.end() :] if item else line


def _heading(paragraph: Paragraph, underlines: dict[str, int]) -> Heading | None:
    """The heading ``paragraph`` is alone (numbered or underlined), or None; ``underlines``
    maps each underline character met so far to its level."""
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
    return None
