"""Section context: whole sections within a token budget, deduplicated, citations kept."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from docqa.answering import answer
from docqa.context import SectionContext
from docqa.errors import InputError
from docqa.models import FakeModel
from docqa.types import Chunk, Hit


def chunk(row: int, section: str, text: str) -> Chunk:
    digest = hashlib.sha256(text.encode()).hexdigest()
    return Chunk(f"{section}-p{row}", section, ("Doc", section), "d.md", row, 1, 1, text, digest)


# section a: rows 0..3 (40 characters = 10 tokens each); section b: row 4
CHUNKS = [chunk(r, "d#a", f"{r}" * 40) for r in range(4)] + [chunk(4, "d#b", "b" * 40)]


def hit(row: int) -> Hit:
    c = CHUNKS[row]
    return Hit(row, c.id, c.section, 1.0, chunk=c)


def test_a_section_fits_whole_and_is_given_once() -> None:
    out = SectionContext(CHUNKS, max_tokens=100)([hit(2), hit(0), hit(4)])
    assert [h.id for h in out] == ["d#a-p2", "d#b-p4"]  # the best hit's id names the section
    assert out[0].chunk is not None and out[0].chunk.text.split("\n\n") == [
        c.text for c in CHUNKS[:4]
    ]
    assert out[0].chunk.heading_path == ("Doc", "d#a")


def test_a_section_too_large_narrows_around_the_hit() -> None:
    out = SectionContext(CHUNKS, max_tokens=30)([hit(1)])
    assert out[0].chunk is not None
    assert out[0].chunk.text.split("\n\n") == [CHUNKS[r].text for r in (0, 1, 2)]


def test_the_budget_spans_all_passages() -> None:
    out = SectionContext(CHUNKS, max_tokens=55)([hit(0), hit(4)])
    assert [h.id for h in out] == ["d#a-p0", "d#b-p4"]
    assert out[0].chunk is not None and len(out[0].chunk.text.split("\n\n")) == 4
    # section a whole costs 42 tokens with its separators: b's 10 no longer fit in 45
    assert [h.id for h in SectionContext(CHUNKS, max_tokens=45)([hit(0), hit(4)])] == ["d#a-p0"]
    tight = SectionContext(CHUNKS, max_tokens=5)([hit(0), hit(4)])
    assert [h.id for h in tight] == ["d#a-p0"]  # the first hit is always given its chunk
    assert tight[0].chunk is not None and tight[0].chunk.text == CHUNKS[0].text


def test_bad_budget() -> None:
    with pytest.raises(InputError, match="max_tokens"):
        SectionContext(CHUNKS, max_tokens=0)


class Fixed:
    def search(self, question: str, k: int, *, mask: np.ndarray | None = None) -> list[Hit]:
        return [hit(3), hit(1)][:k]


def test_answer_with_section_context_keeps_chunk_citations() -> None:
    model = FakeModel(["It says so [d#a-p3]. Also [d#a-p1]."])
    a = answer("What?", Fixed(), model, k=2, context=SectionContext(CHUNKS, max_tokens=100))
    assert model.prompts[0].user.count("<passage ") == 1
    assert CHUNKS[0].text in model.prompts[0].user  # the whole section was read
    assert a.not_retrieved == () and [h.id for h in a.hits] == ["d#a-p3"]
