"""A tiny chunked corpus and a scripted retriever shared by the retrieve tests."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from docqa.types import Chunk, Component, Hit

TEXTS = [
    "Loan periods: books may be borrowed for three weeks.",
    "Fines are charged for overdue books at ten cents a day.",
    "Set max_connections in postgresql.conf to limit client connections.",
    "Back up a database with pg_dump -Fc for a compressed archive.",
    "Serialization failures raise error 40001; retry the transaction.",
    "The reading room opens at nine and closes at six.",
]


def make_chunk(i: int, text: str) -> Chunk:
    return Chunk(
        id=f"doc#s{i}-p1", section=f"doc#s{i}", heading_path=("Doc", f"S{i}"), source="doc.md",
        position=i, start_line=i + 1, end_line=i + 1, text=text,
        content_hash=hashlib.sha256(text.encode()).hexdigest(),
    )  # fmt: skip


CHUNKS = [make_chunk(i, t) for i, t in enumerate(TEXTS)]


class FakeRetriever:
    """Returns fixed hits (truncated to k) tagged ``name``, and records what it was asked."""

    def __init__(self, name: str, rows_scores: list[tuple[int, float]]) -> None:
        self.name, self.rows_scores = name, rows_scores
        self.calls: list[tuple[str, int, np.ndarray | None]] = []

    def search(self, question: str, k: int, *, mask: np.ndarray | None = None) -> list[Hit]:
        self.calls.append((question, k, mask))
        return [
            Hit(
                row,
                CHUNKS[row].id,
                CHUNKS[row].section,
                s,
                {self.name: Component(s, i + 1)},
                CHUNKS[row],
            )
            for i, (row, s) in enumerate(self.rows_scores[:k])
        ]


@pytest.fixture(scope="session")
def texts() -> list[str]:
    return list(TEXTS)


@pytest.fixture(scope="session")
def chunks() -> list[Chunk]:
    return list(CHUNKS)


@pytest.fixture(scope="session")
def fake() -> type[FakeRetriever]:
    return FakeRetriever
