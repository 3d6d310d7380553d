"""Writing and reading an index: round trip, lazy chunk reads, replacing, embedder checks."""

from __future__ import annotations

import mmap
from pathlib import Path

import numpy as np
import pytest
from index_helpers import EMBEDDER, chunk, sample

from docqa.errors import EmbedderMismatch, IndexCorrupt, InputError
from docqa.index import FORMAT_VERSION, files, open_index, write_index
from docqa.index import format as fmt
from docqa.search import topk


class FakeEmbedder:
    def __init__(self, name: str = "hashing-8", dim: int = 8, seed: int = 1) -> None:
        self.name, self.dim, self.seed = name, dim, seed

    def config(self) -> dict:
        return {"seed": self.seed, "ngrams": (1, 2)}


def _is_mapped(arr: np.ndarray) -> bool:
    """Whether ``arr`` is a view of a memory map (the reader maps each file whole)."""
    base = arr.base
    while isinstance(base, np.ndarray):
        base = base.base
    return isinstance(base, memoryview) and isinstance(base.obj, mmap.mmap)


def test_round_trip(tmp_path: Path) -> None:
    chunks, vectors = sample(50)
    indptr = np.array([0, 2, 5], np.int64)
    idf = np.linspace(0, 1, 7)
    write_index(
        tmp_path / "idx",
        chunks,
        vectors.astype(np.float64),
        embedder=FakeEmbedder(),
        arrays={"bm25.indptr": indptr, "tfidf_idf": idf},
        meta={"root": "docs"},
    )
    ix = open_index(tmp_path / "idx")
    assert len(ix) == 50 and list(ix.chunks) == chunks
    assert ix.chunk(-1) == chunks[-1] and ix.chunks[3:5] == chunks[3:5]
    assert _is_mapped(ix.vectors) and not ix.vectors.flags.writeable
    assert ix.vectors.dtype == np.float32 and ix.vectors.flags.c_contiguous
    np.testing.assert_array_equal(ix.vectors, vectors)
    np.testing.assert_array_equal(ix.array("bm25.indptr"), indptr)
    np.testing.assert_array_equal(ix.array("tfidf_idf"), idf)
    m = ix.manifest
    assert (m.format, m.version, m.dim, m.count, m.dtype) == (
        "docqa-index",
        FORMAT_VERSION,
        8,
        50,
        "float32",
    )
    assert m.embedder == {"name": "hashing-8", "dim": 8, "config": {"seed": 1, "ngrams": [1, 2]}}
    assert m.meta == {"root": "docs"} and m.created
    assert set(m.files) == {
        "vectors.npy",
        "chunks.offsets.npy",
        "chunks.blob",
        "arrays/bm25.indptr.npy",
        "arrays/tfidf_idf.npy",
    }
    ix.verify()
    assert topk(ix.vectors, vectors[7], 1).ids[0, 0] == 7


def test_empty_index(tmp_path: Path) -> None:
    write_index(tmp_path / "idx", [], np.zeros((0, 8), np.float32), embedder=EMBEDDER)
    ix = open_index(tmp_path / "idx")
    assert len(ix) == 0 and list(ix.chunks) == [] and ix.vectors.shape == (0, 8)
    ix.verify()
    with pytest.raises(IndexError, match="outside"):
        ix.chunk(0)


def test_chunks_are_read_lazily(tmp_path: Path) -> None:
    """Damaging chunk 1's bytes does not affect reading chunk 0 or 2: nothing else is decoded."""
    chunks, vectors = sample(3)
    write_index(tmp_path / "idx", chunks, vectors, embedder=EMBEDDER)
    ix = open_index(tmp_path / "idx")
    lo, hi = int(ix._offsets[1]), int(ix._offsets[2])
    with open(tmp_path / "idx" / fmt.BLOB, "r+b") as f:
        f.seek(lo)
        f.write(b"\xff" * (hi - lo))
    ix = open_index(tmp_path / "idx")
    assert ix.chunk(0) == chunks[0] and ix.chunk(2) == chunks[2]
    with pytest.raises(IndexCorrupt, match="chunk 1 .*chunks.blob"):
        ix.chunk(1)


@pytest.mark.parametrize("exchange", [True, False])
def test_replace_keeps_old_readers_working(tmp_path: Path, monkeypatch, exchange: bool) -> None:
    """An update can stream rows from the old index's memmap into the new one."""
    if not exchange:
        monkeypatch.setattr(files, "_exchange", lambda a, b: False)
    chunks, vectors = sample(20)
    write_index(tmp_path / "idx", chunks, vectors, embedder=EMBEDDER)
    old = open_index(tmp_path / "idx")
    keep = np.arange(0, 20, 2)
    new_chunks = [old.chunk(int(i)) for i in keep] + [chunk(99, "new")]
    new_vectors = np.vstack([old.vectors[keep], np.ones((1, 8), np.float32)])
    write_index(tmp_path / "idx", new_chunks, new_vectors, embedder=EMBEDDER)
    np.testing.assert_array_equal(old.vectors, vectors)
    assert old.chunk(19) == chunks[19]
    new = open_index(tmp_path / "idx")
    assert list(new.chunks) == new_chunks
    np.testing.assert_array_equal(new.vectors, new_vectors)
    new.verify()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx"]


def test_check_embedder(tmp_path: Path) -> None:
    chunks, vectors = sample(4)
    write_index(tmp_path / "idx", chunks, vectors, embedder=FakeEmbedder())
    ix = open_index(tmp_path / "idx")
    ix.check_embedder(FakeEmbedder())
    with pytest.raises(
        EmbedderMismatch, match=r"'hashing-8'.*'minilm'.*with this embedder \(docqa.build_index\)"
    ):
        ix.check_embedder(FakeEmbedder(name="minilm"))
    with pytest.raises(EmbedderMismatch, match=r"dim 8.*dim 16"):
        ix.check_embedder(FakeEmbedder(dim=16))
    with pytest.raises(EmbedderMismatch, match="'seed': 2"):
        ix.check_embedder(FakeEmbedder(seed=2))


def test_unknown_array_name(tmp_path: Path) -> None:
    chunks, vectors = sample(2)
    write_index(tmp_path / "idx", chunks, vectors, embedder=EMBEDDER, arrays={"a": np.zeros(2)})
    with pytest.raises(InputError, match=r"no array 'b'; it has \['a'\]"):
        open_index(tmp_path / "idx").array("b")
