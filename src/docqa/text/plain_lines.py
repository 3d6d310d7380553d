"""A plain text's lines and paragraphs, split a slice of the text at a time. Pure.

``paragraphs(text)`` gives the runs of non-blank lines of ``strip_terminal(text)``, each line
numbered as ``str.splitlines`` counts them, without holding the lines of the whole text: the
text is split a slice of about ``SLICE`` characters at a time, each slice cut after a
``"\\n"``. No line ends inside a slice but at a line break, no ``"\\r\\n"`` is cut in two, and
neither an escape nor an overstrike (which hold no ``"\\n"``) spans two slices, so the lines
are those of the whole text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# What a terminal formatter leaves in text saved from it (man-db's manual as Debian ships it,
# a man page saved without `col -b`): SGR escapes (ESC [ 1 m bold, ESC [ 4 m underline) and
# overstrikes (a character, a backspace, then the character shown: "_\bX", "X\bX").
_TERMINAL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[^\n]\x08")
SLICE = 1 << 20
Paragraph = list[tuple[int, str]]
"""A paragraph's lines as ``(1-based line number, the line as written)``."""


def strip_terminal(text: str) -> str:
    """``text`` without a terminal's SGR escapes and overstrikes (newlines untouched)."""
    if "\x1b" not in text and "\x08" not in text:
        return text
    return _TERMINAL.sub("", text)


def lines(text: str) -> Iterator[str]:
    """``strip_terminal(text).splitlines()``, split a slice at a time (module doc)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start + SLICE) + 1 or len(text)
        yield from strip_terminal(text[start:end]).splitlines()
        start = end


def paragraphs(text: str) -> Iterator[Paragraph]:
    """The runs of non-blank lines of ``text`` (blank: nothing but whitespace), in order."""
    paragraph: Paragraph = []
    for number, raw in enumerate(lines(text), start=1):
        if raw and not raw.isspace():  # ``raw.strip()``, without making the stripped line
            paragraph.append((number, raw))
        elif paragraph:
            yield paragraph
            paragraph = []
    if paragraph:
        yield paragraph
