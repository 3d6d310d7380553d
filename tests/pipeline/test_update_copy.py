"""An update copies the reused rows a few at a time from maps of the previous index: the
same bytes as a fresh build for any chunk size, and a previous index cut short is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_streaming import assert_same_bytes, make_corpus

from docqa.build import IndexSettings, build_index
from docqa.errors import IndexCorrupt
from docqa.index import format as fmt
from docqa.index import open_index
from docqa.pipeline import copying


@pytest.mark.parametrize("copy_rows", [1, 3, 1000])
@pytest.mark.parametrize("storage", ["float32", "int8"])
def test_update_copying_in_chunks_equals_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, copy_rows: int, storage: str
) -> None:
    monkeypatch.setattr(copying, "COPY_ROWS", copy_rows)
    docs = make_corpus(tmp_path / "docs", 30)
    settings = IndexSettings(dim=16, storage=storage)
    build_index([docs], tmp_path / "ix", settings, workers=1)
    (docs / "a" / "page-0004.md").write_text("# Changed\n\nThe copier moved to room 2.\n")
    (docs / "b" / "page-0009.md").unlink()
    updated = build_index([docs], tmp_path / "ix", settings, workers=1, rewrite=True)
    build_index([docs], tmp_path / "fresh", settings, workers=1)
    assert updated.reused > 3 * copy_rows or copy_rows == 1000  # several chunks a span
    assert_same_bytes(tmp_path / "ix", tmp_path / "fresh")


def test_a_previous_file_cut_short_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "short.bin"
    path.write_bytes(b"12345")
    with pytest.raises(IndexCorrupt, match="truncated; rebuild it"):
        copying._Mapped(path, 8)
    whole = copying._Mapped(path, 5)
    assert whole.bytes.tobytes() == b"12345"
    whole.close()


def test_an_update_over_a_truncated_blob_is_refused(tmp_path: Path) -> None:
    """The previous index verified, then its records cut short before the copy: the copy
    refuses it instead of reading past the end of a map."""
    docs = make_corpus(tmp_path / "docs", 6)
    build_index([docs], tmp_path / "ix", workers=1)
    (docs / "a" / "page-0000.md").write_text("# Changed\n\nNew words.\n")
    previous = open_index(tmp_path / "ix")
    blob = tmp_path / "ix" / fmt.BLOB
    blob.write_bytes(blob.read_bytes()[:-10])
    with pytest.raises(IndexCorrupt, match="truncated; rebuild it"):
        copying.OldFiles(previous)
