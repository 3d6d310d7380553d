"""A retriever bound to a row mask: every search it makes is restricted inside the kernels."""

from __future__ import annotations

import numpy as np

from docqa.search.masks import mask_bools
from docqa.types import Hit, Retriever


class MaskedRetriever:
    """Passes ``mask`` (bool ``(N,)``) to every ``retriever.search``; a mask given to
    :meth:`search` as well narrows it further (both must allow a row)."""

    def __init__(self, retriever: Retriever, mask: np.ndarray) -> None:
        self.retriever = retriever
        self.mask = np.ascontiguousarray(mask, dtype=np.bool_)

    def search(self, question: str, k: int, *, mask: np.ndarray | None = None) -> list[Hit]:
        """The inner retriever's hits among the allowed rows."""
        allowed = self.mask
        if mask is not None:
            extra = mask_bools(mask, len(self.mask))
            allowed = self.mask & extra if extra is not None else self.mask
        return self.retriever.search(question, k, mask=allowed)
