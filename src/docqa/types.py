"""The few types every part of docqa agrees on (see DESIGN.md: "Shared types").

Pure data: no I/O, no behaviour beyond small derived properties.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True, slots=True)
class Chunk:
    """One retrievable passage.

    ``id`` is unique in a collection (``"guide/loans#loan-periods-p2"``); ``section`` is the id
    of the section it was cut from (``"guide/loans#loan-periods"``); ``heading_path`` runs from
    the page title down (``("Borrowing", "Loan periods")``); ``source`` is the file path relative
    to the loaded folder; ``position`` is the chunk's index within its document; ``start_line``
    and ``end_line`` are 1-based, inclusive, in the source file; ``content_hash`` is the hex
    sha256 of ``text``; ``metadata`` holds front matter and loader facts.
    """

    id: str
    section: str
    heading_path: tuple[str, ...]
    source: str
    position: int
    start_line: int
    end_line: int
    text: str
    content_hash: str
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def title(self) -> str:
        """The heading path as one line: ``"Borrowing > Loan periods"``."""
        return " > ".join(self.heading_path)


class TopK(NamedTuple):
    """Result of a top-k search; always 2-D, unpacks as ``scores, ids``.

    ``scores`` is ``(n, k) float32``, ``ids`` is ``(n, k) int64``; rows past the end of the
    collection are padded with score ``-inf`` and id ``-1``. Order within a row is canonical:
    score descending, then row id ascending.
    """

    scores: np.ndarray
    ids: np.ndarray


@dataclass(frozen=True, slots=True)
class Component:
    """One retriever's view of a hit inside a fused result (rank is 1-based)."""

    score: float
    rank: int


@dataclass(frozen=True, slots=True)
class Hit:
    """A retrieved chunk: its row in the index, ids, score, and per-component scores/ranks."""

    row: int
    id: str
    section: str
    score: float
    components: Mapping[str, Component] = field(default_factory=dict)
    chunk: Chunk | None = None


@runtime_checkable
class Retriever(Protocol):
    """Anything that turns a question into ranked hits."""

    def search(self, question: str, k: int, *, mask: np.ndarray | None = None) -> list[Hit]: ...


@dataclass(frozen=True, slots=True)
class Prompt:
    """What is sent to a model: the rules (``system``) and the fenced passages + question."""

    system: str
    user: str


@runtime_checkable
class ModelClient(Protocol):
    """A chat model that streams its reply as text pieces."""

    def stream(self, prompt: Prompt) -> Iterator[str]: ...


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts; ``estimated`` is True when they were estimated (4 characters a token)."""

    input_tokens: int
    output_tokens: int
    estimated: bool = False


@dataclass(frozen=True, slots=True)
class Claim:
    """One cited stretch of an answer: its ``text`` (citations removed, whitespace collapsed),
    the ids it ``cited``, and of those, the ones whose passage holds it (``supported_by``)
    and the ones whose passage does not, or was not retrieved (``unsupported_by``)."""

    text: str
    cited: tuple[str, ...]
    supported_by: tuple[str, ...]
    unsupported_by: tuple[str, ...]

    @property
    def supported(self) -> bool:
        """Every id the claim cites holds it."""
        return not self.unsupported_by


@dataclass(frozen=True, slots=True)
class Answer:
    """A grounded answer, or an honest refusal (``refused=True``: no passage was found, so no
    model call was made, or the model replied with exactly the refusal sentence)."""

    question: str
    text: str
    hits: tuple[Hit, ...]
    cited_ids: tuple[str, ...]
    not_retrieved: tuple[str, ...]
    refused: bool
    usage: Usage | None = None
    cost: float | None = None
    claims: tuple[Claim, ...] = ()
    """Each cited stretch of ``text`` and which cited passages hold it
    (:func:`docqa.support.claims`)."""
