"""Manual pages in the BSD mdoc(7) macros (OpenSSH's ``ssh.1``, ``ssh_config.5``, dash's) as
headings and blocks, as ``man`` prints them.

An mdoc page says what its words are rather than how they look: ``.Fl v`` is an option
(``-v``), ``.Ar file`` an argument, ``.Xr ssh 1`` a page (``ssh(1)``), ``.Op`` and ``.Dq``
enclose the rest of their line (``[-v]``, ``“yes”``). ``.Sh`` and ``.Ss`` open sections,
``.Bl``/``.It``/``.El`` make lists (a ``-tag`` list's items are terms with their text,
``ForwardAgent: Specifies whether ...``; a ``-column`` list is a table), ``.Bd -literal`` and
``.Dl`` keep lines as code, ``.Pp`` ends a paragraph, ``.Sm off`` writes words together. A
macro this reader does not know prints its arguments; none prints its own name.

Written here for the reason :mod:`docqa.text.man` is; escapes and a macro line's arguments are
read as there. ``benchmarks/quality/man_read.py`` compares the text with groff's.
"""

from __future__ import annotations

from collections.abc import Iterator

from docqa.text.documents import Block, Heading, Line, table_block
from docqa.text.man import SKIPPED_BLOCKS, Page, arguments, inline, macro_text

_CLOSE = {".", ",", ":", ";", ")", "]", "?", "!"}  # punctuation written after what it follows
_OPEN = {"(", "["}  # and before
# macros that enclose the rest of their line
_ENCLOSE = {"Dq": ("\u201c", "\u201d"), "Sq": ("\u2018", "\u2019"), "Ql": ("\u2018", "\u2019"),
            "Pq": ("(", ")"), "Bq": ("[", "]"), "Op": ("[", "]"), "Brq": ("{", "}"),
            "Aq": ("<", ">"), "Qq": ('"', '"')}  # fmt: skip
# macros opening and closing an enclosure over several macros or lines
_OPENS = {"Oo": "[", "Do": "\u201c", "So": "\u2018", "Po": "(", "Bo": "[", "Qo": '"',
          "Ao": "<", "Bro": "{"}  # fmt: skip
_CLOSES = {"Oc": "]", "Dc": "\u201d", "Sc": "\u2019", "Pc": ")", "Bc": "]", "Qc": '"',
           "Ac": ">", "Brc": "}"}  # fmt: skip
_SYSTEMS = {"Ux": "UNIX", "Bx": "BSD", "Ox": "OpenBSD", "Nx": "NetBSD", "Fx": "FreeBSD",
            "Dx": "DragonFly", "Bsx": "BSD/OS", "At": "AT&T UNIX"}  # fmt: skip
# macros whose arguments print as they are (their fonts left out)
_PLAIN = {"Ad", "An", "Cd", "Cm", "Dv", "Em", "Er", "Ev", "Fa", "Ft", "Ic", "In", "Lb", "Li",
          "Ms", "Mt", "No", "Pa", "Sx", "Sy", "Tn", "Va", "Vt", "Lk", "St", "%A", "%B", "%C",
          "%D", "%I", "%J", "%N", "%O", "%P", "%Q", "%R", "%T", "%U", "%V"}  # fmt: skip
_INLINE = {"Ar", "Fl", "Fn", "Fo", "Fc", "Nm", "Ns", "Ap", "Pf", "Xr", "Ta", "Xo", "Xc", "Bk",
           "Ek", "Sm", "Eo", "Ec"}  # fmt: skip
_CALLABLE = set(_ENCLOSE) | set(_OPENS) | set(_CLOSES) | set(_SYSTEMS) | _PLAIN | _INLINE
_TAGGED = {"-tag", "-ohang", "-hang", "-inset", "-diag"}  # list types whose items are terms
_GLUE = "\0"  # a piece written with no space before it


def mdoc_items(text: str) -> list[Heading | Block]:
    """The headings and blocks of an mdoc(7) page's roff source ``text`` (see the module
    docstring)."""
    return list(_Reader(text.splitlines()).items())


def render(tokens: list[str], name: str = "", spaced: bool = True) -> str:
    """A macro line's words (``["Op", "Fl", "v"]``) as printed (``[-v]``); ``name`` is what
    ``.Nm`` prints without an argument; not ``spaced`` (``.Sm off``), words written together."""
    out = ""
    for piece in _pieces(tokens, name, spaced):
        glued = piece.startswith(_GLUE) or not spaced
        piece = piece.lstrip(_GLUE)
        if not piece:
            continue
        if out and not glued and out[-1] not in "([\u201c\u2018<{" and piece not in _CLOSE:
            out += " "
        out += piece
    return out


