"""AsciiDoc (Asciidoctor's and the older Python AsciiDoc's) to a parser's stream of headings and
blocks.

What becomes what:

- section titles, ``= Title`` to ``====== Title`` (and Markdown's ``#``), or a line underlined
  with ``=``, ``-``, ``~``, ``^`` or ``+`` as long as it (give or take one character, as
  Asciidoctor allows) -> ``Heading``; ``=`` is level 1, ``==`` level 2, and so on;
- paragraphs, list items (markers dropped), description-list terms and their text, block
  titles (``.Title``), verses and quotes -> ``"text"`` blocks of their shown text
  (``docqa.text.asciidoc_inline``); an admonition (``NOTE: text``, ``[NOTE]`` over a block)
  shows its label ("Note") before its text, as the built page does;
- listing (``----``), literal (``....``) and fenced (```````) blocks, paragraphs styled
  ``[source]``, ``[listing]`` or ``[literal]``, and indented (literal) paragraphs ->
  ``"code"`` blocks, relative indentation kept, attribute references not replaced
  (Asciidoctor replaces none there);
- tables (``|===``, and CSV ``,===`` and ``:===``) -> ``"table"`` blocks, a header row and a
  ``| a | b |`` line per row, however many source lines a row takes
  (``docqa.text.asciidoc_tables``);
- example, sidebar, quote and open blocks (``====``, ``****``, ``____``, ``--``): their
  content read as AsciiDoc; a passthrough block (``++++``): its text, tags dropped;
- attribute entries (``:name: value``) are dropped and their values replace ``{name}`` in
  the text after them; comments (``//``, ``////`` blocks), block attribute lines
  (``[source,python]``, ``[[id]]``), list continuations (``+``), breaks (``'''``, ``<<<``)
  and the conditional directives (``ifdef::``, ``endif::``; the text of every branch is kept)
  show nothing.

``include::file[]`` is **not followed**: docqa reads the files it is given, and the included
file, when it is among them, is read on its own (git's manual pages include fragments that
Debian ships beside them). ``image::``, ``video::``, ``audio::`` and ``toc::`` show nothing.

Written by hand, like the reStructuredText reader: a line reader that yields the shown text
and where sections begin, not a document tree. An unclosed block runs to the end of the
file, as Asciidoctor reads it. Lines keep their numbers.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field

from docqa.text.asciidoc_inline import inline_lines, inline_text, section_id, substitute
from docqa.text.asciidoc_tables import adoc_table
from docqa.text.documents import Block, Heading, Line, with_terms
from docqa.text.numbered_lines import Lines, dedent, indent, numbered

Construct = Generator[Heading | Block, None, int]


@dataclass
class _File:
    """What the reading of one file carries along: its attributes so far, its sections' titles
    by id (for ``<<id>>``), where its text starts."""

    attributes: dict[str, str] = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)
    start: int = 0  # the index of its first line that is not blank or a comment


_CONDITIONAL = re.compile(r"(ifdef|ifndef|ifeval|endif)::(\S*?)\[(.*)\]")
_ATTRIBUTE_ENTRY = re.compile(r":(!?\w[^:]*?!?):(?:[ \t]+(.*))?")
_BLOCK_ATTRIBUTES = re.compile(r"\[(?:|[\w.#%{,\"'].*|\[(?:|[A-Za-z_:][\w\-:.]*(?:, *.+)?)\])\]")
_ANCHOR = re.compile(r"\[\[([A-Za-z_:][\w\-:.]*)(?:, *.+)?\]\]|\[#([\w\-:.]+)[.%\]]")
_DELIMITER = re.compile(r"(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|/{4,}|--|```.*|[|,:!]={3,})")
_ATX = re.compile(r"(={1,6}|#{1,6})[ \t]+(.+?)(?:[ \t]+\1)?")
_SETEXT_TITLE = re.compile(r"(?!\.)(?!//).*[^\W_].*")
_SETEXT_LEVELS = {"=": 1, "-": 2, "~": 3, "^": 4, "+": 5}
_BLOCK_TITLE = re.compile(r"\.(\.?[^ \t.].*)")
_BLOCK_MACRO = re.compile(r"(include|image|video|audio|toc)::\S*?\[.*\]")
_BREAK = re.compile(r"'{3,}|<{3,}| {0,3}([-*_])( *)\1\2\1")
_ADMONITION = re.compile(r"(NOTE|TIP|IMPORTANT|WARNING|CAUTION):[ \t]+(.*)")
LABELS = {
    "note": "Note",
    "tip": "Tip",
    "important": "Important",
    "warning": "Warning",
    "caution": "Caution",
}
_LIST_ITEM = re.compile(r"[ \t]*(?:-|\*+|\u2022|\.+|\d+\.|[a-zA-Z]\.|[IVXivx]+\))[ \t]+(.*)")
_CALLOUT_ITEM = re.compile(r"<(?:\d+|\.)>[ \t]+(.*)")
_DESCRIPTION = re.compile(r"(?!//[^/])[ \t]*([^ \t].*?)(?::{2,4}|;;)(?:$|[ \t]+(.*))")
_CHECKBOX = re.compile(r"\[[ xX*]\][ \t]+")
_CODE_STYLES = frozenset({"source", "listing", "literal"})
_SUBSTITUTED = re.compile(r"subs=\W*[^\]]*\battributes\b")
_TAG = re.compile(r"<[^>]*>")


def asciidoc_items(text: str) -> list[Heading | Block]:
    """``text`` (AsciiDoc) as headings and blocks (module doc)."""
    lines: Lines = []
    for number, line in numbered(text):
        conditional = _CONDITIONAL.fullmatch(line)
        if conditional is not None:  # the text of every branch is kept
            if conditional.group(1) in ("ifdef", "ifndef") and conditional.group(3):
                lines.append((number, conditional.group(3)))
            continue
        lines.append((number, line))
    start = next((i for i, (_, t) in enumerate(lines) if t and not _comment(t)), 0)
    read = _File(titles=_section_titles(lines), start=start)
    return list(_body(lines, read, top=True))


def _section_titles(lines: Lines) -> dict[str, str]:
    """The file's section titles by id (its own ``[[id]]`` or ``[#id]``, and the id
    Asciidoctor makes from the title), for ``<<id>>`` to show."""
    titles: dict[str, str] = {}
    for i, (_, text) in enumerate(lines):
        found = _heading(lines, i)
        if found is None:
            continue
        title = inline_text(found[0])
        titles.setdefault(section_id(title), title)
        anchor = _ANCHOR.fullmatch(lines[i - 1][1]) if i else None
        if anchor is not None:
            titles[anchor.group(1) or anchor.group(2)] = title
    return titles


def _comment(text: str) -> bool:
    return text.startswith("//") and (len(text) == 2 or text[2] != "/")


def _style(attributes: str) -> str:
    """The style a block attribute line gives (``[source,python]`` -> ``source``)."""
    first = attributes.split(",", 1)[0].strip().strip("\"'")
    if "=" in first:
        return ""
    found = re.match(r"[\w-]*", first)
    return found.group(0).lower() if found else ""


def _body(lines: Lines, read: _File, top: bool) -> Iterator[Heading | Block]:
    """The items of ``lines``: a file (``top``), or a delimited block's content."""
    i, attributes = 0, ""
    while i < len(lines):
        text = lines[i][1]
        if not text or text == "+":  # a blank line, a list continuation
            i += 1
        elif _BLOCK_ATTRIBUTES.fullmatch(text) and not _DELIMITER.fullmatch(text):
            if not text.startswith("[["):  # an anchor gives no style
                attributes = text[1:-1] if _style(text[1:-1]) or not attributes else attributes
            i += 1
        else:
            i = yield from _construct(lines, i, read, top, attributes)
            attributes = ""


