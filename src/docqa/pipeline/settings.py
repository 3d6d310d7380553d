"""How a collection is chunked and embedded (``IndexSettings``, recorded in the manifest's
``meta``), and the progress callback a build reports to."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from docqa._checks import positive
from docqa.embed.choices import EMBEDDERS, make_embedder
from docqa.embed.protocol import Embedder
from docqa.errors import InputError
from docqa.search.compact_names import STORAGES
from docqa.text.documents import READERS
from docqa.text.sections import HEADING_WEIGHT
from docqa.text.windows import MAX_WORDS, check_window

Progress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass(frozen=True, slots=True)
class IndexSettings:
    """How a collection is chunked and embedded; recorded in the manifest's ``meta``."""

    embedder: str = "hashing"
    dim: int = 256
    max_words: int = MAX_WORDS
    overlap: int = 0
    headings: bool = True
    heading_weight: int = HEADING_WEIGHT  # times a heading path counts in its BM25 row
    storage: str = "float32"  # "int8": int8 codes beside the vectors (docqa.search.compact)
    tenant_from_folder: bool = False  # chunk tenant = first folder of the file (docqa.tenants)
    # the readers' version, not a choice: an index of other readers reuses nothing (a file
    # unchanged since is read again, as a fresh build would read it)
    readers: int = field(default=READERS, init=False)

    def __post_init__(self) -> None:
        if self.embedder not in EMBEDDERS:
            raise InputError(f"unknown embedder {self.embedder!r}; choose one of {EMBEDDERS}")
        positive(self.dim, "dim")
        positive(self.heading_weight, "heading_weight")
        check_window("max_words", self.max_words, "overlap", self.overlap)
        if self.storage not in STORAGES:
            raise InputError(
                f"unknown storage {self.storage!r}; choose one of {', '.join(STORAGES)}"
            )

    def make_embedder(self) -> Embedder:
        """A new embedder of these settings' kind and dimension."""
        return make_embedder(self.embedder, dim=self.dim)
