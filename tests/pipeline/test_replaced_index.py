"""The index an update replaces: its maps closed before it is removed, removed in process by
the library and by a detached ``rm`` for the command line, and never left for good."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_streaming import make_corpus

from docqa.build import IndexSettings, build_index
from docqa.index import open_index, writer


def _mapped_deleted() -> list[str]:
    with open("/proc/self/maps") as maps:
        return [line.split(None, 5)[-1].strip() for line in maps if "(deleted)" in line]


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc")
def test_an_update_closes_the_previous_index_maps_before_replacing_it(tmp_path: Path) -> None:
    docs = make_corpus(tmp_path / "docs", 12)
    build_index([docs], tmp_path / "ix", IndexSettings(dim=16), workers=1)
    (docs / "a" / "page-0001.md").write_text("# Changed\n\nNew words here.\n")
    before = set(_mapped_deleted())
    report = build_index([docs], tmp_path / "ix", IndexSettings(dim=16), workers=1)
    assert report.reused > 0
    # the replaced files were unlinked: none may still be mapped (their blocks would only be
    # freed when this process exits)
    assert not [m for m in set(_mapped_deleted()) - before if str(tmp_path) in m]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ix.lock", "docs", "ix"]


def test_the_command_line_leaves_the_removal_to_a_detached_rm(tmp_path: Path) -> None:
    docs = make_corpus(tmp_path / "docs", 12)
    cmd = [sys.executable, "-m", "docqa", "index", str(docs), "--index", "ix", "--quiet"]
    subprocess.run(cmd, cwd=tmp_path, check=True, capture_output=True, timeout=120)
    (docs / "a" / "page-0002.md").write_text("# Changed\n\nOther words.\n")
    done = subprocess.run(cmd, cwd=tmp_path, check=True, capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert "reused" in done.stdout and done.stderr == ""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        names = sorted(p.name for p in tmp_path.iterdir())
        if names == [".ix.lock", "docs", "ix"]:
            break
        time.sleep(0.05)
    assert names == [".ix.lock", "docs", "ix"]
    open_index(tmp_path / "ix").verify()


def test_without_rm_the_replaced_index_is_removed_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_rm(*args: object, **kwargs: object) -> None:
        raise FileNotFoundError("rm")

    monkeypatch.setattr(subprocess, "Popen", no_rm)
    old = tmp_path / "old"
    (old / "arrays").mkdir(parents=True)
    (old / "arrays" / "x.npy").write_bytes(b"x")
    writer._discard(old, detach=True)
    assert not old.exists()