def _construct(lines: Lines, i: int, read: _File, top: bool, attributes: str) -> Construct:
    """The construct starting at line ``i`` (``attributes``: its block attribute line's, without
    the brackets); returns where the next begins (``top``: a section title may stand here)."""
    number, text = lines[i]
    style = _style(attributes)
    if _comment(text):
        return i + 1
    if _DELIMITER.fullmatch(text):
        return (yield from _delimited(lines, i, read, attributes))
    heading = _heading(lines, i) if top or style in ("discrete", "float") else None
    if heading is not None:
        return (yield from _section_title(lines, i, read, heading, top and i == read.start))
    entry = _ATTRIBUTE_ENTRY.fullmatch(text)
    if entry is not None:
        return _attribute_entry(lines, i, entry, read)
    if _BLOCK_MACRO.fullmatch(text) or _BREAK.fullmatch(text):
        return i + 1
    title = _BLOCK_TITLE.fullmatch(text)
    if title is not None:
        yield from _text([(number, title.group(1))], read)
        return i + 1
    admonition = _ADMONITION.fullmatch(text)
    if admonition is not None and style not in _CODE_STYLES:
        yield Block("text", (Line(number, LABELS[admonition.group(1).lower()]),))
        return (yield from _paragraph(lines, i, read, attributes, admonition.group(2)))
    return (yield from _item_or_paragraph(lines, i, read, attributes))


