"""chunk_words and window_starts: worked checks and properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docqa.errors import InputError
from docqa.text import chunk_words
from docqa.text.windows import min_tail, window_starts


def numbered(n: int) -> str:
    return " ".join(f"w{i}" for i in range(n))


@st.composite
def window_args(draw: st.DrawFn) -> tuple[int, int, int]:
    size = draw(st.integers(1, 40))
    overlap = draw(st.integers(0, size - 1))
    n = draw(st.integers(0, 300))
    return n, size, overlap


# --- worked checks ------------------------------------------------------------------------


def test_thousand_words_in_windows_of_200_overlap_50() -> None:
    chunks = chunk_words(numbered(1000), 200, 50)
    assert window_starts(1000, 200, 50) == [0, 150, 300, 450, 600, 750, 900]
    assert len(chunks) == 7
    assert sum(len(c.split()) for c in chunks) == 1300
    assert [c.split()[0] for c in chunks] == [f"w{s}" for s in range(0, 901, 150)]
    assert chunks[-1].split()[-1] == "w999"


def test_exactly_one_window_of_words() -> None:
    assert chunk_words(numbered(200), 200, 50) == [numbered(200)]


def test_small_example() -> None:
    assert chunk_words("a b c d e f", 4, 2) == ["a b c d", "c d e f"]


def test_blank_and_short_text() -> None:
    assert chunk_words("", 4, 2) == []
    assert chunk_words(" \n\t ", 4, 2) == []
    assert chunk_words("a  b\nc", 10, 0) == ["a b c"]


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (-3, 0), (5, -1), (5, 5), (5, 9)])
def test_bad_window_raises_naming_values(size: int, overlap: int) -> None:
    with pytest.raises(ValueError, match=rf"size={size} and overlap={overlap}") as info:
        chunk_words("a b c", size, overlap)
    assert isinstance(info.value, InputError)


# --- chunk_words properties ---------------------------------------------------------------


@given(window_args())
def test_chunk_words_properties(args: tuple[int, int, int]) -> None:
    n, size, overlap = args
    chunks = chunk_words(numbered(n), size, overlap)
    windows = [[int(w[1:]) for w in c.split()] for c in chunks]
    step = size - overlap
    if n == 0:
        assert chunks == []
        return
    greedy = 1 if n <= size else 1 + math.ceil((n - size) / step)
    # the greedy cut's last window joins the one before when it adds fewer than min_tail words
    short = greedy > 1 and n - ((greedy - 2) * step + size) < min_tail(size)
    assert len(chunks) == greedy - short
    for k, window in enumerate(windows):
        assert window[0] == k * step  # starts at multiples of size - overlap
        assert window == list(range(window[0], window[0] + len(window)))  # contiguous
        if k < len(windows) - 1:
            assert len(window) == size  # only the last may be shorter or longer
    assert len(windows[-1]) <= size + max(min_tail(size) - 1, 0)
    assert windows[-1][-1] == n - 1  # the last window reaches the end
    if len(windows) > 1:  # ... and adds min_tail words to the one before, or a step and more
        assert windows[-1][-1] - windows[-2][-1] >= max(min(min_tail(size), step), 1)
    assert set().union(*map(set, windows)) == set(range(n))  # every word covered
