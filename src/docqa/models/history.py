"""Release notes: passages that tell what changed when, not how things work now.

Manuals ship their history beside them: Sphinx projects a ``changes`` page ("Version 2.11.0"),
libxslt its ``news`` ("v1.1.33: Jan 03 2019"), coverage.py its changelog ("Version 7.2.7 —
2023-05-29"). Such an entry names a feature in a few rare words ("The environment now features
a method to compile the templates from a configured loader into a zip file or folder"), so it
ranks beside the page that explains the feature, and an answer to "How do I load templates from
a folder?" quoted it. The extractive answer therefore quotes a release note only when the
question asks about releases (:func:`asks_about_history`) or no other passage may be quoted,
and every answer reads the documentation before the release notes among its best passages
(:func:`current_first`, used by :func:`docqa.answering.answer_hits`).

A passage is a release note when a heading on its path is a version label: a version number,
alone or after one word (``Version``, ``Release``, a project's name), and at most a date or a
remark after ``:``, ``-``, ``—``, ``(`` or ``,``. A numbered section ("7.2 Extension Requests")
has words after its number and is none; neither is a paragraph saying "New in version 2.10".
So is a passage under a history's name: a heading that is "Changes" or "News", or ends in
"Release Notes", "Changelog" or "Version History" ("Engine API version history", "0.3. Version
History"), or tells the changes of a version ("Changes prior to 9.18.29", "Notes for BIND
9.18.0"), as BIND's changelog and release notes, the X Video extension's "Changes" and the .xz
format's version history are headed. "History" alone is no such name (bash's "Using History
Interactively" is how to use it), nor is Python's "What's New In Python 3.11" (it explains
the features it lists).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docqa.types import Hit

_VERSION_LABEL = re.compile(
    r"(?:[A-Za-z][\w.+-]*\s+)?v?\d+(?:\.\d+)+[\w.+-]*(?:\s*[-\u2013\u2014:(,].*)?", re.DOTALL
)
_HISTORY_NAME = re.compile(
    r"(?:[\d.]+\s+)?(?:changes|news|(?:.*\b)?(?:release notes|change ?log|version history)"
    r"|(?:changes|notes)\s+(?:in|since|prior to|for|from)\b.*\d+\.\d+.*)\W*",
    re.IGNORECASE | re.DOTALL,
)
# words of a question about releases; a question naming a version number asks about one too
_ASKS = frozenset((
    "version", "versions", "release", "releases", "released", "changelog", "changes", "changed",
    "history", "news", "deprecated", "introduced", "added", "removed",
))  # fmt: skip
_NUMBER = re.compile(r"\bv?\d+\.\d+")
_WORD = re.compile(r"[a-z]+")


def is_release_note(title: str) -> bool:
    """Whether a passage whose heading path is ``title`` (``"Changes > Version 2.11.0"``, the
    parts joined by ``" > "``) is a release note (see the module docstring)."""
    return any(
        _VERSION_LABEL.fullmatch(part.strip()) or _HISTORY_NAME.fullmatch(part.strip())
        for part in title.split(" > ")
    )


def asks_about_history(question: str) -> bool:
    """Whether ``question`` asks about releases: it names a version number ("what changed in
    2.11?") or says a word such as "version", "release", "changed", "deprecated"."""
    return bool(_NUMBER.search(question)) or not _ASKS.isdisjoint(_WORD.findall(question.lower()))


def current(question: str, titles: Sequence[str], eligible: set[int]) -> set[int]:
    """The passages of ``eligible`` (indices into ``titles``, the passages' heading paths) an
    answer may quote: without the release notes when another passage is eligible and
    ``question`` does not ask about releases; else all of them."""
    if asks_about_history(question):
        return eligible
    kept = {i for i in eligible if not is_release_note(titles[i])}
    return kept or eligible


def _note(hit: Hit) -> bool:
    return hit.chunk is not None and is_release_note(hit.chunk.title)


def holds_notes(question: str, hits: Sequence[Hit]) -> bool:
    """Whether ``hits`` hold a release note that should give way to the documentation ranked
    after it (``question`` does not ask about releases). A hit without its chunk is none."""
    return not asks_about_history(question) and any(map(_note, hits))


def current_first(question: str, hits: Sequence[Hit], k: int) -> list[Hit]:
    """The ``k`` passages an answer reads of ``hits`` (ranked): when ``question`` does not ask
    about releases, the hits that are no release notes first, then the release notes, each in
    rank order; else the first ``k``."""
    if asks_about_history(question):
        return list(hits[:k])
    notes = [_note(h) for h in hits]
    ordered = [h for h, n in zip(hits, notes, strict=True) if not n]
    ordered += [h for h, n in zip(hits, notes, strict=True) if n]
    return ordered[:k]
