"""The native section windows (``docqa._parse.section_windows``, used by ``chunk_document``)
equal the Python reference (``windows_reference``: ``_Units`` + ``window_bounds`` +
``render``) on generated sections and on every section of the sample library, and so does
where the last window starts when the blocks are only a section's start (``rest``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from docqa._parse import section_windows
from docqa.text.documents import Block, Line, Section
from docqa.text.loaders import load_paths
from docqa.text.sections import windows_reference

ROOT = Path(__file__).resolve().parents[2]
WORDS = st.lists(st.sampled_from(["loan", "fee", "é", "x_y", "3.5", "|", "a-b"]), max_size=9)


@st.composite
def sections(draw: st.DrawFn) -> Section:
    blocks = []
    number = 1
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["text", "table", "code"]))
        lines = []
        for _ in range(draw(st.integers(1, 5))):
            words = draw(WORDS)
            if kind == "text" and not words:
                continue  # a prose line always has text
            glue = " " if kind == "text" else draw(st.sampled_from([" ", "  ", " | "]))
            lines.append(Line(number, glue.join(words)))
            number += draw(st.integers(1, 3))
        if lines:
            blocks.append(Block(kind, tuple(lines)))
    first = blocks[0].lines[0].number if blocks else 1
    return Section("Head", 2, first, number, tuple(blocks))


@settings(max_examples=300, deadline=None)
@given(sections(), st.integers(1, 30), st.data())  # up to 30: a last window of 1-4 words joins
def test_generated_sections_window_the_same(
    section: Section, max_words: int, data: st.DataObject
) -> None:
    windows_equal(section, max_words, data)


def windows_equal(section: Section, max_words: int, data: st.DataObject) -> list[Any]:
    """The native windows of ``section`` at a drawn overlap, checked equal to the reference,
    and so are both without the last window, and where that one starts (``rest``)."""
    overlap = data.draw(st.integers(0, max_words - 1))
    native = section_windows(section.blocks, max_words, overlap)
    assert native == windows_reference(section, max_words, overlap)
    rest: list[int] = [9, 9, 9]
    reference_rest: list[int] = []
    start = section_windows(section.blocks, max_words, overlap, rest)
    assert start == windows_reference(section, max_words, overlap, reference_rest)
    assert rest == reference_rest
    assert start == native[:-1]
    return native


def test_a_short_last_window_joins_the_one_before_in_both_twins() -> None:
    # at 12 words a last window must add 2 (docqa.text.windows.min_tail): 13 words are one
    # window, 14 two, and windowed a piece at a time the first is left for the next piece
    for n, expected, rest_at in ((13, [13], [0, 0, 0]), (14, [12, 2], [0, 0, 24])):
        section = Section("Head", 2, 1, 2, (Block("text", (Line(1, " ".join(["w"] * n)),)),))
        native = section_windows(section.blocks, 12, 0)
        assert native == windows_reference(section, 12, 0)
        assert [len(text.split()) for text, _, _ in native] == expected
        rest: list[int] = []
        assert section_windows(section.blocks, 12, 0, rest) == native[:-1]
        assert rest == rest_at  # the last window's first word: line 0, code point 24


def test_sample_library_sections_window_the_same() -> None:
    documents, _ = load_paths([ROOT / "examples" / "library"])
    checked = 0
    for document in documents:
        for section in document.sections:
            for max_words, overlap in ((120, 0), (20, 5), (3, 2), (1, 0)):
                got = section_windows(section.blocks, max_words, overlap)
                assert got == windows_reference(section, max_words, overlap)
                checked += len(got)
    assert checked > 100


def test_no_blocks_give_no_window() -> None:
    assert section_windows((), 10, 0) == []
    rest = [5]
    assert section_windows((), 10, 0, rest) == [] and rest == [0, 0, 0]


def test_the_rest_is_where_the_last_window_starts() -> None:
    blocks = (
        Block("text", (Line(1, "a b c d e f g"), Line(2, "  h i jé k"))),
        Block("code", (Line(4, "x y"),)),
    )
    rest: list[int] = []
    assert section_windows(blocks, 3, 1, rest) == [
        ("a b c", 1, 1), ("c d e", 1, 1), ("e f g", 1, 1), ("g h i", 1, 2), ("i jé k", 2, 2)
    ]  # fmt: skip
    assert rest == [0, 1, 9]  # "k", code point 9 of line 2: the window "k\n\nx y" is left out
    code = (Block("code", (Line(4, "x y"), Line(5, "z"))),)
    assert section_windows(code, 2, 0, rest) == [("x y", 4, 4)]
    assert rest == [0, 1, 0]  # code line "z", whole


# every kind of whitespace ``str.split()`` splits on (ASCII, the C0 separators, NEL, NBSP,
# ideographic space, line/paragraph separators), next to 1-, 2- and 4-byte characters
SPACES = " \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u200a\u2028\u2029\u202f\u3000"
ODD_TEXT = st.text(alphabet=st.sampled_from([*SPACES, "a", "Z", "é", "ÿ", "ŀ", "中", "😀", "|"]))


@st.composite
def odd_sections(draw: st.DrawFn) -> Section:
    blocks = []
    for b in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["text", "table", "code"]))
        lines = tuple(Line(10 * b + i + 1, draw(ODD_TEXT)) for i in range(draw(st.integers(1, 4))))
        blocks.append(Block(kind, lines))
    return Section("Head", 2, 1, 100, tuple(blocks))


@settings(max_examples=400, deadline=None)
@given(odd_sections(), st.integers(1, 8), st.data())
def test_any_whitespace_and_width_window_the_same(
    section: Section, max_words: int, data: st.DataObject
) -> None:
    for text, _, _ in windows_equal(
        section, max_words, data
    ):  # canonical strings: as narrow as their widest character
        assert text.encode("utf-32-le").decode("utf-32-le") == text
