"""Class 3, damaged indexes: cheap checks on open, everything in verify, no damaged row reused,
manifest paths confined to the index, and a rebuild that recovers by re-embedding."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from helpers import EMBEDDER, assert_one_line_error, docqa, flip_byte, reseal, tagged
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docqa.build import IndexSettings, build_index
from docqa.collection import Collection
from docqa.errors import IndexCorrupt
from docqa.index import format as fmt
from docqa.index import open_index, write_index

LIBRARY = Path(__file__).resolve().parents[2] / "examples" / "library"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pristine")
    shutil.copytree(LIBRARY, root / "docs")
    build_index([root / "docs"], root / "ix")
    return root


@pytest.fixture
def built(pristine: Path, tmp_path: Path) -> Path:
    """The sample library indexed at ``tmp_path/ix`` (a fresh copy per test)."""
    shutil.copytree(pristine / "docs", tmp_path / "docs", copy_function=shutil.copy2)
    shutil.copytree(pristine / "ix", tmp_path / "ix")
    return tmp_path / "ix"


def data_offset(path: Path) -> int:
    """Where the data of a .npy file starts (after its header)."""
    with open(path, "rb") as f:
        np.lib.format.read_magic(f)
        np.lib.format.read_array_header_1_0(f)
        return f.tell()


@pytest.mark.parametrize("rel", ["vectors.npy", "arrays/bm25_tf.npy", "chunks.blob"])
def test_a_flipped_data_byte_is_found_by_verify(built: Path, rel: str) -> None:
    start = data_offset(built / rel) if rel.endswith(".npy") else 0
    flip_byte(built / rel, start + 5)
    with pytest.raises(IndexCorrupt, match=f"{rel} fails its checksum"):
        open_index(built).verify()
    line = assert_one_line_error(docqa("verify", "--index", str(built), cwd=built.parent))
    assert f"{rel} fails its checksum" in line


def test_verify_ok_line(built: Path) -> None:
    result = docqa("verify", "--index", str(built), cwd=built.parent)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().startswith(f"ok: {built}: ")
    data = json.loads(docqa("verify", "--index", str(built), "--json", cwd=built.parent).stdout)
    assert data["ok"] is True and data["rows"] == len(open_index(built))


def test_an_update_never_reuses_damaged_rows(built: Path) -> None:
    docs = built.parent / "docs"
    flip_byte(built / "vectors.npy", data_offset(built / "vectors.npy") + 17)
    report = build_index([docs], built, verify=True)
    assert report.reused == 0 and report.embedded == report.chunks
    assert any("vectors.npy fails its checksum" in w for w in report.warnings)
    clean = build_index([docs], built.parent / "fresh")
    np.testing.assert_array_equal(open_index(built).vectors, open_index(clean.path).vectors)
    again = build_index([docs], built)
    assert again.reused == again.chunks and not again.warnings


def test_a_nan_row_with_a_matching_checksum_is_refused_and_rebuilt(built: Path) -> None:
    rel = built / "vectors.npy"
    data = bytearray(rel.read_bytes())
    start = data_offset(rel)
    data[start : start + 4] = np.float32(np.nan).tobytes()
    rel.write_bytes(bytes(data))
    reseal(built, "vectors.npy")
    with pytest.raises(IndexCorrupt, match="vectors.npy row 0 holds NaN or inf"):
        open_index(built).verify()
    # --verify: an update written as a delta links the previous rows unread
    result = docqa("index", "docs", "--index", "ix", "--verify", cwd=built.parent)
    assert result.returncode == 0, result.stderr
    assert b"warning: previous index not reused" in result.stdout
    open_index(built).verify()


@pytest.mark.parametrize(
    "bad",
    ["../../../../etc/passwd", "/etc/passwd", "arrays/../../x.npy", "arrays/x.npy/..", "x.npy",
     "arrays/sub/x.npy", "./vectors.npy", "arrays/.npy", "chunks.blob\x00"],
)  # fmt: skip
def test_manifest_paths_outside_the_layout_are_refused(built: Path, bad: str) -> None:
    doc = json.loads((built / "manifest.json").read_text())
    doc["files"][bad] = {"size": 1, "sha256": "0" * 64}
    (built / "manifest.json").write_text(json.dumps(doc))
    with pytest.raises(IndexCorrupt, match="which is not part of a docqa index") as info:
        open_index(built)
    assert "bytes" not in str(info.value)  # nothing is said about the file named
    assert_one_line_error(docqa("search", "renew", "--index", str(built), cwd=built.parent))


@given(rel=st.text(max_size=30))
def test_only_layout_names_are_allowed(rel: str) -> None:
    if fmt.allowed_file(rel):
        assert rel in (fmt.VECTORS, fmt.OFFSETS, fmt.BLOB) or (
            rel.startswith("arrays/") and rel.endswith(".npy") and rel.count("/") == 1
        )
        assert ".." not in rel.split("/") and "\x00" not in rel


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(offset=st.integers(0, 127), rel=st.sampled_from(["vectors.npy", "chunks.offsets.npy"]))
def test_a_flipped_header_byte_is_one_clear_error_or_caught_by_verify(
    tmp_path_factory, offset: int, rel: str
) -> None:
    root = write_index(tmp_path_factory.mktemp("h") / "ix", *tagged(1), embedder=EMBEDDER)
    flip_byte(root / rel, offset)
    with pytest.raises(IndexCorrupt, match="rebuild it with `docqa index FOLDER --index DIR`"):
        open_index(root).verify()


def test_a_damaged_npy_header_from_the_cli(built: Path) -> None:
    flip_byte(built / "vectors.npy", 12)
    line = assert_one_line_error(docqa("search", "renew", "--index", str(built), cwd=built.parent))
    assert "vectors.npy" in line


def test_a_manifest_that_is_a_directory(built: Path) -> None:
    (built / "manifest.json").unlink()
    (built / "manifest.json").mkdir()
    with pytest.raises(IndexCorrupt, match="manifest.json cannot be opened as a file|not a reg"):
        open_index(built)
    assert_one_line_error(docqa("search", "renew", "--index", str(built), cwd=built.parent))


def test_a_listed_file_that_is_a_symlink_is_refused(built: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.bin"
    shutil.move(built / "chunks.blob", outside)
    (built / "chunks.blob").symlink_to(outside)
    with pytest.raises(IndexCorrupt, match="chunks.blob cannot be opened as a file"):
        open_index(built)


def test_bm25_arrays_out_of_order_are_refused_on_open(built: Path) -> None:
    rel = "arrays/bm25_indptr.npy"
    indptr = np.load(built / rel)
    indptr[1], indptr[2] = indptr[2] + 5, indptr[1]
    np.save(built / rel, indptr)
    reseal(built, rel)
    with pytest.raises(IndexCorrupt, match="BM25 arrays"):
        Collection.open(built)


def test_chunk_offsets_out_of_order_are_refused_on_open(built: Path) -> None:
    offsets = np.load(built / fmt.OFFSETS)
    offsets[1], offsets[2] = offsets[2], offsets[1]
    np.save(built / fmt.OFFSETS, offsets)
    reseal(built, fmt.OFFSETS)
    with pytest.raises(IndexCorrupt, match="not in ascending order"):
        open_index(built)


def test_an_int8_bound_of_nan_with_a_matching_checksum_is_refused_and_rebuilt(
    built: Path,
) -> None:
    docs = built.parent / "docs"
    build_index([docs], built, IndexSettings(storage="int8"))
    rel = "arrays/int8_code_norm.npy"
    terms = np.load(built / rel)
    terms[7] = np.nan  # would hide row 7 from the native kernel's panel bound
    np.save(built / rel, terms)
    reseal(built, rel)
    with pytest.raises(IndexCorrupt, match=f"'int8_code_norm' \\({built / rel}\\) row 7 holds nan"):
        open_index(built).verify()
    line = assert_one_line_error(docqa("search", "fines", "--index", "ix", cwd=built.parent))
    assert "row 7 holds nan" in line and "--storage int8 --verify" in line
    result = docqa("index", "docs", "--index", "ix", "--storage", "int8", "--verify",
                   cwd=built.parent)  # fmt: skip
    assert result.returncode == 0, result.stderr
    open_index(built).verify()
