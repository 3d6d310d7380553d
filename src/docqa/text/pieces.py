"""A long section windowed a piece at a time, so that its units and windows are held a piece
at a time too. Pure.

``section_windows(blocks, ..., rest=[])`` windows the start of a section, leaves out its last
window (the units after ``blocks`` could lengthen it) and says where that window starts.
``SectionPieces`` gives the section's blocks from there on, about ``chars`` characters of
them, and moves on by what each piece's windowing left in ``rest``: the windows of piece
after piece are the windows of the whole section, the same texts, line numbers and order
(tested, with pieces cut mid-paragraph and mid-line). The blocks it has moved past are let go.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from docqa.text.documents import Block, Line

_SPACE = re.compile(r"\s")  # the whitespace ``str.split()`` splits on


@dataclass(frozen=True, slots=True, order=True)
class Cursor:
    """Where the next piece starts: a block, a line in it, a code-point offset in its text."""

    block: int = 0
    line: int = 0
    offset: int = 0

    def moved(self, rest: list[int]) -> Cursor:
        """The cursor at ``rest`` (``[block, line, offset]`` in the piece that starts here)."""
        block, line, offset = rest
        if block:
            return Cursor(self.block + block, line, offset)
        if line:
            return Cursor(self.block, self.line + line, offset)
        return Cursor(self.block, self.line, self.offset + offset)


class SectionPieces:
    """A section's blocks in pieces of about ``chars`` characters (``None``: one piece).

    ``blocks`` is the section's blocks, or an iterator of them taken as the pieces need them
    (a section read as it is chunked: ``plain.text_bodies``). ``next()`` gives the next piece
    and the ``rest`` list to window it with (``None`` for the last piece, which ends the
    section); ``took(windows, rest)`` moves past the windows made of it. A piece holds whole
    lines from the cursor while it is under ``chars`` characters; the prose line that takes it
    past them ends at the first whitespace from there (a table row or code line is whole).
    When a piece gives no window, the next is twice as long.
    """

    __slots__ = ("_base", "_blocks", "_chars", "_given", "_more", "at", "chars", "done", "size")

    def __init__(self, blocks: tuple[Block, ...] | Iterator[Block], chars: int | None) -> None:
        self._given: tuple[Block, ...] | Iterator[Block] | None = blocks  # until the start
        self._more: Iterator[Block] | None = None  # the blocks given not taken yet
        self._blocks: list[Block] = []  # from block ``_base`` of the section on
        self._base = 0
        self._chars = chars
        self.chars = chars
        self.at = Cursor()
        self.done = False
        self.size = 0  # characters of the last piece's lines

    def next(self) -> tuple[tuple[Block, ...], list[int] | None]:
        """The next piece, and its ``rest`` list (``None``: the piece is the section's end)."""
        if self._given is not None:
            given, self._given = self._given, None
            whole = self._start(given)
            del given  # the blocks behind the cursor go as it moves
            if whole is not None:
                return whole, None  # the section in one piece
        blocks, last = self._piece()
        self.size = _chars(blocks)
        return blocks, None if last else []

    def _start(self, given: tuple[Block, ...] | Iterator[Block]) -> tuple[Block, ...] | None:
        """The section's blocks when they are one piece (its own blocks when given whole),
        else None: the blocks are then held from the start, as many as the first piece may
        need when given an iterator."""
        if isinstance(given, tuple):
            self.size = _chars(given)
            if self.chars is None or self.size <= self.chars:
                return given
            self._blocks = list(given)
            return None
        self.size = 0
        for block in given:
            self._blocks.append(block)
            self.size += _chars((block,))
            if self.chars is not None and self.size > self.chars:
                self._more = given
                return None
        whole, self._blocks = tuple(self._blocks), []
        return whole

    def took(self, windows: int, rest: list[int] | None) -> None:
        """Move past the piece just given, which made ``windows`` windows and left ``rest``."""
        if rest is None:
            self.done = True
            self._blocks, self._more = [], None
        elif windows == 0:
            assert self.chars is not None  # a piece of no size limit is the last
            self.chars *= 2
        else:
            moved = self.at.moved(rest)
            if moved <= self.at:  # a window that starts before its predecessor: a bug
                raise RuntimeError(f"windows went back to {moved} from {self.at}")
            self.at, self.chars = moved, self._chars
            del self._blocks[: self.at.block - self._base]  # let go of what is behind
            self._base = self.at.block

    def _piece(self) -> tuple[tuple[Block, ...], bool]:
        """The blocks from the cursor on (``next``), and whether they end the section."""
        b, i, offset = self.at.block - self._base, self.at.line, self.at.offset
        room = self.chars
        out: list[Block] = []
        while self._has(b):
            block = self._blocks[b]
            lines: list[Line] = []
            while i < len(block.lines) and (room is None or room > 0):
                line = block.lines[i]
                end = _line_end(line.text, offset, room, block.kind == "text")
                lines.append(line if (offset, end) == (0, len(line.text)) else
                             Line(line.number, line.text[offset:end]))  # fmt: skip
                if room is not None:
                    room -= end - offset
                if end < len(line.text):
                    return (*out, Block(block.kind, tuple(lines))), False
                i, offset = i + 1, 0
            if lines:
                whole = len(lines) == len(block.lines) and lines[0] is block.lines[0]
                out.append(block if whole else Block(block.kind, tuple(lines)))
            if i < len(block.lines):
                return tuple(out), False
            b, i = b + 1, 0
        return tuple(out), True

    def _has(self, b: int) -> bool:
        """Whether the section has a block ``b`` (in ``_blocks``), taking it from the
        iterator given when it is not held yet."""
        if b < len(self._blocks):
            return True
        block = next(self._more, None) if self._more is not None else None
        if block is None:
            return False
        self._blocks.append(block)
        return True


def _chars(blocks: tuple[Block, ...]) -> int:
    """Characters of ``blocks``' lines."""
    return sum(len(line.text) for block in blocks for line in block.lines)


def _line_end(text: str, offset: int, room: int | None, prose: bool) -> int:
    """Where a piece's part of line ``text`` from ``offset`` ends: the line's end, or for a
    prose line longer than ``room``, the first whitespace ``room`` characters on or later."""
    if room is None or not prose or len(text) - offset <= room:
        return len(text)
    space = _SPACE.search(text, offset + room)
    return space.start() if space is not None else len(text)
