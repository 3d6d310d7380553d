"""Labelled questions for the eval harness, read from JSONL.

One JSON object per line::

    {"id": "q01", "question": "How long can I keep a book?",
     "relevant": ["loans#loan-periods"], "kind": "paraphrase", "must_contain": ["three weeks"]}

``relevant`` lists section ids; an empty list marks a question the library cannot answer.
``kind`` and ``must_contain`` are optional. The common golden-set shape is accepted too:
``q`` for ``question`` (not both), and ``must_contain`` as one string instead of a list
(``{"id": "q1", "q": "How long is a loan?", "relevant": [...], "must_contain": "30 days"}``);
an empty ``must_contain`` (``""``, ``[]``) sets no requirement.
"""

from __future__ import annotations

import json
from collections.abc import Container, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docqa.errors import InputError


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    question: str
    relevant: tuple[str, ...]
    kind: str = "unlabelled"
    must_contain: tuple[str, ...] = ()

    @property
    def answerable(self) -> bool:
        return bool(self.relevant)


def _strings(value: Any, field: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{where}: {field!r} must be a list of strings, got {value!r}")
    return tuple(value)


def _question_text(obj: dict[str, Any], where: str) -> Any:
    """The ``question`` field, or its alias ``q`` (giving both is an error)."""
    if "q" in obj and "question" in obj:
        raise InputError(f"{where}: give 'question' or its alias 'q', not both")
    return obj["q"] if "q" in obj else obj.get("question")


def _must_contain(value: Any, where: str) -> tuple[str, ...]:
    """``must_contain`` as a tuple: one string is a list of one; blank strings require
    nothing (every answer holds ``""``), so ``""`` and ``[""]`` mean no requirement."""
    strings = (value,) if isinstance(value, str) else _strings(value, "must_contain", where)
    return tuple(s for s in strings if s.strip())


def parse_question(obj: Any, where: str) -> Question:
    """One question from a decoded JSON object; ``where`` names it in errors."""
    if not isinstance(obj, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    obj = {**obj, "question": _question_text(obj, where)}
    for field in ("id", "question"):
        if not isinstance(obj.get(field), str) or not obj[field].strip():
            raise InputError(f"{where}: {field!r} must be a non-empty string")
    if "relevant" not in obj:
        raise InputError(f"{where}: 'relevant' is missing (use [] for an unanswerable question)")
    kind = obj.get("kind", "unlabelled")
    if not isinstance(kind, str):
        raise InputError(f"{where}: 'kind' must be a string, got {kind!r}")
    return Question(
        id=obj["id"],
        question=obj["question"],
        relevant=_strings(obj["relevant"], "relevant", where),
        kind=kind,
        must_contain=_must_contain(obj.get("must_contain", []), where),
    )


def load_questions(path: str | Path) -> list[Question]:
    """Questions from a JSONL file; blank lines are skipped, ids must be unique."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError(f"{path}: no such questions file") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason}); save it as UTF-8") from None
    questions: list[Question] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not valid JSON ({exc.msg})") from None
        question = parse_question(obj, where)
        if question.id in seen:
            raise InputError(f"{where}: duplicate question id {question.id!r}")
        seen.add(question.id)
        questions.append(question)
    if not questions:
        raise InputError(f"{path}: no questions found; write one JSON object per line")
    return questions


def unmatched_labels(questions: Sequence[Question], sections: Container[str]) -> list[str]:
    """The ``relevant`` labels of ``questions`` that are not in ``sections`` (each once, in the
    order they first appear): a question labelled only with them can never be found."""
    missing: dict[str, None] = {}
    for q in questions:
        missing.update((label, None) for label in q.relevant if label not in sections)
    return list(missing)
