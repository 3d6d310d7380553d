"""Retrieval: dense, keyword and hybrid retrievers, rank fusion, and the weak-retrieval guard."""

from docqa.retrieve.fusion import DEFAULT_RRF_K, Fused, reciprocal_rank_fusion
from docqa.retrieve.guard import GuardConfig, GuardedRetriever, Verdict, judge
from docqa.retrieve.retrievers import (
    DENSE,
    KEYWORD,
    DenseRetriever,
    HybridRetriever,
    KeywordRetriever,
)

__all__ = [
    "DEFAULT_RRF_K",
    "DENSE",
    "KEYWORD",
    "DenseRetriever",
    "Fused",
    "GuardConfig",
    "GuardedRetriever",
    "HybridRetriever",
    "KeywordRetriever",
    "Verdict",
    "judge",
    "reciprocal_rank_fusion",
]
