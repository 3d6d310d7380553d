"""Counted words in what the ``docqa`` command prints: "1 chunk", "2 chunks"."""

from __future__ import annotations


def count(n: int, word: str, plural: str | None = None) -> str:
    """``n`` and ``word``, in the plural (``plural``, else ``word + "s"``) unless ``n`` is 1."""
    return f"{n} {word if n == 1 else plural or word + 's'}"
