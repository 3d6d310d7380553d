"""Small builders shared by the index tests."""

from __future__ import annotations

import hashlib

import numpy as np

from docqa.types import Chunk

EMBEDDER = {"name": "hashing-8", "dim": 8, "config": {"seed": 1, "ngrams": [1, 2]}}


def chunk(i: int, text: str | None = None) -> Chunk:
    body = text if text is not None else f"Loan period {i}: ünïcode ✓ and more text"
    return Chunk(
        id=f"guide/loans#p{i}",
        section="guide/loans#periods",
        heading_path=("Borrowing", f"Part {i}"),
        source="guide/loans.md",
        position=i,
        start_line=3 * i + 1,
        end_line=3 * i + 3,
        text=body,
        content_hash=hashlib.sha256(body.encode()).hexdigest(),
        metadata={"tags": ["a", i]},
    )


def sample(n: int, seed: int = 0) -> tuple[list[Chunk], np.ndarray]:
    rng = np.random.default_rng(seed)
    return [chunk(i) for i in range(n)], rng.standard_normal((n, 8)).astype(np.float32)
