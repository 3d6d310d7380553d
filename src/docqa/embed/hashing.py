"""The hashing embedder: CRC-32 token buckets scaled to unit length, filled natively.

Spec (written out plainly in ``docqa.embed.reference.hashing_embed``): tokens from the
tokenizer with stop words removed and plurals folded; a token's bucket is
``zlib.crc32(token.encode("utf-8")) % dim``; bucket counts scaled to unit length
(``count / sqrt(sum of squared counts)`` in double precision, then cast to float32).
The hot loop is native (``docqa.text.tokenize.RowCursor.fill_hashing_rows``), GIL released; a batch may be
shared by threads that claim small grains of rows as they go, each row filled by exactly one
of them in the same way, so the result is identical for any thread count.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from docqa._checks import positive
from docqa.embed.protocol import check_version, register, token_settings_of
from docqa.text.tokenize import (
    RowCursor,
    TokenHashes,
    TokenSettings,
    hash_tokens_and_embed,
    native_batch,
)
from docqa.threads import each_at_once

# Below this many texts per thread, starting threads costs more than it saves.
MIN_ROWS_PER_THREAD = 64
# Threads claim rows in grains (see ``_grain``): small enough that a thread slowed by a busy
# core leaves little for the others to wait on (16 of the benchmark's texts are ~0.2 ms).
GRAIN_ROWS = 16
GRAIN_BYTES = 4096


@register("hashing")
class HashingEmbedder:
    """``embed(texts) -> (len(texts), dim) float32`` rows of unit length (zero rows for texts
    with no kept token). ``n_threads`` is the default thread count of ``embed``."""

    VERSION = 1
    lexical = True  # word counts: fused with BM25 at a lower weight (retrieve.fusion)

    def __init__(
        self,
        dim: int = 256,
        *,
        stop_words: bool | Iterable[str] = True,
        fold_plurals: bool = True,
        n_threads: int = 1,
    ) -> None:
        self._dim = positive(dim, "dim")
        self._tokens = TokenSettings.make(stop_words, fold_plurals)
        self.n_threads = positive(n_threads, "n_threads")

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
        threads = self.n_threads if n_threads is None else positive(n_threads, "n_threads")
        batch = native_batch(texts)
        out = np.zeros((batch.n, self._dim), dtype=np.float32)
        rows = RowCursor(batch.n, _grain(self._dim))
        helpers = min(threads, batch.n // MIN_ROWS_PER_THREAD) - 1
        if helpers < 1:
            rows.fill_hashing_rows(batch, self._tokens, out)
            return out
        # The calling thread works too; every thread claims grains of rows from the shared
        # ``rows`` until none are left, so the split follows each core's actual speed.
        threads = helpers + 1
        each_at_once(
            lambda _: rows.fill_hashing_rows(batch, self._tokens, out), range(threads), threads
        )
        return out

    @property
    def token_settings(self) -> TokenSettings:
        """How this embedder tokenizes (stop words, plural folding)."""
        return self._tokens

    def embed_and_hash(self, texts: Sequence[str]) -> tuple[np.ndarray, TokenHashes]:
        """``(embed(texts, n_threads=1), hash_tokens(texts, **token_settings.as_kwargs()))``
        from one scan of the texts (the index build counts BM25 terms from the same tokens
        it embeds); the same arrays as the two calls, tested equal to them."""
        batch = native_batch(texts)
        out = np.zeros((batch.n, self._dim), dtype=np.float32)
        return out, hash_tokens_and_embed(batch, self._tokens, out)

    def __repr__(self) -> str:
        return f"HashingEmbedder({self.name!r}, n_threads={self.n_threads})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HashingEmbedder) and self.config() == other.config()

    def __hash__(self) -> int:
        return hash(self.name)


def _grain(dim: int) -> int:
    """Rows per claim: at least ``GRAIN_ROWS`` texts (a claim is one atomic add, but a
    grain should be worth it) and at least ``GRAIN_BYTES`` of output, so that with narrow
    rows two threads share a cache line only at the edges of a grain, not all along it."""
    return max(GRAIN_ROWS, -(-GRAIN_BYTES // (4 * dim)))
