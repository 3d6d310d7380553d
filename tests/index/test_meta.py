"""Changing one entry of an index's meta in place, atomically."""

from __future__ import annotations

from pathlib import Path

import pytest

from docqa.build import build_index
from docqa.errors import IndexNotFound, InputError
from docqa.index import open_index
from docqa.index.meta import update_meta

LIBRARY = Path(__file__).resolve().parents[2] / "examples" / "library"


def test_update_meta_keeps_the_rest_and_the_index_opens(tmp_path: Path) -> None:
    build_index([LIBRARY], tmp_path / "ix")
    before = open_index(tmp_path / "ix").manifest
    update_meta(tmp_path / "ix", "guard", {"min_coverage": 0.3})
    after = open_index(tmp_path / "ix").manifest
    assert after.meta["guard"] == {"min_coverage": 0.3}
    assert {k: v for k, v in after.meta.items() if k != "guard"} == dict(before.meta)
    assert after.files == before.files and after.created == before.created
    assert sorted(p.name for p in (tmp_path / "ix").iterdir() if p.name.startswith(".")) == []


def test_update_meta_errors(tmp_path: Path) -> None:
    with pytest.raises(IndexNotFound, match="docqa index"):
        update_meta(tmp_path / "none", "guard", {})
    build_index([LIBRARY], tmp_path / "ix")
    with pytest.raises(InputError, match="JSON-ready"):
        update_meta(tmp_path / "ix", "guard", {"x": object()})
    assert "guard" not in open_index(tmp_path / "ix").manifest.meta
