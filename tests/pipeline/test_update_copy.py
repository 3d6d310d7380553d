"""An update copies the reused rows a few at a time through reused buffers: the same bytes
as a fresh build for any chunk size, and a previous index cut short is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_streaming import assert_same_bytes, make_corpus

from docqa.build import IndexSettings, build_index
from docqa.errors import IndexCorrupt
from docqa.pipeline import stream


@pytest.mark.parametrize("copy_rows", [1, 3, 1000])
@pytest.mark.parametrize("storage", ["float32", "int8"])
def test_update_copying_in_chunks_equals_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, copy_rows: int, storage: str
) -> None:
    monkeypatch.setattr(stream, "COPY_ROWS", copy_rows)
    docs = make_corpus(tmp_path / "docs", 30)
    settings = IndexSettings(dim=16, storage=storage)
    build_index([docs], tmp_path / "ix", settings, workers=1)
    (docs / "a" / "page-0004.md").write_text("# Changed\n\nThe copier moved to room 2.\n")
    (docs / "b" / "page-0009.md").unlink()
    updated = build_index([docs], tmp_path / "ix", settings, workers=1)
    build_index([docs], tmp_path / "fresh", settings, workers=1)
    assert updated.reused > 3 * copy_rows or copy_rows == 1000  # several chunks a span
    assert_same_bytes(tmp_path / "ix", tmp_path / "fresh")


def test_a_file_that_ends_early_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "short.bin"
    path.write_bytes(b"12345")
    with open(path, "rb") as f, pytest.raises(IndexCorrupt, match="truncated; rebuild it"):
        stream._read(f, memoryview(bytearray(8)))
    with open(path, "rb") as f:
        assert bytes(stream._read(f, memoryview(bytearray(5)))) == b"12345"
