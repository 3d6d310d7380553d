"""How the extractive answer cuts a passage into *units*, the pieces it may quote: whole
sentences, a table row as one sentence naming its columns, a sentence ending in ``:`` with
the block it introduces, a sentence written around a block, a block of code that stands
alone, its lines kept, and a definition with the terms it defines. A window's fragments at
either end, and labels of one or two words, are no units (:func:`units`). Pure functions of
the passage's text; :mod:`docqa.models.extractive` scores and picks among them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docqa.models.blocks import entries, is_code, is_table, list_goes_on, reads_as_prose, table_rows
from docqa.models.joins import (
    FULL_STOP,
    MAX_BLOCK_CHARS,
    OWN_TERM,
    STARTS_SENTENCE,
    WORD,
    captions,
    continues,
    inserted,
    list_item,
    names_unquoted_code,
    needs_more,
    resumes,
)
from docqa.models.sentences import split_sentences
from docqa.models.terms import defined, name_of, own_term
from docqa.prompt import Passage

MIN_WORDS = 3
"""A unit of fewer words is a label, not a sentence ("See also", "Note", "6.", a defined
term such as "-f"): the extractive answer never quotes one, nor takes one along after its
best unit (:func:`is_label`)."""

_ENDS_SENTENCE = re.compile(r"[.!?:;][\"')\]]*$|[)\]}>`]$")
_CONTINUATION = re.compile(r"-p\d+$")
_PROMPT = re.compile(r"(?:>>>|[>$#]) ")  # a shell's or an interpreter's prompt
_LONE_DASH = re.compile(r"[ \t]+[\u2013\u2014]$")
# a sentence that tells what the block of code just above it does: "This starts a new shell
# session in the container" after ``$ docker exec -it mycontainer sh``
_BACK = re.compile(r"(?:This|These|The (?:above|previous|preceding) \w+|The \w+ above)\b")


@dataclass(frozen=True, slots=True)
class Unit:
    """A quotable piece of a passage: its ``text`` (whitespace collapsed, except inside an
    attached block), the passage's index in the prompt and the unit's place in it."""

    text: str
    passage: int
    place: int
    row: bool = False
    """A table row (its neighbours are other rows, not its continuation)."""
    block: bool = False
    """A block of code standing alone (it begins its own line in a reply)."""
    under: str = ""
    """The term of the definition the unit belongs to (:func:`units`), ``""`` for none."""


def is_label(unit: Unit) -> bool:
    """Whether ``unit`` is a label rather than a sentence (see :data:`MIN_WORDS`)."""
    return len(WORD.findall(unit.text)) < MIN_WORDS


def _blocks(text: str) -> list[str]:
    return [b.strip("\n") for b in re.split(r"\n\s*\n", text) if b.strip()]


def units(passage: Passage, index: int) -> list[Unit]:
    """The units of ``passage`` (the ``index``-th of the prompt), in order.

    A continuation window (id ending ``-pN``) whose text starts in lower case or with
    punctuation begins inside a sentence: that first piece is dropped, and so is the piece
    that goes on with the same sentence after a block (a command in mid-sentence). A last
    piece that does not end like a sentence (``. ! ? : ;`` or a closing bracket or quote) is
    the start of a sentence cut at the window's end: dropped too. A sentence ending in ``:``
    takes the next block (up to :data:`MAX_BLOCK_CHARS`) along, line breaks kept, and when
    that block is code, the sentence going on after it ("For example, the code:" / the code /
    "will run hasher ...", :func:`~docqa.models.joins.resumes`), when it is a list's item
    ending in ", or" or ",", the items after it up to its last (within
    :data:`~docqa.models.joins.MAX_BLOCK_CHARS`); so does
    one that stops where no sentence ends (on a stop word: "the command is") or before a
    command typed at a prompt (``> help(solve)``), when that block can stand inside a
    sentence and nothing after it goes on with the sentence. A piece that does not end like a
    sentence, followed by a block that can stand inside a sentence
    (:func:`~docqa.models.joins.inserted`: no line of prose, such as a list's item) and then
    by a block that does not start like one, is a sentence written around that block ("For
    example, the command" / ``ls 2>&1 > dirlist`` / "directs only the standard output ..."):
    one unit, to the end of the first sentence after
    the block (and on through the next such block). A block of code
    (:func:`~docqa.models.blocks.is_code`) standing alone is one unit, line breaks kept, never
    cut into "sentences" at the full stops inside it (a synopsis, a script), and no unit when
    longer than :data:`MAX_BLOCK_CHARS`, nor when it
    opens a continuation window (it may be the tail of a block the window cut); a sentence
    that tells what such a block, or a command typed at a prompt, just above it does ("This
    starts a new shell session ...", not ending in ``:``) is one unit with it. Labels after a
    finished sentence (no ``:`` in them) are the terms of a definition list: the next
    paragraph's first sentence is quoted with them, ``"%d, %/: Current working directory."``;
    the units of that paragraph, and of the next one when that paragraph is no sentence (a
    request's arguments, ``window: WINDOW``, before its description), stand ``under`` the
    terms when they name a thing (:func:`~docqa.models.terms.name_of`), so that a reply
    quoting a later sentence can say what it describes. A paragraph that opens with a term of
    its own (an API reference's ``get_template(name): Load a template ...``,
    :data:`~docqa.models.joins.OWN_TERM`) goes on from no line above it, nor stands under
    its terms; a parameter Sphinx writes without a description (``parent (str) –``) is a
    field, quoted without the dash, that defines nothing.
    """
    cut = _Cut(passage)
    while cut.b < len(cut.blocks):
        table, code = cut.read()
        if cut.found:
            cut.follow(table, code)
    pieces, attached = cut.pieces, cut.attached
    if pieces and not attached[-1] and not _ENDS_SENTENCE.search(pieces[-1]):
        pieces.pop()
        cut.under.pop()
    return [
        Unit(text, index, place, place in cut.rows, place in cut.alone, under)
        for place, (text, under) in enumerate(zip(pieces, cut.under, strict=True))
    ]


class _Cut:
    """A passage being cut into units (:func:`units`): its blocks and the place ``b`` of the
    next to read, the pieces so far and whether each ends in a block it took along, the places
    of table rows and of code standing alone, whether the window may begin inside a sentence,
    the labels just read (the terms the next paragraph defines), and what the last block
    read gave (``found``)."""

    def __init__(self, passage: Passage) -> None:
        self.blocks = _blocks(passage.text)
        self.b = 0
        self.pieces: list[str] = []
        self.attached: list[bool] = []
        self.rows: set[int] = set()
        self.alone: set[int] = set()
        self.inside = _CONTINUATION.search(passage.id) is not None  # may begin in a sentence
        self.terms: list[str] = []
        self.defined = ""  # the name of the definition being read, if any
        self.carry = False  # whether that definition goes on into the next block
        self.under: list[str] = []  # each piece's
        self.found: list[str] = []
        self.code = False  # whether the block just read was code or a command

    def read(self) -> tuple[bool, bool]:
        """Read the next block into pieces (a table's rows, code whole, prose's sentences);
        whether it is a table, and code."""
        # Sphinx writes a parameter without a description as ``name (str) –``: a field, no
        # term of the paragraph after it, quoted without the dash that separates it from nothing
        block, field = _LONE_DASH.subn("", self.blocks[self.b])
        lines = [ln for ln in block.splitlines() if ln.strip()]
        table = is_table(lines)
        code = is_code(lines)
        found = self._found(block, lines, table, code)
        self._after_code(found, block, table, code)
        # a label after a finished sentence (not a command inside one) is a term the next
        # paragraph defines
        pieces = self.pieces
        term = (
            not (table or code or field)
            and len(found) == 1
            and len(WORD.findall(found[0])) < MIN_WORDS
            and ":" not in found[0]  # a field ("Returns: {string}"), or it takes the next block
            and not _PROMPT.match(found[0])  # a command typed at a prompt: ``> help("[[")``
            and (not pieces or bool(self.terms) or _ENDS_SENTENCE.search(pieces[-1]) is not None)
        )
        carried = self.carry and not (term or table or code)
        self.carry = False
        labelled = bool(self.terms and found) and not (
            term or table or code or OWN_TERM.match(block)
        )
        if labelled:
            # a definition that opens with a line that is no sentence (a signature: ``window:
            # WINDOW``) goes on into the next paragraph, its description
            self.carry = not _ENDS_SENTENCE.search(found[0])
            found[0] = defined(self.terms, found[0])
            self.defined = name_of(self.terms)
        elif not carried:
            self.defined = ""
        self.terms = [*self.terms, found[0]] if term else []
        if table:
            self.rows.update(range(len(pieces), len(pieces) + len(found)))
        elif code:
            self.alone.update(range(len(pieces), len(pieces) + len(found)))
        pieces.extend(found)
        self.under.extend(self._under(found, table or code or labelled))
        self.attached.extend([code] * len(found))  # a block, kept at the window's end as attached
        self.b += 1
        self.found = found
        return table, code

    def _found(self, block: str, lines: list[str], table: bool, code: bool) -> list[str]:
        """The pieces of ``block``: a table's rows, code whole, prose's sentences; without the
        sentence the window began inside of."""
        if table:  # opening a continuation window, its header stayed in the window before
            read = table_rows(lines, headed=not (self.inside and self.b == 0))
            found = [r if FULL_STOP.search(r) else f"{r}." for r in read if r]
        elif code:  # whole, its lines kept; none when it is too long to quote
            found = [block] if len(block) <= MAX_BLOCK_CHARS else []
        elif names_unquoted_code(self.blocks, self.b):
            found = []  # the caption of such code: alone it names what the reply cannot show
        else:  # prose; wrapped by hand, an option table's entries begin sentences of their own
            found = [s for entry in entries(lines) for s in split_sentences(entry)]
        starts = STARTS_SENTENCE.match(block) and not (code and self.b == 0)
        if self.inside and found and not table and not starts:
            # the window's first sentence began in the window before: not quoted, nor what goes
            # on with it after a block (``ls 2>&1 > dirlist`` / "directs only the ...")
            self.inside = len(found) == 1 and not _ENDS_SENTENCE.search(found[0])
            return found[1:]
        self.inside = False
        return found

    def _after_code(self, found: list[str], block: str, table: bool, code: bool) -> None:
        """A sentence that tells what the block of code or command above it does ("This
        starts a new shell session ...", not one that ends in ``:``, introducing the block
        below it, nor one cut at the window's end) is taken from ``found`` into that block's
        piece: alone it does not say how."""
        if (
            self.code
            and found
            and not (table or code)
            and _BACK.match(found[0])
            and not found[0].endswith(":")
            and (len(found) > 1 or _ENDS_SENTENCE.search(found[0]))
        ):
            self.pieces[-1] = f"{self.pieces[-1]}\n{found.pop(0)}"
        # a block of code, or a command typed at a prompt on a line of its own
        one = len(found) == 1 and "\n" not in block.strip() and _PROMPT.match(block.strip())
        self.code = bool(found) and (code or (not table and bool(one)))

    def _under(self, found: list[str], kept: bool) -> list[str]:
        """The term each of a block's pieces stands under: the definition being read, or in a
        paragraph that opens with its term (a reader's ``-v: Verbose mode. Causes ssh to
        print debugging messages ...``, a Sphinx parameter's ``message (str) – The message
        to show. Defaults to ...``) that term; not for a table, code or a paragraph the
        labels above it define (``kept``)."""
        under = [self.defined] * len(found)
        first = "" if kept or self.defined or len(found) < 2 else found[0]
        own = own_term(first)
        if own:
            under = [own] * len(found)  # the first says it: a reply need not say it again
        return under

    def follow(self, table: bool, code: bool) -> None:
        """Take along what goes on from the block just read (it gave pieces): the block a
        sentence ending in ``:`` introduces, the description a term goes on into, the rest of
        a sentence written around a block, a lead-in's block, the block a sentence ends in."""
        blocks, pieces, b = self.blocks, self.pieces, self.b
        if (
            not (table or code)
            and len(self.found) == 1
            and self.found[0][:1].isupper()  # a title, not a word between two blocks ("or")
            and captions(blocks, b - 1)
            and not (b + 1 < len(blocks) and continues(blocks[b + 1]))  # a sentence around it
        ):
            # a title over a block of code is quoted with it (git's examples: "Undo commits
            # permanently" / ``$ git reset --hard HEAD~3``), as a sentence ending in ":" is
            self._attach(blocks[b])
            self.b = b + 1
            return
        if not code:
            self._take_introduced()
        if (
            not (table or code or self.attached[-1])
            and "\n" not in pieces[-1]
            and not _ENDS_SENTENCE.search(pieces[-1])
            and not reads_as_prose(pieces[-1])  # a list's items: "each ruleset contains ..."
            and self.b < len(blocks)
            and continues(blocks[self.b])
            and not inserted(blocks[self.b])
        ):
            # a line its description goes on from, as a definition list's term (Texinfo's
            # "'-i, --case-insensitive'" / "instructs flex to generate a case-insensitive
            # scanner.") or a command ("ls 2>&1 > dirlist" / "directs only ..."): one unit
            self._go_on(split_sentences(blocks[self.b]), "")
            self.b += 1
        # a sentence that goes on after the block below it ("the command", a command, "directs
        # only ...") is one unit with that block, to the end of its sentence; a single word
        # begins none (a code block's caption: "flaskr/db.py")
        open_ = " " in pieces[-1] and not (
            table or self.attached[-1] or _ENDS_SENTENCE.search(pieces[-1])
        )
        self._ends(self._around(open_))

    def _take_introduced(self) -> None:
        """After a sentence ending in ``:``, the block it introduces (up to
        :data:`MAX_BLOCK_CHARS`), the list's next items when that block is an item the list
        goes on from, and the sentence going on after it when it is code ("For example, the
        code:" / the code / "will run hasher to produce ..."), which may introduce code in
        turn ("which is equivalent to:")."""
        blocks = self.blocks
        while (
            self.pieces[-1].endswith(":")
            and self.b < len(blocks)
            and len(blocks[self.b]) <= MAX_BLOCK_CHARS
            and not names_unquoted_code(blocks, self.b)  # taken alone, it shows nothing
        ):
            introduced = self.b
            block, self.b = _introduced(blocks, introduced)
            self._attach(block)
            self._items_after(block)
            if not (self.b < len(blocks) and resumes(blocks[introduced], blocks[self.b])):
                return
            self._go_on(split_sentences(blocks[self.b]), "")
            self.b += 1

    def _items_after(self, item: str) -> None:
        """Take along the items a list goes on with after ``item`` ("The parent table does not
        exist, or" / "The parent key columns ... do not exist, or" / ...), up to its last,
        while all of them stay within :data:`MAX_BLOCK_CHARS`."""
        size = len(item)
        while (
            list_goes_on(item)
            and self.b < len(self.blocks)
            and list_item(self.blocks[self.b])
            and size + len(self.blocks[self.b]) <= MAX_BLOCK_CHARS
        ):
            item = self.blocks[self.b]
            size += len(item)
            self._attach(item)
            self.b += 1

    def _around(self, open_: bool) -> bool:
        """Take the sentence left open on through the blocks written inside it; whether it is
        still open."""
        blocks, b = self.blocks, self.b
        while open_ and b + 1 < len(blocks) and inserted(blocks[b]) and continues(blocks[b + 1]):
            self._go_on(split_sentences(blocks[b + 1]), blocks[b])
            b += 2
            open_ = not _ENDS_SENTENCE.search(self.pieces[-1])
        self.b = b
        return open_

    def _ends(self, open_: bool) -> None:
        """End a sentence left open in the block below it, when it goes on in a lead-in or
        cannot end where it stops."""
        blocks, b, piece = self.blocks, self.b, self.pieces[-1] if self.pieces else ""
        if (
            open_
            and b + 1 < len(blocks)
            and blocks[b].endswith(":")
            and continues(blocks[b])
            and inserted(blocks[b])
            and len(blocks[b + 1]) <= MAX_BLOCK_CHARS
        ):
            # a sentence going on in a lead-in that ends in ":" takes it and the block it
            # introduces (lighttpd's "file-extensions that are handled by a CGI program" /
            # "e.g.:" / ``cgi.assign = ( ".pl" => ...``): one unit, as after a ":"
            block, self.b = _introduced(blocks, b + 1)
            self._attach(f"{blocks[b]}\n{block}")
        elif (
            open_
            and len(WORD.findall(piece)) >= MIN_WORDS  # a label ("See also") ends in none
            and b < len(blocks)
            and inserted(blocks[b])
            and (needs_more(piece) or _PROMPT.match(blocks[b]) is not None)
        ):
            # a sentence that cannot end where it stops, or stops before a command typed at a
            # prompt, ends in the block below it, what goes on after that starting a sentence
            # of its own (R's manual: "the command is" / ``> help(solve)`` / "An alternative
            # is"; "use the R command" / ``> x <- c(10.4, 5.6)``): one unit, as after a ":"
            self._attach(blocks[b])
            self.b = b + 1

    def _attach(self, block: str) -> None:
        """The last piece takes ``block`` along, on a line of its own; it defines nothing."""
        self.pieces[-1] = f"{self.pieces[-1]}\n{block}"
        self.attached[-1] = True
        self.terms = []

    def _go_on(self, rest: list[str], middle: str) -> None:
        """The last piece goes on (past the ``middle`` block, if any) with the first of the
        sentences ``rest``; the others are pieces of their own."""
        between = f"{middle}\n" if middle else ""
        self.pieces[-1] = f"{self.pieces[-1]}\n{between}{rest[0]}"
        self.pieces.extend(rest[1:])
        self.under.extend([self.defined] * (len(rest) - 1))
        self.attached.extend([False] * (len(rest) - 1))
        self.terms = []  # a label that begins such a sentence ("For example") defines nothing


def _introduced(blocks: list[str], b: int) -> tuple[str, int]:
    """The block ``blocks[b]`` as a sentence ending in ``:`` takes it along (a table as its
    rows, as standing alone; a caption with the code it names, "Filename: src/main.rs"), and
    the place of the block after it."""
    lines = [ln for ln in blocks[b].splitlines() if ln.strip()]
    block = "\n".join(table_rows(lines)) if is_table(lines) else blocks[b]
    if captions(blocks, b):
        return f"{block}\n{blocks[b + 1]}", b + 2
    return block, b + 1
