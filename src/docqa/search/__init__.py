"""Exact dense top-k search with one canonical order (score descending, then row id ascending)."""

from typing import TYPE_CHECKING, Any

from docqa.search.api import topk
from docqa.search.reference import canonical_scores, topk_reference

if TYPE_CHECKING:  # imported on first use (below)
    from docqa.search.compact import CompactMatrix

__all__ = ["CompactMatrix", "canonical_scores", "topk", "topk_reference"]


def __getattr__(name: str) -> Any:
    """``CompactMatrix`` is imported on first use: its module loads Numba, which a one-off
    question over a float32 index may never need (``docqa.search.oneoff``)."""
    if name == "CompactMatrix":
        from docqa.search.compact import CompactMatrix

        return CompactMatrix
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
