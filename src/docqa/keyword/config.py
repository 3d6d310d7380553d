"""What a BM25 index is built with and the names of its arrays: no Numba, so the index build
(which writes these arrays and records the config) does not load the search kernels."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from docqa.errors import IndexCorrupt, InputError
from docqa.text.tokenize import TokenSettings

# Names of the arrays in ``to_arrays`` / ``from_arrays`` and their dtypes.
ARRAYS = {
    "bm25_vocab": np.uint64,  # (V,) term hashes, ascending; term id = position
    "bm25_indptr": np.int64,  # (V + 1,) term t's postings are indptr[t]:indptr[t + 1]
    "bm25_rows": np.int32,  # (nnz,) row ids, ascending within a term
    "bm25_tf": np.int32,  # (nnz,) term frequency of that term in that row
    "bm25_lengths": np.int32,  # (N,) tokens per row (after stop words)
}


@dataclass(frozen=True, slots=True)
class BM25Config:
    """What a BM25 index was built with; recorded in the index manifest (``to_dict``)."""

    k1: float = 1.5
    b: float = 0.75
    stop_words: bool | frozenset[str] = True  # as ``TokenSettings.stop_words``
    fold_plurals: bool = True

    def __post_init__(self) -> None:
        tokens = TokenSettings.make(self.stop_words, self.fold_plurals)  # validates the list
        object.__setattr__(self, "stop_words", tokens.stop_words)
        if not (math.isfinite(self.k1) and self.k1 >= 0):
            raise InputError(f"BM25 k1 must be a finite number >= 0, got {self.k1!r}")
        if not 0.0 <= self.b <= 1.0:
            raise InputError(f"BM25 b must be in [0, 1], got {self.b!r}")

    @property
    def tokens(self) -> TokenSettings:
        """How queries and rows are tokenized."""
        return TokenSettings(self.stop_words, self.fold_plurals)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for the manifest (a custom stop-word list as a sorted list)."""
        return {"k1": self.k1, "b": self.b, **self.tokens.config()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BM25Config:
        """Inverse of ``to_dict``; unknown keys are an ``IndexCorrupt`` error."""
        unknown = set(data) - {"k1", "b", "stop_words", "fold_plurals"}
        if unknown:
            raise IndexCorrupt(f"BM25 config has unknown keys {sorted(unknown)}; rebuild the index")
        return cls(**data)
