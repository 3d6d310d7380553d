"""The shortcuts of an update: files checked unchanged in the main process are not read
again by a task, small updates run without a pool, consecutive reused files are copied as
one span, each tested against the plain path it replaces (the merge of old and new postings:
test_update_merge.py)."""

from __future__ import annotations

import filecmp
import os
from pathlib import Path

import pytest

from docqa.build import IndexSettings, build_index
from docqa.embed import HashingEmbedder
from docqa.index import format as fmt
from docqa.pipeline import postings, stream
from docqa.pipeline.work import Task, run


def corpus(root: Path, n: int) -> Path:
    for i in range(n):
        page = root / f"d{i % 4}" / f"p{i:03d}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        words = " ".join(f"w{(i * j) % 97}" for j in range(30 + i % 50))
        page.write_text(f"# Page {i}\n\n{words}\n\n## Part\n\n{words[::-1]}\n")
    return root


def data_files(ix: Path) -> list[str]:
    return sorted(
        str(p.relative_to(ix)) for p in ix.rglob("*") if p.is_file() and p.name != fmt.MANIFEST
    )


def same_bytes(a: Path, b: Path) -> None:
    names = data_files(a)
    assert names == data_files(b)
    assert [n for n in names if not filecmp.cmp(a / n, b / n, shallow=False)] == []


def test_verified_files_are_not_read_by_the_task(tmp_path: Path) -> None:
    gone = tmp_path / "gone.md"  # does not exist: reading it would skip it
    task = Task(((gone, "gone.md"),), 120, 0, True, HashingEmbedder(16), {"gone.md": "ab"},
                verified={"gone.md": 12})  # fmt: skip
    (outcome,) = run(task).files
    assert outcome.reused and outcome.sha256 == "ab" and outcome.size == 12


def test_unchanged_reads_and_compares_the_sha(tmp_path: Path) -> None:
    docs = corpus(tmp_path / "docs", 4)
    files = [(p, p.name, p.stat().st_size) for p in sorted(docs.rglob("*.md"))]
    import hashlib

    known = {f[1]: hashlib.sha256(f[0].read_bytes()).hexdigest() for f in files}
    files[0][0].write_text("# Edited\n")
    known["missing.md"] = "00"
    files.append((tmp_path / "missing.md", "missing.md", 1))
    found = stream.unchanged(files, known)
    assert set(found) == {f[1] for f in files[1:4]}
    assert found[files[1][1]] == files[1][0].stat().st_size


@pytest.mark.parametrize("pool_bytes", [0, 1 << 40])  # always a pool / never a pool
def test_update_equals_rebuild_with_and_without_a_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pool_bytes: int
) -> None:
    monkeypatch.setattr(stream, "POOL_BYTES", pool_bytes)
    monkeypatch.setattr(stream, "GROUP_FILES", 5)
    monkeypatch.setattr(postings, "DEFAULT_BUDGET", 300)
    docs = corpus(tmp_path / "docs", 40)
    build_index([docs], tmp_path / "ix", IndexSettings(dim=16), workers=2)
    for i in (3, 4, 17):  # 3 and 4 are neighbours: reused spans on both sides of them
        (docs / f"d{i % 4}" / f"p{i:03d}.md").write_text(f"# Edited {i}\n\nw1 w2 new{i}\n")
    (docs / "d1" / "p009.md").unlink()
    os.utime(docs / "d2" / "p010.md", (0, 0))  # touched, same bytes: reused
    updated = build_index([docs], tmp_path / "ix", IndexSettings(dim=16), workers=2, rewrite=True)
    fresh = build_index([docs], tmp_path / "fresh", IndexSettings(dim=16), workers=1)
    same_bytes(tmp_path / "ix", tmp_path / "fresh")
    assert updated.reused + updated.embedded == fresh.chunks and updated.embedded < 10