def _section_title(
    lines: Lines, i: int, read: _File, heading: tuple[str, int, int], opening: bool
) -> Construct:
    """A section title at line ``i`` (``opening``: the file's first line, so the document's
    title, with its header under it)."""
    title, level, end = heading
    number = lines[i][0]
    shown = inline_lines([(number, title)], read.attributes, read.titles)
    yield Heading(" ".join(t.text for t in shown), level, number)
    if level == 1 and opening:
        return (yield from _header(lines, end, read))
    return end


def _item_or_paragraph(lines: Lines, i: int, read: _File, attributes: str) -> Construct:
    """A list item, a description-list term, a literal (indented) paragraph or a paragraph."""
    text = lines[i][1]
    item = _CALLOUT_ITEM.fullmatch(text) or _LIST_ITEM.fullmatch(text)
    if item is not None:
        first = _CHECKBOX.sub("", item.group(1), count=1)
        return (yield from _item(lines, i, read, first))
    term = _DESCRIPTION.fullmatch(text)
    if term is not None:  # "CPU:: The brain ...": the terms with their definition, one block
        terms: list[Block] = []
        end = i
        while term is not None:  # "--force::" / "-f::" / the text they both name
            terms += _text([(lines[end][0], term.group(1))], read)
            definition, end = _item_text(lines, end, read, term.group(2) or "")
            after = lines[end][1] if end < len(lines) and not definition else ""
            term = _DESCRIPTION.fullmatch(after)
        yield from with_terms(terms, definition)
        return end
    if indent(text) and _style(attributes) not in ("verse", "quote"):  # a literal paragraph
        end = _paragraph_end(lines, i, in_list=False)
        yield from _code(lines[i:end])
        return end
    return (yield from _paragraph(lines, i, read, attributes, text))


def _heading(lines: Lines, i: int) -> tuple[str, int, int] | None:
    """``(title, level, next line)`` when a section title starts at line ``i``, else None."""
    text = lines[i][1]
    atx = _ATX.fullmatch(text)
    if atx is not None:
        return atx.group(2), len(atx.group(1)), i + 1
    if (
        i + 1 >= len(lines)
        or not _SETEXT_TITLE.fullmatch(text)
        or lines[i + 1][0] != lines[i][0] + 1
    ):
        return None
    under = lines[i + 1][1]
    level = _SETEXT_LEVELS.get(under[:1])
    if level is None or len(under) < 2 or under != under[0] * len(under):
        return None
    if abs(len(text) - len(under)) >= 2 or _DELIMITER.fullmatch(text) or _comment(text):
        return None
    return text.strip(), level, i + 2


def _header(lines: Lines, i: int, read: _File) -> Construct:
    """The document header under its title, up to a blank line: attribute entries kept, the
    author and revision lines shown as text."""
    shown: Lines = []
    while i < len(lines) and lines[i][1]:
        entry = _ATTRIBUTE_ENTRY.fullmatch(lines[i][1])
        if entry is not None:
            i = _attribute_entry(lines, i, entry, read)
            continue
        if not _comment(lines[i][1]):
            shown.append(lines[i])
        i += 1
    yield from _text(shown, read)
    return i


def _attribute_entry(lines: Lines, i: int, entry: re.Match[str], read: _File) -> int:
    """Keep an attribute entry's value (a value ending in `` \\`` goes on the next line)."""
    name, value = entry.group(1), entry.group(2) or ""
    end = i + 1
    while value.endswith(" \\") and end < len(lines):
        value = f"{value[:-2]} {lines[end][1].strip()}"
        end += 1
    if name.startswith("!") or name.endswith("!"):
        read.attributes.pop(name.strip("!").lower(), None)
    else:
        read.attributes[name.lower()] = substitute(value, read.attributes)
    return end


