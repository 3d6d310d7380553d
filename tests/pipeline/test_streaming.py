"""The streaming build: equal to the plain functions it composes, the same bytes for every
worker count, group size and postings budget, and an update equal to a rebuild."""

from __future__ import annotations

import filecmp
import shutil
from pathlib import Path

import numpy as np
import pytest

from docqa.build import IndexSettings, build_index
from docqa.embed import HashingEmbedder
from docqa.index import format as fmt
from docqa.index import open_index
from docqa.keyword import BM25Index
from docqa.pipeline import postings, stream
from docqa.text import embed_text, keyword_text, load_chunks

LIBRARY = Path(__file__).resolve().parents[2] / "examples" / "library"
WORDS = [
    "loan",
    "renewal",
    "fine",
    "hold",
    "room",
    "printer",
    "ebook",
    "event",
    "member",
    "card",
    "desk",
    "shelf",
]


def make_corpus(root: Path, n: int) -> Path:
    """``n`` Markdown pages in two sub-folders, deterministic, varied lengths and words."""
    for i in range(n):
        words = [WORDS[(i * 7 + j * j) % len(WORDS)] for j in range(20 + (i * 37) % 300)]
        body = " ".join(words)
        page = root / ("a" if i % 3 else "b") / f"page-{i:04d}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"# Page {i}\n\n{body}\n\n## More {i % 5}\n\n{body[::-1]}\n")
    return root


def index_files(ix: Path) -> list[str]:
    """The data files of an index (everything but the manifest, which holds a time stamp)."""
    return sorted(
        str(p.relative_to(ix)) for p in ix.rglob("*") if p.is_file() and p.name != fmt.MANIFEST
    )


