"""Manual pages (``git-blame.1.gz``, ``CURLOPT_TIMEOUT.3.gz``) as headings and blocks.

A manual page is roff source written with the man(7) macros: ``.TH`` names the page, ``.SH``
and ``.SS`` open sections (headings of level 2 and 3 under the page's name), ``.PP`` (``.LP``,
``.P``, ``.sp``, ``.br``, a blank line) ends a paragraph, ``.TP`` and ``.IP`` make a definition
list's entry (``-w, --ignore-whitespace: Ignore whitespace when ...``), ``.nf``/``.fi`` and
``.EX``/``.EE`` keep lines as code, ``.TS``/``.TE`` hold a tbl(1) table, and the font macros
(``.B``, ``.BR``, ...) and escapes (``\\fB``, ``\\-``, ``\\(em``) only mark up words. What
the macros do to the page's look (indents, fonts, spacing, macros a page defines) is left
out; no request's name is ever read as text.

Written here, not taken from a library: no maintained Python package reads roff, and groff
or mandoc would be a program every user must install. The reader follows what ``man`` prints
(``benchmarks/quality/man_read.py`` compares it with groff's text over a system's pages).
A page in the BSD macros (mdoc(7), ``.Dd``: :func:`is_mdoc`) is read by
:mod:`docqa.text.mdoc`; a page that only includes another (``.so man1/other.1``) is not read:
:func:`man_items` raises ``InputError`` saying so.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from docqa.errors import InputError
from docqa.text.documents import Block, Heading, Line, table_block, with_terms

_ESCAPE = re.compile(
    r"\\(?:"
    r"f(?:\[[^\]]*\]|\(..|.)"  # font: \fB \f(CW \f[I]
    r"|[s](?:[-+]?\d|\([-+]?\d\d|\[[^\]]*\])"  # size: \s-1
    r"|[*n](?:\[[^\]]*\]|\(..|.)"  # a string or a number register: \*(lq \n(.g
    r"|\((..)|\[([^\]]*)\]"  # a special character: \(em \[bu]
    r"|[hvwoNXbDlLRxZ]'[^']*'"  # motions, width, overstrike, device control: \h'1n'
    r"|[mMkgyVY](?:\[[^\]]*\]|\(..|.)"
    r"|(.)"  # any other: \- \e \& \| \c
    r")",
    re.DOTALL,
)
_ROFF = re.compile(r"^(?:\.[ \t]*(?:TH|SH|Dd|Dt|Sh|so)\b|['.]\\\")", re.MULTILINE)
# the special characters a manual page writes (groff_char(7)); any other is left out
_CHARS = {
    "em": "\u2014", "en": "\u2013", "hy": "-", "mi": "-", "bu": "\u2022", "aq": "'",
    "dq": '"', "lq": "\u201c", "rq": "\u201d", "oq": "\u2018", "cq": "\u2019", "co": "\u00a9",
    "rg": "\u00ae", "tm": "\u2122", "mu": "\u00d7", "<=": "\u2264", ">=": "\u2265",
    "->": "\u2192", "<-": "\u2190", "ha": "^", "ti": "~", "rs": "\\", "sl": "/", "ga": "`",
    "de": "\u00b0", "+-": "\u00b1", "sc": "\u00a7", "Fo": "\u00ab", "Fc": "\u00bb",
    "ua": "\u2191", "da": "\u2193", "!=": "\u2260", "eq": "=", "pl": "+", "lB": "[",
    "rB": "]", "lC": "{", "rC": "}", "ba": "|", "br": "|", "ul": "_", "at": "@", "sh": "#",
    "Do": "$", "pc": "\u00b7", "OK": "\u2713",
}  # fmt: skip
# a one-character escape: what it prints (any other prints the character: \- is -, \. is .)
_ONE = {"e": "\\", "\\": "\\", "&": "", "|": "", "^": "", " ": " ", "0": " ", "~": " ",
        "c": "", "%": "", ":": "", ")": "", "/": "", ",": "", "d": "", "u": "", "t": "\t",
        "p": "", "r": "", "{": "", "}": "", "a": "", "E": "\\"}  # fmt: skip
_CODE_POINT = re.compile(r"u([0-9A-F]{4,6})")
# the strings man(7) defines (``\*(lq``, ``\*R``); any other is left out
_STRINGS = {"lq": "\u201c", "rq": "\u201d", "R": "\u00ae", "Tm": "\u2122"}
_ALTERNATING = {"BR", "BI", "IB", "IR", "RB", "RI"}  # fonts by turns: arguments joined
_FONTS = {"B", "I", "SM", "SB"}  # one font: arguments joined by spaces
_BREAKS = {"PP", "LP", "P", "sp", "br", "HP", "bp"}  # each ends a paragraph
SKIPPED_BLOCKS = {"de", "de1", "am", "ig", "ds"}  # a definition: to the line "..", or one line
_SENTENCE_END = re.compile(r"[.!?:;][\"')\]]*$")
_MEASURE = re.compile(r"[-+]?\d+(?:\.\d+)?[a-zA-Z]?")
_TO_TERMINAL = re.compile(r"[.']\s*tm\b")  # a request writing to the terminal, not the page
_DEFINITION_END = re.compile(r"[.']\s*\.")  # ".." (".  ." inside a conditional block)
_CODE_START = {"nf", "EX"}
_CODE_END = {"fi", "EE"}
_BULLETS = {"\u2022", "*", "-", "o", "\u00b7", "+"}  # an item's mark, never a term


def man_items(text: str) -> list[Heading | Block]:
    """The headings and blocks of a man(7) page's roff source ``text`` (see the module
    docstring). Raises ``InputError`` for a page that only sources another."""
    lines = text.splitlines()
    link = next((ln for ln in lines[:40] if ln.startswith(".so ")), None)
    if link is not None and not any(ln.startswith(".TH") for ln in lines):
        raise InputError(f"a link to another manual page ({link.strip()}); index that page")
    return list(_Reader(lines).items())


def is_roff(text: str) -> bool:
    """Whether ``text`` is roff source: a line starting with a page's title (``.TH``,
    ``.Dd``, ``.Dt``), a section (``.SH``, ``.Sh``), an include (``.so``) or a comment
    (``.\\"``, ``'\\"``). A file named as a manual page that holds none is not one: of the
    23,683 such names on the machine this was written on, the 4 without roff were changelogs
    named by version (zsh's ``ChangeLog-3.1.gz``, tar's ``changelog.1.gz``)."""
    return _ROFF.search(text) is not None


def is_mdoc(text: str) -> bool:
    """Whether a manual page's ``text`` is written in the BSD mdoc(7) macros (``.Dd``, ``.Dt``
    among its first lines), read by :mod:`docqa.text.mdoc`."""
    # its head only: the first 60 lines of a page are within its first 16 kB
    return any(line.startswith((".Dd", ".Dt")) for line in text[:16384].splitlines()[:60])


def man_title(items: list[Heading | Block]) -> str:
    """A page's title: its NAME section's line (``git-blame - Show what revision ...``), else
    its first heading (the page's name from ``.TH``), else ``""``."""
    for i, item in enumerate(items):
        if isinstance(item, Heading) and item.text.upper() == "NAME" and i + 1 < len(items):
            after = items[i + 1]
            if isinstance(after, Block):
                return after.text
    return next((i.text for i in items if isinstance(i, Heading)), "")


def past_definition(lines: list[str], i: int, request: str) -> int:
    """The index of the line after a definition that ``request`` (``de``, ``am``, ``ig``, ...,
    :data:`SKIPPED_BLOCKS`) begins at ``lines[i - 1]``: past its ``..`` line (``.  .`` inside
    a conditional block); ``ds`` defines in its own line, so ``i``."""
    while request != "ds" and i < len(lines):
        i += 1
        if _DEFINITION_END.fullmatch(lines[i - 1].strip()):
            break
    return i


def printing(body: list[str]) -> bool:
    """Whether a macro whose definition is ``body`` prints its arguments (it reads them,
    ``\\$1``, not only to the terminal with ``.tm``): a call of it is text; pod2man's ``.IX``
    (an index entry) is not."""
    return any("\\$" in line and not _TO_TERMINAL.match(line) for line in body)


def macro_text(args: list[str]) -> list[str]:
    """The arguments of a call of a macro the page defines that are text: not a number or a
    measure (rst2man's ``.INDENT 3.5`` reads its argument as an indent)."""
    return [a for a in args if not _MEASURE.fullmatch(a)]


def inline(text: str) -> str:
    """``text`` with its escapes read: fonts and sizes left out, special characters
    (``\\(em``), ``\\-`` and ``\\e`` printed, a comment (``\\"``) cut off."""
    cut = _comment_at(text)
    return _ESCAPE.sub(_escaped, text if cut < 0 else text[:cut])


def _comment_at(text: str) -> int:
    """Where a comment (``\\"`` or ``\\#``) begins in ``text``, -1 for none (``\\\\"`` is an
    escaped backslash and a quote)."""
    i = text.find("\\")
    while i >= 0 and i + 1 < len(text):
        if text[i + 1] in '"#':
            return i
        i = text.find("\\", i + 2)
    return -1


def _escaped(match: re.Match[str]) -> str:
    whole, char, named, one = match.group(0), match.group(1), match.group(2), match.group(3)
    if char is not None:
        return _CHARS.get(char, "")
    if named is not None:  # \[em], or a code point: \[u00E9]
        code = _CODE_POINT.fullmatch(named)
        return chr(int(code[1], 16)) if code else _CHARS.get(named, "")
    if one is not None:
        return _ONE.get(one, one)
    if whole.startswith("\\*"):
        return _STRINGS.get(whole[2:].strip("[]("), "")
    return ""


def arguments(rest: str) -> list[str]:
    """A macro's arguments: words, or quoted strings (``""`` inside one is a quote)."""
    out: list[str] = []
    for match in re.finditer(r'"((?:[^"]|"")*)"?|(\S+)', rest):
        out.append(match.group(1).replace('""', '"') if match.group(1) is not None else match[2])
    return out


class Page:
    """What reading a page's lines keeps, for either macro set (this module's reader and
    :mod:`docqa.text.mdoc`'s): the place ``i`` of the next line, the paragraph (or code) being
    read with the terms it defines, and the macros the page defines."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.i = 0
        self.para: list[Line] = []  # the paragraph (or code) being read
        self.terms: list[Block] = []  # the terms of a definition list's entry, before its text
        self.code = False  # lines kept as they are (.nf, .EX; mdoc's .Bd -literal)
        self.defined: set[str] = set()  # macros the page defines
        self.macros: set[str] = set()  # those of them that print their arguments

    def define(self, request: str, name: list[str]) -> None:
        """Past the definition ``request`` (:data:`SKIPPED_BLOCKS`) begins, of the macro
        ``name`` (its first argument), noting whether a call of it prints."""
        start, self.i = self.i, past_definition(self.lines, self.i, request)
        if request not in ("ig", "ds"):  # .ds defines a string (\*(Aq), not a macro
            self.defined.update(name[:1])
            if printing(self.lines[start : self.i]):
                self.macros.update(name[:1])

    def items(self) -> Iterator[Heading | Block]:
        """The page's headings and blocks: each line read in turn, a request or macro line
        (``.`` or ``'`` first) by :meth:`control`, a line of text by :meth:`text`; a blank line
        ends a paragraph, not code."""
        while self.i < len(self.lines):
            number, line = self.i + 1, self.lines[self.i]
            self.i += 1
            if line.startswith((".", "'")):
                yield from self.control(number, line[1:].strip())
            elif line.strip():
                yield from self.text(number, line)
            elif not self.code:
                yield from self.end()
        yield from self.end(final=True)

    def control(self, number: int, request: str) -> Iterator[Heading | Block]:
        """What the request or macro line ``request`` (its control character taken off) at
        line ``number`` does."""
        raise NotImplementedError

    def text(self, number: int, line: str) -> Iterator[Heading | Block]:
        """What the line of text ``line`` (not blank) at line ``number`` adds."""
        raise NotImplementedError

    def end(self, final: bool = False) -> Iterator[Heading | Block]:
        """The paragraph (or code) read so far, with the terms it defines, as blocks; terms
        with no text yet wait for it (an entry's text may follow a break), unless ``final``."""
        if not self.para and self.terms and not final:
            return
        body = [Block("code" if self.code else "text", tuple(self.para))] if self.para else []
        terms, self.para, self.terms = self.terms, [], []
        yield from with_terms(terms, body)


class _Reader(Page):
    """A man(7) page's lines read in order into headings and blocks (``items``)."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__(lines)
        self.want_term = False  # after .TP: the next line of text is the entry's term

    def control(self, number: int, request: str) -> Iterator[Heading | Block]:
        yield from self._request(number, request)

    def text(self, number: int, line: str) -> Iterator[Heading | Block]:
        if self.code:
            self.para.append(Line(number, inline(line).rstrip()))
            return
        if line[:1].isspace():  # a line that begins with a space begins a new line
            yield from self.end()
        self._text(number, inline(line).strip())

    def end(self, final: bool = False) -> Iterator[Heading | Block]:
        """:meth:`Page.end`; a ``.TP`` waiting for its term waits no more."""
        self.want_term = False
        yield from super().end(final)

    def _text(self, number: int, text: str) -> None:
        if not text or text in _BULLETS:  # a list item's bullet, printed alone
            return
        if self.want_term:
            self.want_term = False
            self.terms.append(Block("text", (Line(number, text),)))
        else:
            self.para.append(Line(number, text))

    def _request(self, number: int, request: str) -> Iterator[Heading | Block]:
        name, _, rest = request.partition(" ")
        rest = rest.strip()
        if not name or name.startswith(('\\"', "\\#")):
            return  # a comment, or a line holding only the control character
        if name in SKIPPED_BLOCKS:
            self.define(name, arguments(rest))
        elif name in self.macros:  # a macro the page defines: its arguments are its text
            self._text(number, inline(" ".join(macro_text(arguments(rest)))))
        elif name == "TH":
            args = [inline(a) for a in arguments(rest)]
            if args:
                yield Heading(args[0] + (f"({args[1]})" if len(args) > 1 else ""), 1, number)
        elif name in ("SH", "SS"):
            yield from self.end(final=True)
            heading = inline(" ".join(arguments(rest))) if rest else self._next_text()
            if heading.strip():
                yield Heading(heading.strip(), 2 if name == "SH" else 3, number)
        elif name in _CODE_START or name in _CODE_END:
            yield from self.end()
            self.code = name in _CODE_START
        elif name == "RS" and not self.code and len(self.para) == 1 and not self.terms:
            # a line over an indented paragraph is the term it defines (DocBook's pages:
            # ``.PP`` / ``\fB\-b\fR`` / ``.RS 4`` / ``Show blank SHA-1 ...``)
            self.terms, self.para = [Block("text", tuple(self.para))], []
        elif name in _BREAKS or name in ("RS", "RE"):
            if not self.code:
                yield from self.end()
        elif name in ("TP", "TQ"):
            if name == "TP":
                yield from self.end()
            self.want_term = True
        elif name == "IP":
            args = arguments(rest)
            tag = inline(args[0]).strip() if args else ""
            if not tag and self.para and not _SENTENCE_END.search(self.para[-1].text):
                return  # help2man's pages break an option's sentence so: it goes on
            yield from self.end()
            if tag and tag not in _BULLETS and not re.fullmatch(r"\(?\w{1,3}[.)]", tag):
                self.terms.append(Block("text", (Line(number, tag),)))
        elif name == "TS":
            yield from self.end()
            table = self._table()
            if table is not None:
                yield table
        elif name in _FONTS:
            words = arguments(rest)
            self._text(number, inline(" ".join(words)) if words else self._next_text())
        elif name in _ALTERNATING:
            self._text(number, inline("".join(arguments(rest))))
        elif name in ("UE", "ME"):  # after a link's text (.UR/.MT give its address: no text)
            self._text(number, inline(" ".join(arguments(rest))))
        elif name == "OP":
            args = [inline(a) for a in arguments(rest)]
            self._text(number, f"[{' '.join(args)}]" if args else "")
        elif name in ("SY", "YS"):
            yield from self.end()
            self._text(number, inline(" ".join(arguments(rest))))
        # any other request (.RS, .RE, .in, .ft, .if, .nr, .ad, ...) changes only the look

    def _next_text(self) -> str:
        """The next line of text (a macro given no argument applies to it), taken."""
        while self.i < len(self.lines):
            line = self.lines[self.i]
            self.i += 1
            if not line.startswith((".", "'")):
                return inline(line).strip()
            name, _, rest = line[1:].strip().partition(" ")
            if name in _FONTS or name in _ALTERNATING:
                joiner = "" if name in _ALTERNATING else " "
                return inline(joiner.join(arguments(rest)))
        return ""

    def _table(self) -> Block | None:
        """A tbl(1) table (after ``.TS``, up to ``.TE``): its options and format lines left
        out, each row's cells split at the tab character (``tab(;)`` sets another), a ruling
        row (``_``) left out."""
        body: list[tuple[int, list[str]]] = []
        tab, formats = "\t", True
        while self.i < len(self.lines):
            number, line = self.i + 1, self.lines[self.i]
            self.i += 1
            if line.startswith(".TE"):
                break
            if line.startswith((".", "'")):
                continue
            if formats:  # options (end in ";") then the format lines (the last ends in ".")
                found = re.search(r"tab\s*\((.)\)", line)
                tab = found.group(1) if found else tab
                formats = not line.rstrip().endswith(".")
                continue
            cells = [inline(c.replace("T{", "").replace("T}", "")).strip() for c in line.split(tab)]
            if any(c.strip("_=") for c in cells):
                body.append((number, cells))
        return table_block([], body)
