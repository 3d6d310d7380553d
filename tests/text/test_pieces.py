"""A long section windowed a piece at a time (``SectionPieces`` and ``section_windows``'
``rest``) gives the windows of the whole section; ``record_parts`` that cut sections so give
``chunk_records``' bytes; the blocks behind the pieces are let go."""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa._parse import section_windows
from docqa.text.documents import Block, Document, Line, Section
from docqa.text.pieces import SectionPieces
from docqa.text.records import chunk_records, record_parts

SPACES = " \t\x0b\x1c\x85\xa0\u2028\u3000"
WORD = st.text(alphabet=st.sampled_from(["a", "Z", "é", "中", "😀", "|"]), min_size=1, max_size=3)
GLUE = st.text(alphabet=st.sampled_from(list(SPACES)), min_size=1, max_size=2)


@st.composite
def line_texts(draw: st.DrawFn) -> str:
    """Words between runs of whitespace, with or without whitespace at either end."""
    words = draw(st.lists(WORD, max_size=14))
    glue = [draw(GLUE) for _ in range(len(words) + 1)]
    ends = draw(st.tuples(st.booleans(), st.booleans()))
    inner = "".join(w + g for w, g in zip(words, glue[1:-1], strict=False)) + (
        words[-1] if words else ""
    )
    return (glue[0] if ends[0] else "") + inner + (glue[-1] if ends[1] else "")


@st.composite
def bodies(draw: st.DrawFn) -> tuple[Block, ...]:
    blocks, number = [], 1
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["text", "text", "table", "code"]))
        lines = []
        for _ in range(draw(st.integers(1, 5))):
            lines.append(Line(number, draw(line_texts())))
            number += draw(st.integers(1, 2))
        blocks.append(Block(kind, tuple(lines)))
    return tuple(blocks)


def in_pieces(
    blocks: tuple[Block, ...], max_words: int, overlap: int, chars: int | None, lazy: bool = False
) -> tuple[list[Any], int]:
    """The windows of ``blocks`` made piece by piece (``lazy``: the blocks given as an
    iterator), and how many pieces were windowed."""
    pieces, windows, count = SectionPieces(iter(blocks) if lazy else blocks, chars), [], 0
    while not pieces.done:
        piece, rest = pieces.next()
        got = section_windows(piece, max_words, overlap, rest)
        pieces.took(len(got), rest)
        windows += got
        count += 1
    return windows, count


@settings(max_examples=400, deadline=None)
@given(bodies(), st.integers(1, 10), st.data(), st.integers(1, 60), st.booleans())
def test_windows_in_pieces_are_the_whole_sections(
    blocks: tuple[Block, ...], max_words: int, data: st.DataObject, chars: int, lazy: bool
) -> None:
    overlap = data.draw(st.integers(0, max_words - 1))
    windows, _ = in_pieces(blocks, max_words, overlap, chars, lazy)
    assert windows == section_windows(blocks, max_words, overlap)


def test_a_long_line_is_cut_between_words_and_windowed_the_same() -> None:
    words = [f"w{i}" for i in range(1000)]
    blocks = (
        Block("text", (Line(1, "  ".join(words)), Line(2, "tail end"))),
        Block("code", (Line(4, "x = 1"), Line(5, ""), Line(6, "  ".join(words[:30])))),
    )
    for max_words, overlap, chars in ((10, 3, 37), (7, 0, 5), (40, 39, 100), (120, 0, None)):
        for lazy in (False, True):
            windows, count = in_pieces(blocks, max_words, overlap, chars, lazy)
            assert windows == section_windows(blocks, max_words, overlap)
            assert count > 10 or chars is None


def test_one_piece_is_the_sections_own_blocks() -> None:
    blocks = (Block("text", (Line(1, "a b c"),)),)
    for chars in (None, 5):
        pieces = SectionPieces(blocks, chars)
        assert pieces.next() == (blocks, None)
        assert SectionPieces(iter(blocks), chars).next() == (blocks, None)


def test_blocks_given_as_an_iterator_are_taken_as_the_pieces_need_them() -> None:
    taken: list[int] = []

    def blocks() -> Iterator[Block]:
        for i in range(1, 60):
            taken.append(i)
            yield Block("text", (Line(i, "a b c d e f"),))

    pieces = SectionPieces(blocks(), 40)  # 11 characters a block: 4 make a piece
    while not pieces.done:
        piece, rest = pieces.next()
        assert len(taken) <= piece[-1].lines[-1].number + 1  # at most one block ahead
        pieces.took(len(section_windows(piece, 4, 1, rest)), rest)
    assert len(taken) == 59


def consumed(blocks: list[Block]) -> Iterator[Block]:
    """``blocks`` in order, each let go by the list as it is given."""
    blocks.reverse()
    while blocks:
        yield blocks.pop()


@pytest.mark.parametrize("lazy", [False, True])
def test_the_blocks_behind_the_pieces_are_let_go(lazy: bool) -> None:
    class Tracked(Block):  # a Block that a weak reference can follow
        pass

    blocks = tuple(Tracked("text", (Line(i, "a b c d e f"),)) for i in range(1, 60))
    refs = [weakref.ref(b) for b in blocks]
    pieces = SectionPieces(consumed(list(blocks)) if lazy else blocks, 40)
    del blocks
    moved = 0
    while not pieces.done:
        piece, rest = pieces.next()
        n = len(section_windows(piece, 4, 1, rest))
        del piece
        pieces.took(n, rest)
        behind = pieces.at.block if not pieces.done else len(refs)
        assert all(r() is None for r in refs[:behind])
        moved = max(moved, behind)
    assert moved == len(refs)


@st.composite
def documents(draw: st.DrawFn) -> Document:
    sections = []
    for i in range(draw(st.integers(1, 3))):
        level = draw(st.integers(0 if i == 0 else 1, 2))
        sections.append(Section(f"S{i}" if level else "", level, 1, 9, draw(bodies())))
    return Document("notes/a.txt", "A", tuple(sections), {"format": "text"})


@settings(max_examples=200, deadline=None)
@given(documents(), st.integers(1, 8), st.data(), st.integers(1, 50), st.booleans())
def test_records_in_parts_are_the_whole_documents(
    doc: Document, max_words: int, data: st.DataObject, part_chars: int, headings: bool
) -> None:
    overlap = data.draw(st.integers(0, max_words - 1))
    titles: list[str] = []
    whole = chunk_records(doc, max_words=max_words, overlap=overlap, headings=headings,
                          titles=titles)  # fmt: skip
    parts = list(record_parts(doc, max_words, overlap, headings, part_chars))
    assert [r for p in parts for r in p.records] == whole[0]
    assert [t for p in parts for t in p.texts] == whole[1]
    assert [t for p in parts for t in p.titles] == titles


def test_a_rest_that_goes_back_is_refused() -> None:
    pieces = SectionPieces((Block("text", (Line(1, "a b c d e f g h"),)),), 3)
    piece, rest = pieces.next()
    assert rest == [] and piece == (Block("text", (Line(1, "a b"),)),)
    with pytest.raises(RuntimeError, match="went back"):
        pieces.took(1, [0, 0, 0])  # no further than where the piece starts: it would loop
