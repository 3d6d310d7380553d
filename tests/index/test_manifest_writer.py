"""One writer of ``manifest.json`` (``docqa.index.files.write_manifest``): every manifest on disk
after a build, a delta update, a stats-only refresh, a calibration, a rewrite and a sharded
build is bytes it wrote, and it leaves no temporary file behind."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from docqa.build import IndexSettings, build_index
from docqa.index import files
from docqa.index import format as fmt
from docqa.index.meta import update_meta
from docqa.index.shards import is_sharded, open_sharded
from docqa.shards.build import build_sharded

SETTINGS = IndexSettings(dim=32)
LIBRARY = Path(__file__).resolve().parents[2] / "examples" / "library"


def library(root: Path) -> Path:
    """A copy of the example library to change."""
    return Path(shutil.copytree(LIBRARY, root))


class Recorder:
    """Wraps ``write_manifest`` wherever the package holds it; keeps every text it wrote."""

    def __init__(self, original: Callable[..., Path]) -> None:
        self.original = original
        self.texts: set[str] = set()
        self.calls = 0

    def __call__(self, folder: Path, manifest: Any, *, sync: bool = True) -> Path:
        self.calls += 1
        self.texts.add(manifest.to_json())
        return self.original(folder, manifest, sync=sync)


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    original = files.write_manifest  # a module imported later takes the wrapper from files
    rec = Recorder(original)
    holders = [m for name, m in sys.modules.items() if name.startswith("docqa.")]
    for module in holders:
        if getattr(module, "write_manifest", None) is original:
            monkeypatch.setattr(module, "write_manifest", rec)
    return rec


def manifests(index: Path) -> list[Path]:
    """The index's manifest and, for a sharded or delta-updated one, each part's."""
    found = [index / fmt.MANIFEST]
    if is_sharded(index):
        found += [
            index / entry.path / fmt.MANIFEST for entry in open_sharded(index).manifest.shards
        ]
    return found


def assert_written_by_the_writer(index: Path, rec: Recorder, calls_before: int) -> int:
    assert rec.calls > calls_before
    for path in manifests(index):
        assert path.read_text(encoding="utf-8") in rec.texts, path
    assert not [p for p in index.rglob(f".{fmt.MANIFEST}*")]
    return rec.calls


def test_every_manifest_is_written_by_write_manifest(tmp_path: Path, recorder: Recorder) -> None:
    docs, ix = library(tmp_path / "docs"), tmp_path / "ix"
    build_index([docs], ix, SETTINGS)
    calls = assert_written_by_the_writer(ix, recorder, 0)

    (docs / "hours.txt").write_text("Hours\n\nOpen every day from nine to five.\n")
    build_index([docs], ix, SETTINGS)
    assert is_sharded(ix)  # a delta beside the base
    calls = assert_written_by_the_writer(ix, recorder, calls)

    later = time.time() + 5
    os.utime(docs / "loans.md", (later, later))  # only a stat changes: the meta refreshed
    build_index([docs], ix, SETTINGS)
    calls = assert_written_by_the_writer(ix, recorder, calls)

    update_meta(ix, "guard", {"min_coverage": 0.3})  # what ``docqa calibrate`` stores
    calls = assert_written_by_the_writer(ix, recorder, calls)

    build_index([docs], ix, SETTINGS, rewrite=True)
    assert not is_sharded(ix)
    calls = assert_written_by_the_writer(ix, recorder, calls)

    build_sharded([docs], tmp_path / "sharded", SETTINGS, shard_rows=10)
    assert len(manifests(tmp_path / "sharded")) > 2
    assert_written_by_the_writer(tmp_path / "sharded", recorder, calls)


def test_write_manifest_replaces_the_old_one_whole(tmp_path: Path) -> None:
    docs, ix = library(tmp_path / "docs"), tmp_path / "ix"
    build_index([docs], ix, SETTINGS)
    manifest = fmt.Manifest.from_json((ix / fmt.MANIFEST).read_text(encoding="utf-8"), "m")
    changed = type(manifest)(**{**manifest.__dict__, "meta": {**manifest.meta, "x": 1}})
    assert files.write_manifest(ix, changed, sync=False) == ix / fmt.MANIFEST
    assert (ix / fmt.MANIFEST).read_text(encoding="utf-8") == changed.to_json()
    assert sorted(p.name for p in ix.iterdir() if p.name.startswith(".")) == []
