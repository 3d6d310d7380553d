"""How the extractive answer cuts prose into sentences: after ``. ! ?`` (and a closing quote
or bracket) and a space, unless the sentence goes on (an abbreviation, a page reference, a
mark standing alone). Pure functions; :mod:`docqa.models.units` builds its units on them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from docqa.models.blocks import is_table, table_rows

# the space after ". ! ?" and up to two closing quotes or brackets, which stay with the sentence
_SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')\]])|(?<=[.!?][\"')\]][\"')\]]))\s+")
# Words ending in "." that do not end a sentence: "e.g. the", "eg. 20", "etc. and", "vs. dict".
_ABBREVIATIONS = frozenset([
    "e.g", "eg", "i.e", "ie", "viz", "etc", "vs", "cf", "al", "approx", "incl", "resp", "fig",
    "no", "sec", "ch",
])  # fmt: skip
_MARK_GOES_ON = re.compile(r"(?:[!?]|\.\.\.)[\"')\]]*$")


def split_sentences(block: str) -> list[str]:
    """The sentences of one paragraph, whitespace collapsed: split after ``. ! ?`` (and a
    closing quote or bracket) and space, unless the sentence goes on (:func:`_goes_on`)."""
    out: list[str] = []
    for piece in _SENTENCE_END.split(" ".join(block.split())):
        if out and _goes_on(out[-1], piece):
            out[-1] = f"{out[-1]} {piece}"
        elif piece:
            out.append(piece)
    return out


def _goes_on(before: str, piece: str) -> bool:
    """Whether ``piece`` continues the sentence ``before`` that the split ended: after an
    abbreviation ("(e.g."), a page's ("see multiple keys (p. 123)", LaTeX's manuals), a mark
    standing alone ("the ? operator"), or a "!", "?" or "..." before a lower-case word
    ("calling panic! or returning", "works? not")."""
    last = before.rsplit(" ", 1)[-1]
    word = last.lower().strip("([{\"'.")
    if word in _ABBREVIATIONS or last in (".", "!", "?"):
        return True
    if word in ("p", "pp") and piece[:1].isdigit():
        return True
    return piece[:1].islower() and _MARK_GOES_ON.search(before) is not None


def sentences(text: str) -> Iterator[str]:
    """The sentences of ``text``: paragraphs (split at blank lines) split as :func:`split_sentences`
    does; a table (lines starting with ``|``)
    gives one sentence per row; whitespace inside a sentence collapsed; empty pieces skipped."""
    for block in re.split(r"\n\s*\n", text):
        lines = [ln for ln in block.splitlines() if ln.strip()]
        if is_table(lines):
            yield from table_rows(lines)
        elif lines:
            yield from split_sentences(block)
