"""The offline default model: answers with the best-matching sentence of the passages.

No network, no weights. It reads the passages and question back out of the prompt (the same
``stream(prompt)`` protocol as every other client), splits each passage into sentences and
picks the sentence sharing the most distinct content words with the question (tokens with the
English stop words dropped and plurals folded). Ties go to the earlier passage (better rank),
then the earlier sentence. The reply is that sentence and ``[passage id]``; when no sentence
shares a content word, the reply is :data:`docqa.prompt.REFUSAL`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from docqa.errors import InputError
from docqa.models.base import PieceStream
from docqa.prompt import REFUSAL, read_prompt
from docqa.text.tokenize import tokenize
from docqa.types import Prompt

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def table_rows(lines: list[str]) -> Iterator[str]:
    """Each data row of a ``| a | b |`` table as one sentence naming its columns:
    ``"Item type: DVDs; Loan period: 7 days"`` (the first row is the header)."""
    header = _cells(lines[0])
    for line in lines[1:]:
        cells = _cells(line)
        if len(cells) == len(header):
            yield "; ".join(f"{h}: {c}" for h, c in zip(header, cells, strict=True))
        else:
            yield " ".join(cells)


def sentences(text: str) -> Iterator[str]:
    """The sentences of ``text``: split after ``. ! ?`` + space and at blank lines; a table
    (lines starting with ``|``) gives one sentence per row; whitespace inside a sentence
    collapsed to single spaces; empty pieces skipped."""
    for block in re.split(r"\n\s*\n", text):
        lines = [ln for ln in block.splitlines() if ln.strip()]
        if len(lines) > 1 and all(ln.lstrip().startswith("|") for ln in lines):
            yield from table_rows(lines)
            continue
        for part in _SENTENCE_END.split(block):
            sentence = " ".join(part.split())
            if sentence:
                yield sentence


def content_words(text: str) -> set[str]:
    """Distinct content words of ``text`` (lower-cased, stop words dropped, plurals folded)."""
    return set(tokenize(text, stop_words=True, fold_plurals=True))


def best_sentence(prompt: Prompt) -> tuple[str, str] | None:
    """``(sentence, passage id)`` sharing the most content words with the question, or None."""
    passages, question = read_prompt(prompt)
    wanted = content_words(question)
    best: tuple[str, str] | None = None
    best_score = 0
    for passage in passages:
        for sentence in sentences(passage.text):
            score = len(wanted & content_words(sentence))
            if score > best_score:
                best, best_score = (sentence, passage.id), score
    return best


class ExtractiveModel:
    """A :class:`~docqa.types.ModelClient` that quotes one sentence of the passages."""

    name = "extractive"
    in_process = True
    """Its reply is worked out here from the prompt, in bounded CPU time, with no I/O: the
    service runs it where it searched instead of in a thread of its own."""

    def __init__(self, *, piece_size: int = 16) -> None:
        if piece_size < 1:
            raise InputError(f"ExtractiveModel piece_size must be at least 1, got {piece_size}")
        self._piece_size = piece_size

    def __repr__(self) -> str:
        return "ExtractiveModel()"

    def stream(self, prompt: Prompt) -> PieceStream:
        """Yield the reply in pieces; return None (no token counts: callers estimate)."""
        found = best_sentence(prompt)
        reply = REFUSAL if found is None else f"{found[0]} [{found[1]}]"
        for start in range(0, len(reply), self._piece_size):
            yield reply[start : start + self._piece_size]
        return None
