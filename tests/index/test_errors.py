"""Every damaged-index case gives a clear error naming the file and what to do."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from index_helpers import EMBEDDER, chunk, sample

from docqa.errors import IndexCorrupt, IndexNotFound, IndexVersionError, InputError
from docqa.index import open_index, write_index


@pytest.fixture
def idx(tmp_path: Path) -> Path:
    chunks, vectors = sample(10)
    return write_index(
        tmp_path / "idx", chunks, vectors, embedder=EMBEDDER, arrays={"x": np.arange(3)}
    )


def test_no_index(tmp_path: Path) -> None:
    with pytest.raises(
        IndexNotFound,
        match=r"no index at .*nowhere; build one with `docqa index FOLDER --index .*nowhere`",
    ):
        open_index(tmp_path / "nowhere")


@pytest.mark.parametrize(
    "name", ["manifest.json", "vectors.npy", "chunks.blob", "chunks.offsets.npy", "arrays/x.npy"]
)
def test_missing_file(idx: Path, name: str) -> None:
    (idx / name).unlink()
    with pytest.raises(IndexCorrupt, match=rf"{name} is missing; rebuild it with `docqa index`"):
        open_index(idx)


def test_unknown_version(idx: Path) -> None:
    doc = json.loads((idx / "manifest.json").read_text())
    doc["version"] = 99
    (idx / "manifest.json").write_text(json.dumps(doc))
    with pytest.raises(
        IndexVersionError, match=r"manifest.json has format version 99, this docqa reads \[1, 2\]"
    ):
        open_index(idx)


@pytest.mark.parametrize("text", ["{not json", "[]", '{"format": "docqa-index", "version": 1}'])
def test_manifest_does_not_parse(idx: Path, text: str) -> None:
    (idx / "manifest.json").write_text(text)
    with pytest.raises(IndexCorrupt, match=r"manifest.json .*rebuild it with `docqa index`"):
        open_index(idx)


def test_vectors_of_wrong_size(idx: Path) -> None:
    with open(idx / "vectors.npy", "r+b") as f:
        f.truncate(200)
    with pytest.raises(
        IndexCorrupt, match=r"vectors.npy is 200 bytes but the manifest records 448; .*truncated"
    ):
        open_index(idx)


def test_vectors_of_wrong_dtype_same_size(idx: Path) -> None:
    np.save(idx / "vectors.npy", np.zeros((10, 8), np.int32))
    with pytest.raises(
        IndexCorrupt, match=r"vectors.npy holds int32 \(10, 8\), expected float32 \(10, 8\)"
    ):
        open_index(idx)


def test_vectors_of_wrong_shape_in_manifest(idx: Path) -> None:
    doc = json.loads((idx / "manifest.json").read_text())
    doc["dim"] = 4
    (idx / "manifest.json").write_text(json.dumps(doc))
    with pytest.raises(
        IndexCorrupt, match=r"vectors.npy holds float32 \(10, 8\), expected float32 \(10, 4\)"
    ):
        open_index(idx)


def test_checksum_mismatch_found_by_verify_only(idx: Path) -> None:
    with open(idx / "vectors.npy", "r+b") as f:
        f.seek(-1, 2)
        f.write(b"\x01")
    ix = open_index(idx)
    with pytest.raises(IndexCorrupt, match=r"vectors.npy fails its checksum .*rebuild it"):
        ix.verify()


def test_writer_refuses_non_finite_vectors(tmp_path: Path) -> None:
    chunks, vectors = sample(5)
    vectors[3, 1] = np.nan
    with pytest.raises(InputError, match="vector row 3 contains NaN"):
        write_index(tmp_path / "idx", chunks, vectors, embedder=EMBEDDER)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"vectors": np.zeros((4, 8), np.float32)}, r"shape \(5, d\) for 5 chunks"),
        ({"vectors": np.zeros((5, 7), np.float32)}, "dimension 7 but embedder 'hashing-8' says 8"),
        ({"embedder": {"config": {}}}, "needs a 'name'"),
        ({"embedder": object()}, "name, dim and config"),
        ({"arrays": {"../evil": np.zeros(2)}}, "array name '../evil' is not allowed"),
        ({"arrays": {"objs": np.array([{}], dtype=object)}}, "numeric arrays only"),
        ({"meta": {"when": object()}}, "meta must be JSON-serialisable"),
        (
            {"chunks": [chunk(0)] * 4 + [replace(chunk(9), metadata={"x": {1, 2}})]},
            "chunk 'guide/loans#p9' has metadata that is not JSON-serialisable",
        ),
    ],
)
def test_writer_argument_errors(tmp_path: Path, kwargs: dict, message: str) -> None:
    chunks, vectors = sample(5)
    args = {"chunks": chunks, "vectors": vectors, "embedder": EMBEDDER} | kwargs
    with pytest.raises(InputError, match=message):
        write_index(tmp_path / "idx", **args)
    assert list(tmp_path.iterdir()) == []


def test_writer_refuses_to_replace_a_non_index(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "keep.md").write_text("mine")
    chunks, vectors = sample(2)
    with pytest.raises(InputError, match="docs exists and is not a docqa index"):
        write_index(tmp_path / "docs", chunks, vectors, embedder=EMBEDDER)
    assert (tmp_path / "docs" / "keep.md").read_text() == "mine"
