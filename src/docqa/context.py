"""Small to find, large to read: give the model the whole section around each hit.

Retrieval finds small windows (chunks); :class:`SectionContext` widens each hit to the section
it was cut from (every chunk of that section, in order), within a budget of estimated tokens
(4 characters a token, as :func:`docqa.models.base.estimate_tokens`) over all passages:

- hits are taken in rank order; a hit whose section is already in the context adds nothing
  (several hits of one section give one passage, under the best hit's id);
- a section that does not fit whole is narrowed to the hit's own chunk and as many
  neighbouring chunks of the section (next, then previous, alternately) as fit;
- the first hit always gets at least its own chunk, so the model never gets nothing;
- a later hit whose chunk alone does not fit is left out.

The widened hits keep their chunk ids (citations stay chunk ids); their ``chunk`` is the
passage's text under the section's heading path.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace

from docqa.errors import InputError
from docqa.models.base import estimate_tokens
from docqa.types import Chunk, Hit

DEFAULT_MAX_CONTEXT_TOKENS = 2000


class SectionContext:
    """Widens hits to their sections; ``chunks`` are the collection's, in row order."""

    def __init__(
        self, chunks: Sequence[Chunk], *, max_tokens: int = DEFAULT_MAX_CONTEXT_TOKENS
    ) -> None:
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise InputError(f"max_tokens must be an int >= 1, got {max_tokens!r}")
        self.chunks = chunks
        self.max_tokens = max_tokens
        self._rows: dict[str, list[int]] | None = None

    def section_rows(self, section: str) -> list[int]:
        """The rows of ``section``'s chunks, in order (built on first use)."""
        if self._rows is None:
            rows: dict[str, list[int]] = {}
            for row, chunk in enumerate(self.chunks):
                rows.setdefault(chunk.section, []).append(row)
            self._rows = rows
        return self._rows.get(section, [])

    def __call__(self, hits: Sequence[Hit]) -> list[Hit]:
        """The widened hits, deduplicated by section, within the budget."""
        out: list[Hit] = []
        seen: set[str] = set()
        left = self.max_tokens
        for hit in hits:
            if hit.section in seen or hit.chunk is None:
                continue
            rows = self._fitting(hit, left, first=not out)
            if not rows:
                continue
            text = "\n\n".join(self.chunks[r].text for r in rows)
            left -= estimate_tokens(text)
            seen.add(hit.section)
            out.append(replace(hit, chunk=_passage(hit.chunk, text)))
        return out

    def _fitting(self, hit: Hit, budget: int, *, first: bool) -> list[int]:
        """The rows of ``hit``'s section that fit ``budget``: all, else a run around it."""
        rows = self.section_rows(hit.section) or [hit.row]
        if hit.row not in rows:
            rows = [hit.row]
        cost = {r: estimate_tokens(self.chunks[r].text) for r in rows}
        if sum(cost.values()) <= budget:
            return rows
        at = rows.index(hit.row)
        if cost[hit.row] > budget:
            return [hit.row] if first else []
        lo, hi, used = at, at + 1, cost[hit.row]
        grew = True
        while grew:
            grew = False
            if hi < len(rows) and used + cost[rows[hi]] <= budget:
                used, hi, grew = used + cost[rows[hi]], hi + 1, True
            if lo > 0 and used + cost[rows[lo - 1]] <= budget:
                used, lo, grew = used + cost[rows[lo - 1]], lo - 1, True
        return rows[lo:hi]


def _passage(chunk: Chunk, text: str) -> Chunk:
    """``chunk`` holding ``text`` (its hash updated), under the same ids and heading path."""
    return replace(chunk, text=text, content_hash=hashlib.sha256(text.encode()).hexdigest())
