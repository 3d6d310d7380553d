"""Fixed word windows (the section chunker cuts long sections with them). Pure functions.

Words are the whitespace-separated runs of ``str.split()``; chunk texts join words with single
spaces, so whitespace is normalised.
"""

from __future__ import annotations

from docqa.errors import InputError

# The default window: a section longer than this many words is cut into windows of at most
# this many. Chosen leaving one collection out over twelve (80 to 600 words; every one left
# out picked 300): against 120, MiniLM hybrid recall@5 0.893 -> 0.915, the extractive
# answer's key fact 0.519 -> 0.565 with MiniLM and 0.492 -> 0.518 by words alone, BM25's
# recall@5 0.840 -> 0.833 (docs/notes/2026-12-06-answers.md). MiniLM reads a window's
# first 256 word pieces (about 190 words).
MAX_WORDS = 300


def min_tail(max_words: int) -> int:
    """The fewest words a section's last window adds to the one before it (a sixth of a
    window: 50 words at ``MAX_WORDS``); a last window of fewer joins the one before, so that no
    passage is a sentence's last words cut off from it ("format.", "version 3.4.", "}"), while
    the window before stays at most ``max_words + min_tail(max_words) - 1`` words."""
    return max_words // 6


def check_window(size_name: str, size: int, overlap_name: str, overlap: int) -> None:
    """Raise ``InputError`` (a ``ValueError``) naming both values when they cannot window."""
    if size < 1 or overlap < 0 or overlap >= size:
        raise InputError(
            f"cannot cut windows with {size_name}={size} and {overlap_name}={overlap}: "
            f"need {size_name} >= 1 and 0 <= {overlap_name} < {size_name}"
        )


def window_starts(n_words: int, size: int, overlap: int) -> list[int]:
    """Start offsets of the windows ``chunk_words`` cuts from ``n_words`` words.

    Windows start ``size - overlap`` apart, from 0, until one reaches the last word:
    ``[]`` for 0 words, ``[0]`` when ``n_words <= size``, else
    ``1 + ceil((n_words - size) / (size - overlap))`` starts, less the last when it adds fewer
    than ``min_tail(size)`` words to the window before (which then runs to the last word).
    """
    check_window("size", size, "overlap", overlap)
    if n_words <= 0:
        return []
    step = size - overlap
    starts = [0]
    while starts[-1] + size < n_words:
        starts.append(starts[-1] + step)
    if len(starts) > 1 and n_words - (starts[-2] + size) < min_tail(size):
        starts.pop()
    return starts


def chunk_words(text: str, size: int, overlap: int) -> list[str]:
    """Cut ``text`` into windows of ``size`` words, each starting ``size - overlap`` words on.

    Raises ``InputError`` (a ``ValueError``) naming the values when ``size < 1``,
    ``overlap < 0`` or ``overlap >= size``. Blank text gives ``[]``; text of at most ``size``
    words gives one chunk; the last window ends at the last word, and a last window that would
    add fewer than ``min_tail(size)`` words to the one before is part of that one.
    Example: ``chunk_words("a b c d e f", 4, 2) == ["a b c d", "c d e f"]``; 1,000 words,
    200, 50 give 7 windows starting 0, 150, ..., 900; 1,010 words, 200, 0 give 5, the last
    of 210 words.
    """
    check_window("size", size, "overlap", overlap)
    words = text.split()
    starts = window_starts(len(words), size, overlap)
    ends = [start + size for start in starts]
    if ends:
        ends[-1] = len(words)  # the last window runs to the end (it may hold a short tail)
    return [" ".join(words[start:end]) for start, end in zip(starts, ends, strict=True)]
