"""The store's file feed reads what the index build reads (no database needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from docqa.build import IndexSettings
from docqa.stores.feed import ChunkFeed
from docqa.text import SkippedFileWarning


def test_a_page_that_asks_not_to_be_indexed_is_fed_only_when_named(tmp_path: Path) -> None:
    (tmp_path / "ch1.html").write_text("<h1>Loans</h1><p>Loans last three weeks.</p>")
    page = tmp_path / "print.html"
    page.write_text('<meta name="robots" content="noindex"><h1>All</h1><p>Every chapter.</p>')
    settings = IndexSettings(embedder="hashing")
    walked = ChunkFeed([tmp_path], settings)
    with pytest.warns(SkippedFileWarning, match="asks not to be indexed"):
        assert {c.source for c in walked.chunks()} == {"ch1.html"}
    assert [s.path for s in walked.skipped] == ["print.html"]
    named = ChunkFeed([page], settings)
    assert {c.source for c in named.chunks()} == {"print.html"} and not named.skipped
