"""Plain-text chunkers: fixed word windows and paragraph packing. Pure functions, text in.

Words are the whitespace-separated runs of ``str.split()``; chunk texts join words with single
spaces (and paragraphs with one blank line), so whitespace is normalised.
"""

from __future__ import annotations

from docqa.errors import InputError


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
    ``1 + ceil((n_words - size) / (size - overlap))`` starts.
    """
    check_window("size", size, "overlap", overlap)
    if n_words <= 0:
        return []
    step = size - overlap
    starts = [0]
    while starts[-1] + size < n_words:
        starts.append(starts[-1] + step)
    return starts


def chunk_words(text: str, size: int, overlap: int) -> list[str]:
    """Cut ``text`` into windows of ``size`` words, each starting ``size - overlap`` words on.

    Raises ``InputError`` (a ``ValueError``) naming the values when ``size < 1``,
    ``overlap < 0`` or ``overlap >= size``. Blank text gives ``[]``; text of at most ``size``
    words gives one chunk; the last window ends at the last word and always holds at least one
    word the previous window did not. Example: ``chunk_words("a b c d e f", 4, 2) ==
    ["a b c d", "c d e f"]``; 1,000 words, 200, 50 give 7 windows starting 0, 150, ..., 900.
    """
    check_window("size", size, "overlap", overlap)
    words = text.split()
    starts = window_starts(len(words), size, overlap)
    return [" ".join(words[start : start + size]) for start in starts]


def _paragraph_units(text: str, max_words: int, overlap_words: int) -> list[list[tuple[str, int]]]:
    """Paragraphs (split on blank lines) as lists of ``(word, paragraph index)``.

    A paragraph longer than ``max_words`` is cut into consecutive pieces, each a unit of its
    own: the first of ``max_words`` words, the next of ``max_words - overlap_words`` (so each
    fits after a full carry), the last one possibly shorter.
    """
    units: list[list[tuple[str, int]]] = []
    paragraph: list[str] = []
    index = 0
    for line in [*text.splitlines(), ""]:
        if line.strip():
            paragraph.extend(line.split())
            continue
        if paragraph:
            cuts = [0, *range(max_words, len(paragraph), max_words - overlap_words)]
            for start, end in zip(cuts, [*cuts[1:], len(paragraph)], strict=True):
                units.append([(w, index) for w in paragraph[start:end]])
            paragraph = []
            index += 1
    return units


def _join(words: list[tuple[str, int]]) -> str:
    """Words with single spaces inside a paragraph and a blank line between paragraphs."""
    parts: list[str] = []
    previous = None
    for word, paragraph in words:
        if parts:
            parts.append(" " if paragraph == previous else "\n\n")
        parts.append(word)
        previous = paragraph
    return "".join(parts)


def pack_paragraphs(text: str, max_words: int, overlap_words: int) -> list[str]:
    """Pack whole paragraphs into chunks of at most ``max_words`` words, with carried overlap.

    Paragraphs are separated by blank lines. They are added to the current chunk while it stays
    within ``max_words``; the next chunk then starts with the last ``overlap_words`` words of the
    one before (fewer when the carry and the next paragraph would not fit together). A paragraph
    longer than ``max_words`` is cut first so that, on its own, it packs exactly like
    ``chunk_words(paragraph, max_words, overlap_words)``. Every chunk has
    at most ``max_words`` words and at least one word the previous chunk did not; every word is
    in some chunk; blank text gives ``[]``. Raises ``InputError`` (a ``ValueError``) naming the
    values when ``max_words < 1``, ``overlap_words < 0`` or ``overlap_words >= max_words``.
    """
    check_window("max_words", max_words, "overlap_words", overlap_words)
    chunks: list[str] = []
    current: list[tuple[str, int]] = []
    fresh = 0
    for unit in _paragraph_units(text, max_words, overlap_words):
        if fresh and len(current) + len(unit) > max_words:
            chunks.append(_join(current))
            keep = min(overlap_words, max_words - len(unit))
            current = current[len(current) - keep :] if keep > 0 else []
            fresh = 0
        current.extend(unit)
        fresh += len(unit)
    if fresh:
        chunks.append(_join(current))
    return chunks