def _pieces(tokens: list[str], name: str, spaced: bool = True) -> Iterator[str]:
    """The printed pieces of ``tokens``, each prefixed with :data:`_GLUE` when no space goes
    before it. A macro's arguments are words of their own: punctuation among them is written
    on to the word before (``.Ar port : host`` prints ``port: host``)."""
    out = _Pieces()
    i = 0
    while i < len(tokens):
        word = tokens[i]
        if word in _ENCLOSE:  # the rest of the line, its closing punctuation after it
            rest = tokens[i + 1 :]
            end = len(rest)
            while end and rest[end - 1] in _CLOSE:
                end -= 1
            left, right = _ENCLOSE[word]
            out.word(left + render(rest[:end], name, spaced) + right)
            out.words(rest[end:])
            break
        if word not in _CALLABLE:
            out.words([word])
            i += 1
            continue
        j = i + 1
        while j < len(tokens) and tokens[j] not in _CALLABLE:
            j += 1
        _macro(out, word, tokens[i + 1 : j], name)
        i = j
    return iter(out.pieces)


class _Pieces:
    """Printed pieces being collected, and whether the next goes on with no space."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.glue = False

    def word(self, text: str, glued: bool = False) -> None:
        if text:
            self.pieces.append((_GLUE if glued or self.glue else "") + text)
            self.glue = False

    def words(self, args: list[str]) -> None:
        for arg in args:
            self.word(inline(arg), glued=arg in _CLOSE)
            self.glue = arg in _OPEN


def _macro(out: _Pieces, word: str, args: list[str], name: str) -> None:
    """Collect what one callable macro prints given its ``args``."""
    named = [a for a in args if a not in _CLOSE and a not in _OPEN]
    if word == "Fl":
        for arg in args or [""]:
            if arg in _CLOSE:
                out.word(arg, glued=True)
            else:
                out.word(f"-{inline(arg)}")
        return
    if word in ("Ar", "Nm") and not named:
        out.word("file ..." if word == "Ar" else name)
        out.words(args)
    elif word == "Xr" and len(named) > 1:
        out.word(f"{inline(args[0])}({inline(args[1])})")
        out.words(args[2:])
    elif word == "Fn" and named:
        out.word(f"{inline(args[0])}({', '.join(inline(a) for a in args[1:])})")
    elif word in ("Fo", "Pf") and args:
        out.word(inline(args[0]) + ("(" if word == "Fo" else ""))
        out.glue = True
        out.words(args[1:])
    elif word in _OPENS:
        out.word(_OPENS[word])
        out.glue = True
        out.words(args)
    elif word in _CLOSES or word in ("Fc", "Ap"):
        out.word(_CLOSES.get(word, ")" if word == "Fc" else "'"), glued=True)
        out.glue = word == "Ap"
        out.words(args)
    elif word == "Ns":
        out.glue = True
        out.words(args)
    elif word in _SYSTEMS:
        out.word(_SYSTEMS[word])
        out.words(args)
    else:  # a macro printing its arguments as they are; Ta, Xo, Sm, ... print nothing more
        out.words(args)


class _Reader(Page):
    """An mdoc(7) page's lines read in order into headings and blocks."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__(lines)
        self.name = ""  # the page's name: what .Nm prints without an argument
        self.lists: list[str] = []  # the open lists' types, innermost last
        self.rows: list[tuple[int, list[str]]] = []  # a -column list's rows
        self.spaced = True  # .Sm off: words written together
        self.off_lines = 0  # macro lines printed since .Sm off: the second goes on the first
        self.section = ""

    def control(self, number: int, request: str) -> Iterator[Heading | Block]:
        yield from self._macro_line(number, request)

    def text(self, number: int, line: str) -> Iterator[Heading | Block]:
        text = inline(line)
        self._add(number, text.rstrip() if self.code else text.strip())
        self.off_lines = 0
        yield from ()

    def _add(self, number: int, text: str, glued: bool = False) -> None:
        if not text:
            return
        if self.para and not self.code and glued:
            last = self.para[-1]
            self.para[-1] = Line(last.number, last.text + text)
        else:
            self.para.append(Line(number, text))

    def _macro_line(self, number: int, request: str) -> Iterator[Heading | Block]:
        tokens = arguments(request)
        if not tokens or tokens[0].startswith(('\\"', "\\#")):
            return
        word, args = tokens[0], tokens[1:]
        if word in SKIPPED_BLOCKS:
            self.define(word, args)
            return
        if word in self.defined - self.macros:
            return  # the page's own macro that prints nothing (pod2man's index entries)
        if word in ("Dd", "Os", "Bk", "Ek", "Xc", "Xo", "Rs") or (
            word[:1].islower() and word not in ("br", "sp") and word not in self.macros
        ):
            return  # a roff request (.nr, .if, .ad, ...) prints nothing
        if word == "Dt" and args:
            yield Heading(f"{args[0]}({args[1]})" if len(args) > 1 else args[0], 1, number)
        elif word in ("Sh", "Ss"):
            yield from self.end(final=True)
            self.section = render(args, self.name)
            if self.section:  # an empty one (no argument) opens no section
                yield Heading(self.section, 2 if word == "Sh" else 3, number)
        elif word in ("Pp", "Lp", "br", "sp", "Re"):
            yield from self.end()
        elif word == "Sm":
            self.spaced, self.off_lines = not args or args[0] != "off", 0
        elif word == "Bl":
            yield from self.end()
            self.lists.append(args[0] if args else "-item")
        elif word == "El":
            yield from self.end(final=True)
            if self.lists and self.lists.pop() == "-column" and self.rows:
                table, self.rows = table_block([], self.rows), []
                if table is not None:
                    yield table
        elif word == "It":
            yield from self._item(number, args)
        elif word == "Bd":
            yield from self.end()
            self.code = "-literal" in args or "-unfilled" in args
        elif word == "Ed":
            yield from self.end()
            self.code = False
        elif word in ("D1", "Dl"):
            yield from self.end()
            self.code = word == "Dl"
            self._add(number, render(args, self.name))
            yield from self.end()
            self.code = False
        else:
            yield from self._inline(number, word, args, tokens)

    def _inline(
        self, number: int, word: str, args: list[str], tokens: list[str]
    ) -> Iterator[Heading | Block]:
        """A macro line that prints words into the paragraph."""
        if word == "Nm" and args and not self.name:
            self.name = inline(args[0])
        if word == "Nm" and self.section == "SYNOPSIS":
            yield from self.end()  # each command's synopsis begins a line
        if word == "Nd":
            self._add(number, "\u2014 " + render(args, self.name))
        elif word == "Ex":
            self._add(number, f"The {self.name} utility exits 0 on success, and >0 if an "
                      "error occurs.")  # fmt: skip
        elif word == "Rv":
            self._add(number, "The function returns the value 0 if successful; otherwise the "
                      "value -1 is returned and errno is set to indicate the error.")  # fmt: skip
        else:
            if word not in _CALLABLE:  # a macro not known here, or the page's own: its words
                tokens = macro_text(args)
            glued = word in ("Ns", "Pc", "Oc", "Dc", "Sc", "Bc", "Ac", "Brc") or (
                not self.spaced and self.off_lines > 0
            )
            self._add(number, render(tokens, self.name, self.spaced), glued=glued)
            self.off_lines += not self.spaced

    def _item(self, number: int, args: list[str]) -> Iterator[Heading | Block]:
        """A list's ``.It``: a term (a ``-tag`` list's), a row (a ``-column`` list's), or a
        paragraph of its own (a bullet's, a number's)."""
        kind = self.lists[-1] if self.lists else "-item"
        if kind == "-column":
            yield from self.end()
            cells = " ".join(args).replace("\t", " Ta ").split(" Ta ")
            self.rows.append((number, [render(arguments(c), self.name) for c in cells]))
            return
        # a tag list's items with no text of their own share the next one's ("-L a", "-L b")
        yield from self.end(final=kind not in _TAGGED)
        if kind not in _TAGGED:
            return
        term = render([t for t in args if t != "Xo"], self.name, self.spaced)
        self.off_lines = 0
        if "Xo" in args:  # the term goes on over the lines up to .Xc
            while self.i < len(self.lines) and not self.lines[self.i].startswith(".Xc"):
                line = self.lines[self.i]
                self.i += 1
                more = arguments(line[1:]) if line.startswith(".") else [line.strip()]
                if more[:1] == ["Sm"]:
                    self.spaced = more[1:2] != ["off"]
                elif more:
                    words = render(more, self.name, self.spaced)
                    glued = not term or (self.off_lines and not self.spaced)
                    term += words if glued else f" {words}"
                    self.off_lines += not self.spaced
            self.i += 1
        if term:
            self.terms.append(Block("text", (Line(number, term),)))
