"""Numbered source lines, as the line readers (reStructuredText, AsciiDoc) hold a file: each
line's 1-based number with its text (tabs expanded, trailing blanks stripped), and the
indentation rules they share."""

from __future__ import annotations

Lines = list[tuple[int, str]]


def indent(text: str) -> int:
    """The number of spaces ``text`` starts with."""
    return len(text) - len(text.lstrip(" "))


def dedent(lines: Lines) -> Lines:
    """``lines`` with their common indentation removed (blank lines kept, as ``""``)."""
    margin = min((indent(t) for _, t in lines if t), default=0)
    return [(n, t[margin:]) for n, t in lines]


def numbered(text: str) -> Lines:
    """``text``'s lines with their numbers, tabs expanded to every 8th column and trailing
    blanks stripped."""
    return [(n, raw.expandtabs(8).rstrip()) for n, raw in enumerate(text.splitlines(), start=1)]