def assert_same_bytes(a: Path, b: Path) -> None:
    files = index_files(a)
    assert files == index_files(b)
    mismatch = [f for f in files if not filecmp.cmp(a / f, b / f, shallow=False)]
    assert not mismatch, mismatch


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many groups and many spilled runs and merge slices, even on a small corpus."""
    monkeypatch.setattr(stream, "GROUP_FILES", 7)
    monkeypatch.setattr(postings, "DEFAULT_BUDGET", 500)
    monkeypatch.setattr(stream, "POOL_BYTES", 0)  # start the workers even for a small corpus


def test_stream_equals_the_plain_functions(tmp_path: Path, small_pieces: None) -> None:
    docs = make_corpus(tmp_path / "docs", 60)
    shutil.copytree(LIBRARY, docs / "library")
    report = build_index([docs], tmp_path / "ix", IndexSettings(dim=64), workers=1)
    chunks, _ = load_chunks([docs])
    texts = [embed_text(c) for c in chunks]
    ix = open_index(tmp_path / "ix")
    assert report.chunks == len(chunks) == len(ix)
    assert list(ix.chunks) == chunks
    assert np.array_equal(ix.vectors, HashingEmbedder(64).embed(texts))
    expected = BM25Index.from_texts([keyword_text(c) for c in chunks]).to_arrays()
    for name, arr in expected.items():
        got = ix.array(name)
        assert got.dtype == arr.dtype and np.array_equal(got, arr), name
    assert report.vocabulary == expected["bm25_vocab"].size


@pytest.mark.parametrize("weight", [1, 3])
def test_the_heading_weight_is_how_often_a_heading_counts_in_its_keyword_row(
    tmp_path: Path, weight: int
) -> None:
    build_index([LIBRARY], tmp_path / "ix", IndexSettings(dim=64, heading_weight=weight))
    chunks, _ = load_chunks([LIBRARY])
    rows = [keyword_text(c, heading_weight=weight) for c in chunks]
    ix = open_index(tmp_path / "ix")
    expected = BM25Index.from_texts(rows).to_arrays()
    for name, arr in expected.items():
        assert np.array_equal(ix.array(name), arr), name
    once = BM25Index.from_texts([embed_text(c) for c in chunks]).to_arrays()
    # the vocabulary is the same (the heading is in the embed text once); the counts are not,
    # save at weight 1
    assert np.array_equal(ix.array("bm25_vocab"), once["bm25_vocab"])
    assert np.array_equal(ix.array("bm25_lengths"), once["bm25_lengths"]) == (weight == 1)
    assert np.array_equal(ix.vectors, HashingEmbedder(64).embed([embed_text(c) for c in chunks]))


@pytest.mark.slow
def test_workers_give_the_same_bytes(tmp_path: Path, small_pieces: None) -> None:
    docs = make_corpus(tmp_path / "docs", 80)
    for n in (1, 2, 3):
        build_index([docs], tmp_path / f"ix{n}", IndexSettings(dim=32), workers=n)
    assert_same_bytes(tmp_path / "ix1", tmp_path / "ix2")
    assert_same_bytes(tmp_path / "ix1", tmp_path / "ix3")


def test_group_size_and_budget_change_no_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = make_corpus(tmp_path / "docs", 40)
    build_index([docs], tmp_path / "big", IndexSettings(dim=32), workers=1)
    monkeypatch.setattr(stream, "GROUP_FILES", 1)
    monkeypatch.setattr(postings, "DEFAULT_BUDGET", 1)
    build_index([docs], tmp_path / "tiny", IndexSettings(dim=32), workers=1)
    assert_same_bytes(tmp_path / "big", tmp_path / "tiny")


@pytest.mark.parametrize("embedder", ["hashing", "tfidf"])
def test_update_equals_rebuild_byte_for_byte(
    tmp_path: Path, small_pieces: None, embedder: str
) -> None:
    docs = make_corpus(tmp_path / "docs", 50)
    settings = IndexSettings(embedder=embedder, dim=32)
    build_index([docs], tmp_path / "ix", settings, workers=1)
    (docs / "a" / "page-0001.md").write_text("# Changed\n\nA new printer on every desk.\n")
    (docs / "b" / "page-0003.md").unlink()
    (docs / "a" / "page-0002.md").write_text("# Shorter\n\nloan\n")
    (docs / "b" / "new.md").write_text("# New page\n\nThe shelf by the desk holds ebooks.\n")
    updated = build_index([docs], tmp_path / "ix", settings, workers=1, rewrite=True)
    fresh = build_index([docs], tmp_path / "fresh", settings, workers=1)
    assert_same_bytes(tmp_path / "ix", tmp_path / "fresh")
    if embedder == "hashing":
        changed = sum(
            c.source in ("a/page-0001.md", "a/page-0002.md", "b/new.md")
            for c in open_index(tmp_path / "ix").chunks
        )
        assert updated.embedded == changed and updated.reused == fresh.chunks - changed
    else:
        assert updated.reused == 0 and updated.embedded == fresh.chunks


def test_update_with_nothing_changed_reuses_every_row(tmp_path: Path) -> None:
    docs = make_corpus(tmp_path / "docs", 20)
    first = build_index([docs], tmp_path / "ix", IndexSettings(dim=32), workers=1)
    before = {f: (tmp_path / "ix" / f).read_bytes() for f in index_files(tmp_path / "ix")}
    again = build_index([docs], tmp_path / "ix", IndexSettings(dim=32), workers=1)
    assert again.reused == first.chunks and again.embedded == 0
    assert before == {f: (tmp_path / "ix" / f).read_bytes() for f in index_files(tmp_path / "ix")}


def test_bad_worker_counts_are_refused(tmp_path: Path) -> None:
    from docqa.errors import InputError

    for bad in (0, -1, True, 1.5):
        with pytest.raises(InputError, match="workers must be an int >= 1"):
            build_index([LIBRARY], tmp_path / "ix", workers=bad)  # type: ignore[arg-type]
    assert not (tmp_path / "ix").exists()
