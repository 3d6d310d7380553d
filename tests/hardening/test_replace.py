"""Class 1, data loss: only a provable docqa index is ever replaced or cleaned up."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import EMBEDDER, assert_one_line_error, docqa, tagged
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docqa.errors import InputError
from docqa.index import open_index, write_index

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)


def web_app(root: Path, manifest: str) -> dict[str, str]:
    """A user's folder holding a manifest.json of its own; returns what it holds."""
    (root / "src").mkdir(parents=True)
    files = {"manifest.json": manifest, "index.html": "<h1>app</h1>", "src/main.js": "go()"}
    for rel, text in files.items():
        (root / rel).write_text(text)
    return files


def assert_untouched(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        assert (root / rel).read_text() == text, rel


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=st.dictionaries(st.text(max_size=8), json_values, max_size=5))
def test_a_folder_with_a_foreign_manifest_is_refused(tmp_path_factory, doc: dict) -> None:
    root = tmp_path_factory.mktemp("app") / "app"
    files = web_app(root, json.dumps(doc))
    with pytest.raises(InputError, match="exists and is not a docqa index"):
        write_index(root, *tagged(1), embedder=EMBEDDER)
    assert_untouched(root, files)


def test_a_real_index_with_a_user_file_added_is_refused(tmp_path: Path) -> None:
    root = write_index(tmp_path / "ix", *tagged(1), embedder=EMBEDDER)
    (root / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="'notes.txt', which is not an index file"):
        write_index(root, *tagged(2), embedder=EMBEDDER)
    assert (root / "notes.txt").read_text() == "mine"
    assert open_index(root).chunk(0).text == "build 1 row 0"


def test_an_index_of_an_unknown_version_is_not_replaced(tmp_path: Path) -> None:
    root = write_index(tmp_path / "ix", *tagged(1), embedder=EMBEDDER)
    doc = json.loads((root / "manifest.json").read_text())
    (root / "manifest.json").write_text(json.dumps({**doc, "version": 99}))
    with pytest.raises(InputError, match="not a docqa index"):
        write_index(root, *tagged(2), embedder=EMBEDDER)


def test_cli_index_into_a_web_app_folder_exits_2_and_keeps_it(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Parking\n\nThe car park closes at 9 p.m.\n")
    files = web_app(tmp_path / "app", json.dumps({"name": "app", "start_url": "/"}))
    line = assert_one_line_error(docqa("index", "docs", "--index", "app", cwd=tmp_path))
    assert "app exists and is not a docqa index" in line
    assert_untouched(tmp_path / "app", files)


def test_a_symlinked_index_replaces_its_target_and_keeps_the_link(tmp_path: Path) -> None:
    real = write_index(tmp_path / "real", *tagged(1), embedder=EMBEDDER)
    link = tmp_path / "link"
    link.symlink_to(real)
    write_index(link, *tagged(2), embedder=EMBEDDER)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert open_index(link).chunk(0).text == "build 2 row 0"
    assert open_index(real).chunk(0).text == "build 2 row 0"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real"]


def test_a_symlink_to_a_user_folder_is_refused(tmp_path: Path) -> None:
    files = web_app(tmp_path / "app", "{}")
    (tmp_path / "link").symlink_to(tmp_path / "app")
    with pytest.raises(InputError, match="app exists and is not a docqa index"):
        write_index(tmp_path / "link", *tagged(1), embedder=EMBEDDER)
    assert_untouched(tmp_path / "app", files)


def test_a_dangling_symlink_is_refused(tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to(tmp_path / "nowhere")
    with pytest.raises(InputError, match="is a symlink to .*nowhere, which does not exist"):
        write_index(tmp_path / "link", *tagged(1), embedder=EMBEDDER)
    assert not (tmp_path / "nowhere").exists()


def test_only_our_own_debris_is_cleaned_up(tmp_path: Path) -> None:
    write_index(tmp_path / "ix", *tagged(1), embedder=EMBEDDER)
    theirs = {
        ".ix.old-backup": "kept: not our name pattern",
        ".ix.old-0123abcd": "kept: a set-aside folder that is not an index",
        ".ix.tmp-999999999-0123abcd": "kept: holds a file the writer never makes",
    }
    for name, note in theirs.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "mine.txt").write_text(note)
    ours_tmp = tmp_path / ".ix.tmp-999999999-deadbeef"
    ours_tmp.mkdir()
    (ours_tmp / "vectors.npy").write_bytes(b"partial")
    ours_old = write_index(tmp_path / "aside", *tagged(3), embedder=EMBEDDER)
    ours_old.rename(tmp_path / ".ix.old-feedface")
    (tmp_path / ".ix.old-0badf00d").symlink_to(tmp_path / ".ix.old-backup")
    write_index(tmp_path / "ix", *tagged(2), embedder=EMBEDDER)
    for name, note in theirs.items():
        assert (tmp_path / name / "mine.txt").read_text() == note
    assert not ours_tmp.exists() and not (tmp_path / ".ix.old-feedface").exists()
    assert (tmp_path / ".ix.old-0badf00d").is_symlink()


def test_an_index_path_under_a_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Parking\n\nThe car park closes at 9 p.m.\n")
    (tmp_path / "afile").write_text("not a folder")
    line = assert_one_line_error(docqa("index", "docs", "--index", "afile/ix", cwd=tmp_path))
    assert "afile" in line and (tmp_path / "afile").read_text() == "not a folder"
