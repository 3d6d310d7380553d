"""Building and updating an index from a folder: an update equals a full rebuild."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from docqa.build import SLOW_MARKDOWN, IndexSettings, build_index, ensure_index
from docqa.collection import Collection
from docqa.errors import IndexNotFound, InputError
from docqa.index import open_index
from docqa.text import SkippedFileWarning, markdown_md4c

LIBRARY = Path(__file__).resolve().parents[2] / "examples" / "library"


def same_index(a: Path, b: Path) -> None:
    """Two index directories hold the same rows, vectors, chunks and BM25 arrays."""
    x, y = open_index(a), open_index(b)
    assert len(x) == len(y)
    assert np.array_equal(x.vectors, y.vectors)
    assert list(x.chunks) == list(y.chunks)
    assert x.manifest.arrays == y.manifest.arrays
    for name in x.manifest.arrays:
        assert np.array_equal(x.array(name), y.array(name)), name
    assert x.manifest.meta["files"] == y.manifest.meta["files"]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    shutil.copytree(LIBRARY, tmp_path / "docs")
    return tmp_path / "docs"


@pytest.mark.parametrize("embedder", ["hashing", "tfidf"])
def test_update_after_edit_add_and_delete_equals_full_rebuild(
    folder: Path, tmp_path: Path, embedder: str
) -> None:
    settings = IndexSettings(embedder=embedder, dim=64)
    first = build_index([folder], tmp_path / "ix", settings)
    assert first.reused == 0 and first.embedded == first.chunks
    loans = folder / "loans.md"
    loans.write_text(loans.read_text() + "\n\n## Late returns\n\nRing the bell twice.\n")
    (folder / "parking.md").write_text("# Parking\n\nThe car park closes at 9 p.m.\n")
    (folder / "wifi-old.md").unlink(missing_ok=True)
    (folder / "events.md").unlink()
    updated = build_index([folder], tmp_path / "ix", settings)
    rebuilt = build_index([folder], tmp_path / "fresh", settings)
    same_index(tmp_path / "ix", tmp_path / "fresh")
    assert rebuilt.reused == 0
    if embedder == "hashing":  # only the edited and the new page are embedded again
        changed = sum(
            c.source in ("loans.md", "parking.md") for c in open_index(tmp_path / "ix").chunks
        )
        assert changed == 7 and updated.embedded == changed, updated
        assert updated.reused == updated.chunks - changed
    else:  # a fitted embedder depends on every document: it is refitted and re-embeds all
        assert updated.reused == 0
    ids = {c.id for c in open_index(tmp_path / "ix").chunks}
    assert "parking#parking" in ids and "loans#late-returns" in ids
    assert not any(i.startswith("events#") for i in ids)


def test_changed_settings_rebuild_everything(folder: Path, tmp_path: Path) -> None:
    build_index([folder], tmp_path / "ix", IndexSettings(dim=64))
    again = build_index([folder], tmp_path / "ix", IndexSettings(dim=32))
    assert again.reused == 0 and open_index(tmp_path / "ix").manifest.dim == 32


def test_a_changed_heading_weight_rebuilds_and_a_bad_one_is_refused(
    folder: Path, tmp_path: Path
) -> None:
    build_index([folder], tmp_path / "ix", IndexSettings(dim=64))
    again = build_index([folder], tmp_path / "ix", IndexSettings(dim=64, heading_weight=1))
    assert again.reused == 0  # BM25 rows changed: nothing is reused
    before = (tmp_path / "ix" / "manifest.json").read_bytes()
    for bad in (0, -2):
        with pytest.raises(InputError, match="heading_weight must be an int >= 1"):
            build_index([folder], tmp_path / "ix", IndexSettings(dim=64, heading_weight=bad))
    assert (tmp_path / "ix" / "manifest.json").read_bytes() == before  # the index stays


def test_ensure_index_skips_while_nothing_changed(folder: Path, tmp_path: Path) -> None:
    assert ensure_index([folder], tmp_path / "ix") is not None
    assert ensure_index([folder], tmp_path / "ix") is None
    (folder / "hours.txt").write_text("Opening hours\n\nWe are open every day.\n")
    report = ensure_index([folder], tmp_path / "ix")
    assert report is not None and report.reused > 0


def test_collection_round_trip_and_errors(folder: Path, tmp_path: Path) -> None:
    build_index([folder], tmp_path / "ix", IndexSettings(embedder="tfidf"))
    collection = Collection.open(tmp_path / "ix")
    hits = collection.retriever("dense").search("What does RNW-409 mean?", 3)
    assert hits and hits[0].section == "renewals#when-a-renewal-is-refused"
    with pytest.raises(InputError, match="unknown mode 'fuzzy'"):
        collection.retriever("fuzzy")
    with pytest.raises(IndexNotFound, match="docqa index FOLDER --index"):
        Collection.open(tmp_path / "nothing-here")


def test_bad_settings_are_refused_before_any_work() -> None:
    with pytest.raises(InputError, match="unknown embedder 'bert'"):
        IndexSettings(embedder="bert")
    with pytest.raises(InputError, match="dim must be an int >= 1, got 0"):
        IndexSettings(dim=0)
    with pytest.raises(ValueError, match="overlap"):
        IndexSettings(max_words=10, overlap=10)


def test_default_guard_on_the_sample_questions(tmp_path: Path) -> None:
    """The measured defaults (benchmarks/quality/guard_transfer.py): every mode keeps at least
    90% of the answerable sample questions (dense too: the guard judges the keyword side's
    evidence as well as the dense hits) and refuses at least four of the six unanswerable ones."""
    from docqa.eval import evaluate, load_questions

    build_index([LIBRARY], tmp_path / "ix")
    collection = Collection.open(tmp_path / "ix")
    questions = load_questions(LIBRARY.parent / "questions.jsonl")
    modes = {m: collection.retriever(m) for m in ("dense", "keyword", "hybrid")}
    report = evaluate(questions, modes, ks=(5,), rounds=10).to_json()["modes"]
    assert all(report[m]["refused_answerable"] <= 0.1 for m in modes)
    assert all(report[m]["refused_unanswerable"] >= 4 / 6 for m in modes)


@pytest.mark.parametrize("with_md4c", [True, False])
def test_a_build_says_when_markdown_takes_the_slow_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, with_md4c: bool
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Loans\n\nThree weeks.\n")
    (tmp_path / "txt").mkdir()
    (tmp_path / "txt" / "b.txt").write_text("Three weeks.\n")
    if not with_md4c:  # an install built without docqa._md4c
        monkeypatch.setattr(markdown_md4c, "_native", lambda: None)
    markdown = build_index(
        [tmp_path / "docs"], tmp_path / "i1", IndexSettings(embedder="hashing"), workers=1
    )
    text = build_index(
        [tmp_path / "txt"], tmp_path / "i2", IndexSettings(embedder="hashing"), workers=1
    )
    assert (SLOW_MARKDOWN in markdown.warnings) is not with_md4c
    assert SLOW_MARKDOWN not in text.warnings
    assert markdown.chunks == 1


@pytest.mark.parametrize("workers", [1, 2])
def test_a_page_that_asks_not_to_be_indexed_is_read_only_when_named(
    tmp_path: Path, workers: int
) -> None:
    # mdBook's print.html: skipped in a folder, read when the user names the file
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ch1.html").write_text("<h1>Loans</h1><p>Loans last three weeks.</p>")
    page = docs / "print.html"
    page.write_text(
        '<head><meta name="robots" content="noindex"></head>'
        "<body><h1>Loans</h1><p>Loans last three weeks.</p></body>"
    )
    settings = IndexSettings(embedder="hashing")
    with pytest.warns(SkippedFileWarning, match="print.html: the page asks not to be indexed"):
        walked = build_index([docs], tmp_path / "i1", settings, workers=workers)
    assert walked.documents == 1
    assert [s.path for s in walked.skipped] == ["print.html"]
    assert "give its path to index it" in walked.skipped[0].reason
    named = build_index([page], tmp_path / "i2", settings, workers=workers)
    assert (named.documents, len(named.skipped)) == (1, 0)
    assert {c.source for c in open_index(tmp_path / "i2").chunks} == {"print.html"}
