"""Exact dense top-k search with one canonical order (score descending, then row id ascending)."""

from docqa.search.api import topk
from docqa.search.compact import CompactMatrix
from docqa.search.reference import canonical_scores, topk_reference

__all__ = ["CompactMatrix", "canonical_scores", "topk", "topk_reference"]
