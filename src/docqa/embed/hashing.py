"""The hashing embedder: CRC-32 token buckets scaled to unit length, filled natively.

Spec (written out plainly in ``docqa.embed.reference.hashing_embed``): tokens from the
tokenizer with stop words removed and plurals folded; a token's bucket is
``zlib.crc32(token.encode("utf-8")) % dim``; bucket counts scaled to unit length
(``count / sqrt(sum of squared counts)`` in double precision, then cast to float32).
The hot loop is ``docqa._tokenize.embed_hashing_rows`` with the GIL released; a batch may be
split over threads, each filling its own rows, so the result is identical for any thread count.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from docqa import _tokenize
from docqa.embed.protocol import (
    TokenSettings,
    check_positive_int,
    check_texts,
    check_version,
    register,
    token_settings_of,
)

# Below this many texts per thread, starting threads costs more than it saves.
MIN_ROWS_PER_THREAD = 64


@register("hashing")
class HashingEmbedder:
    """``embed(texts) -> (len(texts), dim) float32`` rows of unit length (zero rows for texts
    with no kept token). ``n_threads`` is the default thread count of ``embed``."""

    VERSION = 1

    def __init__(
        self,
        dim: int = 256,
        *,
        stop_words: bool | Iterable[str] = True,
        fold_plurals: bool = True,
        n_threads: int = 1,
    ) -> None:
        self._dim = check_positive_int(dim, "dim")
        self._tokens = TokenSettings.make(stop_words, fold_plurals)
        self.n_threads = check_positive_int(n_threads, "n_threads")

    @property
    def name(self) -> str:
        """``"hashing-<dim><settings>-v<version>"``, e.g. ``"hashing-256-v1"``."""
        return f"hashing-{self._dim}{self._tokens.name_suffix()}-v{self.VERSION}"

    @property
    def dim(self) -> int:
        return self._dim

    def config(self) -> dict[str, Any]:
        """JSON-able settings that ``from_config`` turns back into this embedder."""
        return {
            "kind": "hashing",
            "version": self.VERSION,
            "dim": self._dim,
            **self._tokens.config(),
        }

    @classmethod
    def from_config(
        cls, config: dict[str, Any], state: dict[str, np.ndarray] | None = None
    ) -> HashingEmbedder:
        """The embedder ``config`` describes (``state`` is unused: nothing is fitted)."""
        check_version(config, "hashing", cls.VERSION)
        tokens = token_settings_of(config)
        return cls(
            config.get("dim", 0), stop_words=tokens.stop_words, fold_plurals=tokens.fold_plurals
        )

    def embed(
        self, texts: Sequence[str], *, query: bool = False, n_threads: int | None = None
    ) -> np.ndarray:
        """``(len(texts), dim)`` float32 C-contiguous rows; ``query`` changes nothing (the
        embedding is symmetric); ``n_threads`` overrides the instance default."""
        threads = (
            self.n_threads if n_threads is None else check_positive_int(n_threads, "n_threads")
        )
        batch = check_texts(texts)
        out = np.zeros((batch.n, self._dim), dtype=np.float32)
        stops, fold = self._tokens.compiled(), self._tokens.fold_plurals
        ranges = _row_ranges([len(t) for t in texts], threads)
        if len(ranges) == 1:
            _tokenize.embed_hashing_rows(batch, 0, batch.n, stops, fold, out)
            return out
        with ThreadPoolExecutor(max_workers=len(ranges)) as pool:
            jobs = [
                pool.submit(_tokenize.embed_hashing_rows, batch, start, stop, stops, fold, out)
                for start, stop in ranges
            ]
            for job in jobs:
                job.result()
        return out

    def __repr__(self) -> str:
        return f"HashingEmbedder({self.name!r}, n_threads={self.n_threads})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HashingEmbedder) and self.config() == other.config()

    def __hash__(self) -> int:
        return hash(self.name)


def _row_ranges(lengths: list[int], n_threads: int) -> list[tuple[int, int]]:
    """Contiguous ``(start, stop)`` row ranges, one per thread actually worth starting, cut
    so that each holds about the same number of characters (the scan's work), not the same
    number of texts: real documents vary in length."""
    n = len(lengths)
    parts = max(1, min(n_threads, n // MIN_ROWS_PER_THREAD))
    if parts == 1:
        return [(0, n)]
    ends = np.cumsum(lengths, dtype=np.int64)
    cuts = np.searchsorted(ends, ends[-1] * np.arange(1, parts) / parts, side="right")
    bounds = [0, *(int(c) for c in cuts), n]
    return [(a, b) for a, b in itertools.pairwise(bounds) if b > a]
