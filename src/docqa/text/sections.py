"""Section chunking: a ``Document`` in, ``Chunk``s out, one or more per section. Pure.

Rules:

- section id: ``<source without extension>#<slug>`` (the source whole for a file whose ids keep
  their suffix: ``Document.ids``); the slug is the heading lower-cased, runs
  of non-alphanumerics turned into one ``-``, stripped of ``-`` at both ends (``"section"``
  when nothing is left); a slug already used in the page gets ``-2``, ``-3``, ...; the text
  before the first heading is the section ``intro`` (a .txt file is one ``intro`` section);
- heading path: ``(page title, section, subsection, ...)``; a top heading equal to the page
  title is not repeated;
- a section of at most ``max_words`` words is one chunk whose id is the section id; a longer
  one is cut into windows of at most ``max_words`` words sharing ``overlap`` words, but a last
  window that would add fewer than ``min_tail(max_words)`` words (a sixth of a window) is
  part of the one before; window ids are the section id, then ``-p2``, ``-p3``, ...; all keep
  ``section`` = the section id;
- prose may be cut between any two words, but a table row or a code line is never split: it is
  one unit, and a single unit longer than ``max_words`` becomes a chunk of its own;
- a heading with no body gives no chunk.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import MappingProxyType

from docqa._parse import section_windows
from docqa.errors import InputError
from docqa.text.documents import Document, LoadReport, Section, page_heading
from docqa.text.ids import id_base
from docqa.text.loaders import load_paths
from docqa.text.windows import MAX_WORDS, check_window, min_tail
from docqa.types import Chunk

INTRO_SLUG = "intro"
# How many times a chunk's heading path counts in its BM25 row: the heading is a title field
# weighted 2 against the body, by repetition (BM25F weights fields so; a heading names what
# its section is about in the fewest words). Measured on seven collections, keyword mode
# (docs/notes/2026-12-semantic.md, "Headings count twice"): recall@5 and MRR@10 the same or better on
# each but one MRR (-0.004); 3 cost recall on one. The embedder sees the heading once.
HEADING_WEIGHT = 2
_NOT_ALNUM = re.compile(r"[\W_]+")


@functools.lru_cache(maxsize=8192)  # headings repeat across pages ("Parameters", "Examples")
def slugify(heading: str) -> str:
    """``"Loan periods (2024)!"`` -> ``"loan-periods-2024"``; ``"section"`` if nothing is left."""
    # runs of characters that are not ``str.isalnum`` (re's \w is isalnum plus "_")
    slug = "-".join(part for part in _NOT_ALNUM.split(heading.lower()) if part)
    return slug or "section"


def section_ids(document: Document) -> list[str]:
    """One id per section of ``document``, in order, unique within the page."""
    base = document.ids or id_base(document.source)
    used: set[str] = set()
    ids: list[str] = []
    for section in document.sections:
        slug = slugify(section.heading) if section.level else INTRO_SLUG
        if section.page and section.heading == page_heading(section.page):
            slug = f"p{section.page}"  # a PDF's page (an outlined section has its heading's)
        candidate, repeat = slug, 1
        while candidate in used:
            repeat += 1
            candidate = f"{slug}-{repeat}"
        used.add(candidate)
        ids.append(f"{base}#{candidate}")
    return ids


def heading_paths(document: Document) -> list[tuple[str, ...]]:
    """``(title, heading, subheading, ...)`` for each section of ``document``, in order."""
    stack: list[tuple[int, str]] = []
    paths: list[tuple[str, ...]] = []
    for section in document.sections:
        if section.level:
            while stack and stack[-1][0] >= section.level:
                stack.pop()
            stack.append((section.level, section.heading))
        names = [name for _, name in stack] if section.level else []
        if names and names[0] == document.title:
            names = names[1:]
        paths.append((document.title, *names))
    return paths


class _Units:
    """A section's units side by side: each prose word, or a whole table row / code line,
    with its source line, word count and place ``[block, line in it, code-point offset]``;
    ``blocks[i]`` is ``(first unit, kind is atomic)`` of block ``i``, in order.

    A blank line inside a code block is no unit: in a window's text a blank line is where one
    block ends and the next begins, and a code block kept whole is what lets an answer quote
    it as one piece (a Python example with blank lines between its functions)."""

    __slots__ = ("blocks", "firsts", "lines", "places", "texts", "words")

    def __init__(self, section: Section) -> None:
        self.texts: list[str] = []
        self.lines: list[int] = []
        self.words: list[int] = []
        self.places: list[list[int]] = []
        self.blocks: list[tuple[int, bool]] = []
        for b, block in enumerate(section.blocks):
            atomic = block.kind != "text"
            self.blocks.append((len(self.texts), atomic))
            for i, line in enumerate(block.lines):
                if atomic:
                    if not line.text.split():
                        continue  # a blank line inside a code block: no unit (see above)
                    self.texts.append(line.text)
                    self.lines.append(line.number)
                    self.words.append(len(line.text.split()))
                    self.places.append([b, i, 0])
                else:  # \S+ are ``str.split()``'s words (the same whitespace)
                    for word in re.finditer(r"\S+", line.text):
                        self.texts.append(word.group())
                        self.lines.append(line.number)
                        self.words.append(1)
                        self.places.append([b, i, word.start()])
        self.firsts = [first for first, _ in self.blocks]

    def render(self, start: int, end: int) -> str:
        """Units ``start:end`` back to text: prose words joined by spaces, rows/lines by
        newlines, blocks by a blank line."""
        parts = []
        b = bisect.bisect_right(self.firsts, start) - 1  # the block holding unit ``start``
        while b < len(self.blocks) and self.firsts[b] < end:
            first, atomic = self.blocks[b]
            stop = self.firsts[b + 1] if b + 1 < len(self.blocks) else len(self.texts)
            lo, hi = max(first, start), min(stop, end)
            if lo < hi:
                parts.append(("\n" if atomic else " ").join(self.texts[lo:hi]))
            b += 1
        return "\n\n".join(parts)


def window_bounds(weights: Sequence[int], max_words: int, overlap: int) -> list[tuple[int, int]]:
    """Half-open ``(start, end)`` unit ranges of the windows over units of the given word counts.

    Each window takes units while its words stay within ``max_words`` (always at least one
    unit); the next starts as far back as keeps the shared units within ``overlap`` words and
    still lets the first new unit fit. A last window that adds fewer than
    ``min_tail(max_words)`` words joins the window before it. The windows cover every unit,
    each one reaches past the previous one's end, and the last ends at ``len(weights)``. With
    every weight 1 these are exactly ``chunk_words``' windows. ``[]`` for no units.
    """
    check_window("max_words", max_words, "overlap", overlap)
    bounds: list[tuple[int, int]] = []
    start, n = 0, len(weights)
    while start < n:
        end, total = start + 1, weights[start]
        while end < n and total + weights[end] <= max_words:
            total += weights[end]
            end += 1
        bounds.append((start, end))
        if end == n:
            break
        start, carried = end, 0
        while start - 1 > bounds[-1][0] and carried + weights[start - 1] <= overlap:
            start -= 1
            carried += weights[start]
        if carried + weights[end] > max_words:
            start = end
    if len(bounds) > 1 and sum(weights[bounds[-2][1] :]) < min_tail(max_words):
        bounds[-2:] = [(bounds[-2][0], n)]
    return bounds


def windows_reference(
    section: Section, max_words: int, overlap: int, rest: list[int] | None = None
) -> list[tuple[str, int, int]]:
    """``[(text, first line, last line)]`` of the windows over ``section``: the reference of
    the native ``docqa._parse.section_windows`` that ``chunk_document`` uses (``rest`` as
    there: when a list, the last window is left out and ``rest`` set to its first unit's
    place, ``[0, 0, 0]`` when no window is left)."""
    units = _Units(section)
    bounds = window_bounds(units.words, max_words, overlap)
    if rest is not None:
        rest[:] = units.places[bounds.pop()[0]] if bounds else [0, 0, 0]
    return [
        (units.render(start, end), units.lines[start], units.lines[end - 1])
        for start, end in bounds
    ]


def chunk_document(
    document: Document, *, max_words: int = MAX_WORDS, overlap: int = 0
) -> list[Chunk]:
    """Cut ``document`` into ``Chunk``s by section (rules in the module docstring).

    ``position`` counts chunks from 0 within the document; ``start_line`` / ``end_line`` are
    the 1-based source lines of the chunk's first and last unit; ``content_hash`` is the hex
    sha256 of ``text`` (UTF-8); ``metadata`` is the document's metadata plus ``title``.
    Raises ``InputError`` for bad ``max_words`` / ``overlap`` or when two chunk ids collide.
    """
    check_window("max_words", max_words, "overlap", overlap)
    metadata = MappingProxyType({**document.metadata, "title": document.title})
    chunks: list[Chunk] = []
    pieces = zip(document.sections, section_ids(document), heading_paths(document), strict=True)
    for section, section_id, path in pieces:
        meta = MappingProxyType({**metadata, "page": section.page}) if section.page else metadata
        windows = section_windows(section.blocks, max_words, overlap)
        for part, (text, start_line, end_line) in enumerate(windows, start=1):
            chunks.append(
                Chunk(
                    id=section_id if part == 1 else f"{section_id}-p{part}",
                    section=section_id,
                    heading_path=path,
                    source=document.source,
                    position=len(chunks),
                    start_line=start_line,
                    end_line=end_line,
                    text=text,
                    content_hash=hashlib.sha256(text.encode("utf-8")).hexdigest(),
                    metadata=meta,
                )
            )
    check_unique_ids(document, chunks)
    return chunks


def check_unique_ids(document: Document, chunks: Sequence[Chunk]) -> None:
    seen: set[str] = set()
    for chunk in chunks:
        if chunk.id in seen:
            raise InputError(
                f"{document.source}: chunk id {chunk.id!r} is used twice (a heading's slug "
                f"looks like a window id); rename that heading"
            )
        seen.add(chunk.id)


def embed_text(chunk: Chunk, *, headings: bool = True) -> str:
    """The text to embed: ``"Title > Section\\n\\n<text>"``, or just ``text`` if ``headings``
    is False."""
    if not headings or not chunk.heading_path:
        return chunk.text
    return f"{chunk.title}\n\n{chunk.text}"


def keyword_text(
    chunk: Chunk, *, headings: bool = True, heading_weight: int = HEADING_WEIGHT
) -> str:
    """The text of ``chunk``'s BM25 row: ``embed_text``, then the heading path again, so that
    it counts ``heading_weight`` times (only ``chunk.text`` when ``headings`` is False)."""
    text = embed_text(chunk, headings=headings)
    if not headings or not chunk.heading_path:
        return text
    return keyword_row(text, chunk.title, heading_weight)


def keyword_row(text: str, title: str, heading_weight: int) -> str:
    """An embed text with its heading path ``title`` counted ``heading_weight`` times in all:
    ``text``, a blank line, then ``heading_copies``. The tokenizer splits on the blank line,
    so the row's tokens are the text's, then the copies'."""
    copies = heading_copies(title, heading_weight)
    return f"{text}\n\n{copies}" if copies else text


def heading_copies(title: str, heading_weight: int) -> str:
    """The ``heading_weight - 1`` copies of ``title`` that a BM25 row adds to its embed text
    (which holds it once), blank-line separated; "" for no title or a weight of 1."""
    return "\n\n".join([title] * (heading_weight - 1)) if title else ""


def load_chunks(
    paths: Iterable[str | Path], *, max_words: int = MAX_WORDS, overlap: int = 0
) -> tuple[list[Chunk], LoadReport]:
    """Load ``paths`` (see ``load_paths``) and chunk every document, in load order.

    ``max_words`` / ``overlap`` are checked before any file is read.
    """
    check_window("max_words", max_words, "overlap", overlap)
    documents, report = load_paths(paths)
    chunks: list[Chunk] = []
    for document in documents:
        chunks.extend(chunk_document(document, max_words=max_words, overlap=overlap))
    return chunks, report
