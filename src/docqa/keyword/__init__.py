"""Keyword search: Okapi BM25 over CSR postings (``BM25Index``) and its plain-Python twin.

``BM25Index`` loads on first use (its module imports the Numba kernels); ``ARRAYS`` and
``BM25Config`` do not need them, so the index build imports only those.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docqa.keyword.config import ARRAYS, BM25Config

if TYPE_CHECKING:
    from docqa.keyword.bm25 import BM25Index

__all__ = ["ARRAYS", "BM25Config", "BM25Index"]


def __getattr__(name: str) -> Any:
    if name == "BM25Index":
        from docqa.keyword.bm25 import BM25Index

        return BM25Index
    raise AttributeError(f"module 'docqa.keyword' has no attribute {name!r}")
