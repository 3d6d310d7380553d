"""A scripted model for tests and demos: plays back replies, records every prompt it got."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from docqa.errors import InputError, ModelError
from docqa.models.base import PieceStream
from docqa.types import Prompt, Usage

Reply = str | BaseException
"""A scripted reply: text to stream, or an exception to raise instead."""


class FakeModel:
    """Streams scripted replies in pieces of ``piece_size`` characters.

    ``replies`` is a list played back in order (one per ``stream`` call) or a function of the
    prompt. A reply that is an exception is raised when the stream is read. ``usage``, when
    given, is returned as the backend-reported usage; otherwise callers estimate it.
    ``prompts`` lists every prompt received, in order.
    """

    def __init__(
        self,
        replies: Sequence[Reply] | Callable[[Prompt], Reply],
        *,
        piece_size: int = 4,
        usage: Usage | None = None,
        name: str = "fake",
    ) -> None:
        if piece_size < 1:
            raise InputError(f"FakeModel piece_size must be at least 1, got {piece_size}")
        self._replies = replies if callable(replies) else list(replies)
        self._piece_size = piece_size
        self._usage = usage
        self.name = name
        self.prompts: list[Prompt] = []

    def __repr__(self) -> str:
        return f"FakeModel(name={self.name!r}, prompts={len(self.prompts)})"

    def stream(self, prompt: Prompt) -> PieceStream:
        """Record ``prompt`` and return a stream of the next scripted reply."""
        self.prompts.append(prompt)
        return self._play(self._next_reply(prompt))

    def _next_reply(self, prompt: Prompt) -> Reply:
        if callable(self._replies):
            return self._replies(prompt)
        if not self._replies:
            raise ModelError(
                f"FakeModel {self.name!r} has no scripted reply left for call "
                f"{len(self.prompts)}; script one more reply"
            )
        return self._replies.pop(0)

    def _play(self, reply: Reply) -> PieceStream:
        if isinstance(reply, BaseException):
            raise reply
        for start in range(0, len(reply), self._piece_size):
            yield reply[start : start + self._piece_size]
        return self._usage