def _paragraph_end(lines: Lines, i: int, in_list: bool) -> int:
    """The end of the paragraph from line ``i``: a blank line, a delimiter, a block attribute
    line, a list continuation, and in a list the next item."""
    end = i + 1
    while end < len(lines):
        text = lines[end][1]
        if not text or text == "+" or _DELIMITER.fullmatch(text):
            break
        if _BLOCK_ATTRIBUTES.fullmatch(text) or _BLOCK_MACRO.fullmatch(text):
            break
        if in_list and (
            _LIST_ITEM.fullmatch(text)
            or _CALLOUT_ITEM.fullmatch(text)
            or _DESCRIPTION.fullmatch(text)
        ):
            break
        end += 1
    return end


def _paragraph(lines: Lines, i: int, read: _File, attributes: str, first: str) -> Construct:
    """A paragraph (``first``: its first line's text); its style may make it code."""
    end = _paragraph_end(lines, i, in_list=False)
    body = [(lines[i][0], first), *lines[i + 1 : end]]
    style = _style(attributes)
    if style in _CODE_STYLES:
        yield from _code(body, read, attributes)
    elif style != "comment":
        if style in LABELS:
            yield Block("text", (Line(lines[i][0], LABELS[style]),))
        yield from _text(body, read)
    return end


def _item(lines: Lines, i: int, read: _File, first: str) -> Construct:
    """A list item: ``first`` (its first line's text after the marker) and the lines right
    under it, up to a blank line, the next item or a block."""
    blocks, end = _item_text(lines, i, read, first)
    yield from blocks
    return end


def _item_text(lines: Lines, i: int, read: _File, first: str) -> tuple[list[Block], int]:
    """:func:`_item`'s block (none for no text) and the line after the item."""
    end = _paragraph_end(lines, i, in_list=True)
    rest = dedent(lines[i + 1 : end])
    return list(_text([(lines[i][0], first), *rest] if first else rest, read)), end


def _text(lines: Lines, read: _File) -> Iterator[Block]:
    shown = inline_lines(
        [(n, t) for n, t in lines if not _comment(t)], read.attributes, read.titles
    )
    if shown:
        yield Block("text", shown)


def _code(lines: Lines, read: _File | None = None, attributes: str = "") -> Iterator[Block]:
    """Code lines, relative indentation kept; attribute references replaced only when the
    block asks for it (``[source,subs="attributes+"]``)."""
    if read is not None and _SUBSTITUTED.search(attributes):
        lines = [(n, substitute(t, read.attributes)) for n, t in lines]
    code = [Line(n, t) for n, t in dedent(lines) if t]
    if code:
        yield Block("code", tuple(code))


def _delimited(lines: Lines, i: int, read: _File, attributes: str) -> Construct:
    """A delimited block, up to the line equal to its opening one (or the end of the file)."""
    style = _style(attributes)
    opening = lines[i][1]
    closing = "```" if opening.startswith("```") else opening
    end = next((j for j in range(i + 1, len(lines)) if lines[j][1] == closing), len(lines))
    inner, after = lines[i + 1 : end], min(end + 1, len(lines))
    kind = opening[0]
    if kind == "/" or style == "comment":
        return after
    if kind in "-.`" and opening != "--" or style in _CODE_STYLES:
        yield from _code(inner, read, attributes)
    elif kind in "|,:!":
        found = adoc_table(inner, kind, attributes, lambda cell: _cell(cell, read))
        if found is not None:
            yield found
    elif kind == "+" or style == "pass":
        yield from _text([(n, _TAG.sub(" ", t)) for n, t in inner], read)
    else:  # example, sidebar, quote, open: content read as AsciiDoc
        if style in LABELS:
            yield Block("text", (Line(lines[i][0], LABELS[style]),))
        yield from _body(inner, read, top=False)
    return after


def _cell(text: str, read: _File) -> str:
    """A table cell's text, attribute references replaced and inline markup read."""
    return inline_text(substitute(text, read.attributes), read.titles)
