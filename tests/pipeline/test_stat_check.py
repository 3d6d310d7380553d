"""The update's stat pre-check: a file whose (size, mtime, ctime, inode, device) did not
change since the previous build, and which was not changed within the racy window of that
build's scan, is not read at all; anything else is read and hashed, and the update is
always the same bytes as a fresh build."""

from __future__ import annotations

import filecmp
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_delta import assert_same_answers

from docqa.build import IndexSettings, build_index
from docqa.index import format as fmt
from docqa.index.shards import is_sharded
from docqa.pipeline import sources, stream, work
from docqa.pipeline.sources import RACY_NS, stat_of, stat_trusted

SETTINGS = IndexSettings(dim=16)


def write_corpus(root: Path, n: int) -> Path:
    for i in range(n):
        page = root / f"d{i % 2}" / f"p{i:02d}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"# Page {i}\n\n" + " ".join(f"w{(i * j) % 31}" for j in range(20)) + "\n")
    return root


def same_bytes(a: Path, b: Path) -> None:
    """The bytes of a fresh build, or for an update written as a delta, its answers."""
    if is_sharded(a):
        assert_same_answers(a, b)
        return
    names = sorted(str(p.relative_to(a)) for p in a.rglob("*") if p.is_file())
    assert names == sorted(str(p.relative_to(b)) for p in b.rglob("*") if p.is_file())
    data = [n for n in names if n != fmt.MANIFEST]
    assert [n for n in data if not filecmp.cmp(a / n, b / n, shallow=False)] == []


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Names of the source files read (by the main process's check or by a task)."""
    seen: list[str] = []

    def counting(path: Path) -> object:
        seen.append(path.name)
        return original(path)

    original = stream.read_bytes
    monkeypatch.setattr(stream, "read_bytes", counting)
    monkeypatch.setattr(work, "read_bytes", counting)
    monkeypatch.setattr(stream, "POOL_BYTES", 1 << 40)  # tasks run here, where we count
    yield seen


def update(docs: Path, tmp: Path, reads: list[str], **kw: object) -> list[str]:
    """Update ``tmp/ix`` from ``docs``, check it equals a fresh build; the files read."""
    reads.clear()
    build_index([docs], tmp / "ix", SETTINGS, workers=1, **kw)  # type: ignore[arg-type]
    got = sorted(reads)
    build_index([docs], tmp / "fresh", SETTINGS, workers=1)
    same_bytes(tmp / "ix", tmp / "fresh")
    return got


def test_unchanged_files_are_not_read_edited_ones_are(
    tmp_path: Path, reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sources, "RACY_NS", 0)  # no racy window: every stat is trusted
    docs = write_corpus(tmp_path / "docs", 6)
    build_index([docs], tmp_path / "ix", SETTINGS, workers=1)
    assert update(docs, tmp_path, reads) == []
    page = docs / "d0" / "p02.md"
    before = page.stat()
    text = page.read_text()
    page.write_text(text.replace("Page 2", "Page X"))  # same size, other bytes
    os.utime(page, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the old mtime
    assert page.stat().st_size == before.st_size
    assert page.stat().st_mtime_ns == before.st_mtime_ns
    assert update(docs, tmp_path, reads) == ["p02.md", "p02.md"]  # checked, then parsed
    grown = docs / "d1" / "p03.md"
    old = grown.stat()
    grown.write_text(grown.read_text() + "\nmore words here\n")
    os.utime(grown, ns=(old.st_atime_ns, old.st_mtime_ns - 10**9))  # mtime set back
    assert update(docs, tmp_path, reads) == ["p03.md", "p03.md"]


def test_rename_delete_and_add(
    tmp_path: Path, reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sources, "RACY_NS", 0)
    docs = write_corpus(tmp_path / "docs", 6)
    build_index([docs], tmp_path / "ix", SETTINGS, workers=1)
    (docs / "d0" / "p00.md").rename(docs / "d0" / "renamed.md")
    (docs / "d1" / "p01.md").unlink()
    (docs / "d1" / "new.md").write_text("# New\n\nfresh words\n")
    # a new file is parsed; a renamed one is a new source; nothing else is read
    assert update(docs, tmp_path, reads) == ["new.md", "renamed.md"]


def test_a_file_changed_within_the_racy_window_is_hashed(tmp_path: Path, reads: list[str]) -> None:
    docs = write_corpus(tmp_path / "docs", 4)  # written just now: within RACY_NS of the scan
    build_index([docs], tmp_path / "ix", SETTINGS, workers=1)
    page = docs / "d0" / "p00.md"
    before = page.stat()
    page.write_text(page.read_text().replace("Page 0", "Page Z"))  # same size, same tick
    os.utime(page, ns=(before.st_atime_ns, before.st_mtime_ns))
    meta = json.loads((tmp_path / "ix" / fmt.MANIFEST).read_text())["meta"]
    recorded = meta["files"]["d0/p00.md"]["stat"]
    assert not stat_trusted(recorded, stat_of(before), meta["scanned_ns"])  # racily clean
    # every known file is read and hashed again (none was trusted), the edited one parsed
    assert update(docs, tmp_path, reads) == sorted(
        ["p00.md", "p00.md", "p01.md", "p02.md", "p03.md"]
    )


def test_verify_and_an_older_manifest_trust_no_stat(
    tmp_path: Path, reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sources, "RACY_NS", 0)
    docs = write_corpus(tmp_path / "docs", 3)
    build_index([docs], tmp_path / "ix", SETTINGS, workers=1)
    assert update(docs, tmp_path, reads, verify=True) == ["p00.md", "p01.md", "p02.md"]
    manifest = tmp_path / "ix" / fmt.MANIFEST
    doc = json.loads(manifest.read_text())
    del doc["meta"]["scanned_ns"]  # as a build before the stat check wrote it
    for record in doc["meta"]["files"].values():
        del record["stat"]
    manifest.write_text(json.dumps(doc))
    assert update(docs, tmp_path, reads) == ["p00.md", "p01.md", "p02.md"]
    assert update(docs, tmp_path, reads) == []  # the stats are recorded again


STATS = st.tuples(*[st.integers(0, 10**19)] * 5)


@given(STATS, STATS, st.integers(-(10**19), 10**19), st.booleans())
def test_stat_trusted_is_the_racy_git_rule(
    recorded: sources.Stat, now: sources.Stat, scanned: int, same: bool
) -> None:
    now = recorded if same else now
    expected = recorded == now and max(now[1], now[2]) < scanned - RACY_NS
    assert stat_trusted(list(recorded), now, scanned) is expected
    assert stat_trusted(tuple(recorded), now, scanned) is False  # not as JSON gives it
    assert stat_trusted(list(recorded), now, str(scanned)) is False


EDITS = st.lists(
    st.tuples(st.sampled_from(["same-size", "append", "delete", "add", "rename", "touch"]),
              st.integers(0, 7)),
    max_size=5,
)  # fmt: skip


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(EDITS)
def test_random_edit_scripts_update_to_a_fresh_build(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    edits: list[tuple[str, int]],
) -> None:
    monkeypatch.setattr(sources, "RACY_NS", 0)  # unchanged stats are trusted at once
    tmp = tmp_path_factory.mktemp("edits")
    docs = write_corpus(tmp / "docs", 8)
    old = time.time_ns() - 10**10
    build_index([docs], tmp / "ix", SETTINGS, workers=1)
    for op, i in edits:
        pages = sorted(docs.rglob("*.md"))
        page = pages[i % len(pages)] if pages else None
        if op == "add" or page is None:
            (docs / f"added{i}-{len(pages)}.md").write_text(f"# Added {i}\n\nnew w{i}\n")
        elif op == "same-size":
            page.write_bytes(page.read_bytes()[::-1])
        elif op == "append":
            page.write_text(page.read_text() + f"\nmore w{i}\n")
        elif op == "delete":
            page.unlink()
        elif op == "rename":
            page.rename(page.with_name(f"r{i}-{page.name}"))
        else:
            os.utime(page, ns=(old + 1, old + 1))
    if not any(docs.rglob("*.md")):
        return
    build_index([docs], tmp / "ix", SETTINGS, workers=1)
    build_index([docs], tmp / "fresh", SETTINGS, workers=1)
    same_bytes(tmp / "ix", tmp / "fresh")


def test_an_update_that_finds_nothing_changed_writes_nothing(
    tmp_path: Path, reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sources, "RACY_NS", 0)
    docs = write_corpus(tmp_path / "docs", 4)
    (docs / "notes.bin").write_bytes(b"\0")  # an unknown type: skipped, and said so
    first = build_index(
        [docs / "d0", docs / "d1", docs / "notes.bin"], tmp_path / "ix", SETTINGS, workers=1
    )
    manifest = (tmp_path / "ix" / fmt.MANIFEST).stat()
    reads.clear()
    again = build_index(
        [docs / "d0", docs / "d1", docs / "notes.bin"], tmp_path / "ix", SETTINGS, workers=1
    )
    assert reads == [] and (tmp_path / "ix" / fmt.MANIFEST).stat().st_ino == manifest.st_ino
    assert (again.documents, again.chunks, again.vocabulary, again.skipped) == (
        first.documents, first.chunks, first.vocabulary, first.skipped
    )  # fmt: skip
    assert (again.embedded, again.reused) == (0, first.chunks)
    page = docs / "d1" / "p01.md"
    os.utime(page, ns=(page.stat().st_atime_ns, page.stat().st_mtime_ns + 1))  # touched
    touched = build_index(
        [docs / "d0", docs / "d1", docs / "notes.bin"], tmp_path / "ix", SETTINGS, workers=1
    )
    assert reads == ["p01.md"] and touched.reused == first.chunks  # hashed, same bytes
    assert (tmp_path / "ix" / fmt.MANIFEST).stat().st_ino != manifest.st_ino


def test_a_damaged_index_is_checked_when_rows_are_reused_or_with_verify(
    tmp_path: Path, reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from docqa.errors import IndexCorrupt
    from docqa.index import open_index

    monkeypatch.setattr(sources, "RACY_NS", 0)
    docs = write_corpus(tmp_path / "docs", 4)
    build_index([docs], tmp_path / "ix", SETTINGS, workers=1)
    blob = tmp_path / "ix" / fmt.BLOB
    data = bytearray(blob.read_bytes())
    data[5] ^= 1
    blob.write_bytes(bytes(data))
    kept = build_index([docs], tmp_path / "ix", SETTINGS, workers=1)  # nothing to copy
    assert kept.embedded == 0 and not kept.warnings
    with pytest.raises(IndexCorrupt, match="chunks.blob fails its checksum"):
        open_index(tmp_path / "ix").verify()
    (docs / "d0" / "p00.md").write_text("# Edited\n\nnew words\n")  # now rows are copied
    rebuilt = build_index([docs], tmp_path / "ix", SETTINGS, workers=1)
    assert rebuilt.reused == 0 and "chunks.blob fails its checksum" in rebuilt.warnings[0]
    blob.write_bytes(blob.read_bytes()[:-1] + b"!")
    assert open_index(tmp_path / "ix").manifest  # opens (same size), damaged
    fixed = build_index([docs], tmp_path / "ix", SETTINGS, workers=1, verify=True)
    assert fixed.reused == 0 and fixed.warnings
    open_index(tmp_path / "ix").verify()
