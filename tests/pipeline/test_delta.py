"""Updates written as a delta beside the previous rows (docqa.pipeline.delta): every search
of the updated index answers as a fresh build of the same files does, in every mode, with
masks and in batches; a delta past its share, or ``rewrite``, writes the whole index, the
same bytes as a fresh build; the previous index survives a failed update."""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docqa.build import IndexSettings, build_index
from docqa.collection import Collection
from docqa.errors import IndexCorrupt, IndexStoreError
from docqa.index import format as fmt
from docqa.index import shards
from docqa.index.ownership import clean_debris
from docqa.index.reader import Index, open_index
from docqa.index.shards import is_sharded, open_sharded
from docqa.pipeline import delta, delta_maps, sources

SETTINGS = IndexSettings(dim=32)
QUESTIONS = [
    "w1 w2",
    "page part",
    "edited new words",
    "w13 w40 w77",
    "added page",
    "nothing like this zebra",
]


def corpus(root: Path, n: int = 30) -> Path:
    for i in range(n):
        page = root / f"d{i % 3}" / f"p{i:03d}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        words = " ".join(f"w{(i * j) % 97}" for j in range(20 + i % 40))
        page.write_text(f"# Page {i}\n\n{words}\n\n## Part {i}\n\n{words[::-1]} w1 w2\n")
    return root


def hits(collection: object, mode: str, q: str, k: int, **kw: object) -> list[tuple[str, float]]:
    found = collection.retriever(mode, guard=False).search(q, k, **kw)  # type: ignore[attr-defined]
    return [(h.chunk.id, h.score) for h in found]


def assert_same_statistics(ix: Path, fresh: Path) -> None:
    """The delta-updated index's BM25 statistics are those of a fresh build's rows."""
    got = open_sharded(ix).stats
    want = Collection.open(fresh).bm25  # type: ignore[union-attr]
    assert (got.n_docs, got.total_length) == (want.n_docs, int(want.lengths.sum()))
    np.testing.assert_array_equal(got.vocab, want.vocab[np.diff(want.indptr) > 0])
    np.testing.assert_array_equal(got.df, np.diff(want.indptr)[np.diff(want.indptr) > 0])


def assert_same_answers(ix: Path, fresh: Path) -> None:
    if is_sharded(ix):
        assert_same_statistics(ix, fresh)
    a, b = Collection.open(ix), Collection.open(fresh)
    n = len(b.chunks)
    assert len(a.chunks) == n
    assert [(c.id, c.text, c.section, dict(c.metadata)) for c in a.chunks] == [
        (c.id, c.text, c.section, dict(c.metadata)) for c in b.chunks
    ]
    masks = [None, np.arange(n) % 3 == 0, np.array([0, n // 2, n - 1])]
    for mode in ("dense", "keyword", "hybrid"):
        for q in QUESTIONS:
            for k in (1, 4, n + 5):
                for m in masks:
                    assert hits(a, mode, q, k, mask=m) == hits(b, mode, q, k, mask=m), (mode, q, k)
            ga = a.retriever(mode).search(q, 3)  # the guard judges with the live rows' stats
            gb = b.retriever(mode).search(q, 3)
            assert [(h.chunk.id, h.score) for h in ga] == [(h.chunk.id, h.score) for h in gb]
        for m in masks:
            got = a.search_batch(QUESTIONS, 5, mode=mode, mask=m)
            want = b.search_batch(QUESTIONS, 5, mode=mode, mask=m)
            assert [[(h.chunk.id, h.score) for h in x] for x in got] == [
                [(h.chunk.id, h.score) for h in x] for x in want
            ]


def same_bytes(a: Path, b: Path) -> None:
    names = sorted(str(p.relative_to(a)) for p in a.rglob("*") if p.is_file())
    assert names == sorted(str(p.relative_to(b)) for p in b.rglob("*") if p.is_file())
    differ = [n for n in names if n != fmt.MANIFEST and not filecmp.cmp(a / n, b / n, False)]
    assert differ == []


def built(tmp_path: Path) -> tuple[Path, Path]:
    """A corpus under ``tmp_path/docs`` and its index, built whole, at ``tmp_path/ix``."""
    docs = corpus(tmp_path / "docs")
    build_index([docs], tmp_path / "ix", SETTINGS)
    return docs, tmp_path / "ix"


def edit(docs: Path) -> None:
    (docs / "d1" / "p004.md").write_text("# Edited\n\nedited new words w1\n")


def delta_updated(tmp_path: Path) -> tuple[Path, Path]:
    """``built``, then one file edited and the index updated: by a delta."""
    docs, ix = built(tmp_path)
    edit(docs)
    build_index([docs], ix, SETTINGS)
    assert is_sharded(ix)
    return docs, ix


def fresh_build(docs: Path, where: Path) -> Path:
    shutil.rmtree(where, ignore_errors=True)
    build_index([docs], where, SETTINGS, workers=1)
    return where


def test_a_small_update_is_a_delta_that_answers_as_a_rebuild(tmp_path: Path) -> None:
    docs, ix = built(tmp_path)
    base_vectors = (ix / fmt.VECTORS).stat().st_ino
    edit(docs)
    (docs / "d2" / "p011.md").unlink()
    (docs / "d0" / "p100.md").write_text("# Added page\n\nadded page w2\n")
    report = build_index([docs], ix, SETTINGS)
    assert is_sharded(ix) and report.delta is not None and report.delta > 0
    assert (ix / "base" / fmt.VECTORS).stat().st_ino == base_vectors  # linked, not copied
    assert report.embedded == report.delta and report.reused == report.chunks - report.delta
    assert_same_answers(ix, fresh_build(docs, tmp_path / "fresh"))
    open_sharded(ix).verify()


def test_opening_a_delta_index_as_one_build_says_how_to_open_it(tmp_path: Path) -> None:
    # open_index reads one build; an index `docqa index` updated is a delta over its base,
    # which is no damage: the error must not say to remove the folder and rebuild it
    docs, ix = built(tmp_path)
    edit(docs)
    assert build_index([docs], ix, SETTINGS).delta is not None and is_sharded(ix)
    with pytest.raises(IndexStoreError, match="docqa-shards manifest, not a docqa index") as caught:
        open_index(ix)
    assert "docqa.Collection.open" in str(caught.value) and "remove" not in str(caught.value)
    assert Collection.open(ix).retriever("hybrid", guard=False).search("w1 w2", 3)


def test_a_second_delta_reuses_the_first_and_still_answers_as_a_rebuild(tmp_path: Path) -> None:
    docs, ix = delta_updated(tmp_path)
    (docs / "d2" / "p005.md").write_text("# Edited too\n\nedited w13 w40\n")
    second = build_index([docs], ix, SETTINGS)
    assert second.delta is not None and second.embedded < second.delta  # p004's rows copied
    assert_same_answers(ix, fresh_build(docs, tmp_path / "fresh"))


def test_many_deletions_rewrite_the_whole_index(tmp_path: Path) -> None:
    docs, ix = built(tmp_path)
    for page in sorted(docs.rglob("*.md"))[::4]:  # a quarter of the base's rows deleted
        page.unlink()
    assert build_index([docs], ix, SETTINGS).delta is None and not is_sharded(ix)
    same_bytes(ix, fresh_build(docs, tmp_path / "fresh"))


def test_rewrite_makes_an_up_to_date_delta_index_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sources, "RACY_NS", 0)
    docs, ix = delta_updated(tmp_path)
    assert build_index([docs], ix, SETTINGS).embedded == 0 and is_sharded(ix)  # up to date
    build_index([docs], ix, SETTINGS, rewrite=True)
    same_bytes(ix, fresh_build(docs, tmp_path / "fresh"))


def test_deletions_alone_keep_only_the_base(tmp_path: Path) -> None:
    docs, ix = built(tmp_path)
    (docs / "d0" / "p003.md").unlink()
    report = build_index([docs], ix, SETTINGS)
    assert report.delta == 0 and report.embedded == 0
    assert [e.path for e in open_sharded(ix).manifest.shards] == ["base"]
    assert_same_answers(ix, fresh_build(docs, tmp_path / "fresh"))


def test_nothing_changed_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sources, "RACY_NS", 0)  # no racy window: every stat is trusted
    docs, ix = built(tmp_path)
    edit(docs)
    os.utime(docs / "d1" / "p004.md", ns=(1, 10**9))
    build_index([docs], ix, SETTINGS)
    before = (ix / fmt.MANIFEST).stat().st_ino
    again = build_index([docs], ix, SETTINGS)
    assert (ix / fmt.MANIFEST).stat().st_ino == before
    assert again.embedded == 0 and again.reused == again.chunks


def test_touched_files_of_a_delta_index_only_update_its_manifest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sources, "RACY_NS", 0)
    docs, ix = delta_updated(tmp_path)
    parts = {p: (ix / p / fmt.MANIFEST).stat().st_ino for p in ("base", "delta")}
    maps = (ix / "global" / "map-base.npy").stat().st_ino
    touched = [docs / "d1" / "p004.md", docs / "d0" / "p003.md"]  # one in the delta, one in base
    for page in touched:
        page.write_bytes(page.read_bytes())  # same bytes, new stat: read and hashed again
    report = build_index([docs], ix, SETTINGS)
    assert report.embedded == 0 and report.reused == report.chunks and report.delta is None
    assert {p: (ix / p / fmt.MANIFEST).stat().st_ino for p in parts} == parts  # not rewritten
    assert (ix / "global" / "map-base.npy").stat().st_ino == maps
    recorded = open_sharded(ix).manifest.meta["files"]
    for page in touched:  # the new stats are recorded: the next run trusts them
        source = page.relative_to(docs).as_posix()
        assert recorded[source]["stat"][1] == page.stat().st_mtime_ns
    assert {rec["part"] for rec in recorded.values()} == {"base", "delta"}
    again = build_index([docs], ix, SETTINGS)
    assert again.embedded == 0
    assert_same_answers(ix, fresh_build(docs, tmp_path / "fresh"))
    open_sharded(ix).verify()


def test_past_its_share_the_whole_index_is_rewritten_as_a_fresh_build(tmp_path: Path) -> None:
    docs, ix = delta_updated(tmp_path)
    assert is_sharded(ix)
    for i in range(0, 30, 3):  # a third of the files: past DELTA_SHARE
        page = docs / "d0" / f"p{i:03d}.md"
        page.write_text(page.read_text().replace("Page", "Rewritten"))
    report = build_index([docs], ix, SETTINGS)
    assert report.delta is None and not is_sharded(ix)
    assert report.reused > 0  # the base's unchanged rows were copied, not re-embedded
    same_bytes(ix, fresh_build(docs, tmp_path / "fresh"))


def test_rewrite_writes_the_whole_index(tmp_path: Path) -> None:
    docs, ix = delta_updated(tmp_path)
    (docs / "d2" / "p005.md").write_text("# Edited too\n\nedited w13 w40\n")
    report = build_index([docs], ix, SETTINGS, rewrite=True)
    assert report.delta is None and not is_sharded(ix)
    same_bytes(ix, fresh_build(docs, tmp_path / "fresh"))


@pytest.mark.parametrize("options", [IndexSettings(dim=32, embedder="tfidf"),
                                     IndexSettings(dim=32, storage="int8")])  # fmt: skip
def test_tfidf_and_int8_indexes_are_rewritten_whole(tmp_path: Path, options: IndexSettings) -> None:
    docs = corpus(tmp_path / "docs")
    ix = tmp_path / "ix"
    build_index([docs], ix, options)
    edit(docs)
    assert build_index([docs], ix, options).delta is None and not is_sharded(ix)


def test_no_hard_links_means_a_whole_rewrite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs, ix = built(tmp_path)

    def refuse(src: object, dst: object) -> None:
        raise OSError(delta.errno.EPERM, "no links here")

    monkeypatch.setattr(delta.os, "link", refuse)
    edit(docs)
    assert build_index([docs], ix, SETTINGS).delta is None and not is_sharded(ix)
    same_bytes(ix, fresh_build(docs, tmp_path / "fresh"))
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".ix.tmp")]


def test_a_failed_delta_leaves_the_previous_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs, ix = built(tmp_path)
    before = hits(Collection.open(ix), "hybrid", "w1 w2", 5)

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(delta_maps, "write_npy", broken)
    edit(docs)
    with pytest.raises(OSError, match="No space"):
        build_index([docs], ix, SETTINGS)
    assert not is_sharded(ix) and hits(Collection.open(ix), "hybrid", "w1 w2", 5) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".ix.tmp")]


def test_a_damaged_delta_is_rebuilt_not_copied(tmp_path: Path) -> None:
    docs, ix = delta_updated(tmp_path)
    blob = ix / "delta" / fmt.BLOB
    data = bytearray(blob.read_bytes())
    data[5] ^= 0xFF
    blob.write_bytes(bytes(data))
    with pytest.raises(IndexCorrupt, match="checksum"):
        open_sharded(ix).verify()
    (docs / "d2" / "p005.md").write_text("# Edited too\n\nedited w13 w40\n")
    report = build_index([docs], ix, SETTINGS)
    assert any("previous index not reused" in w for w in report.warnings)
    open_sharded(ix).verify()
    assert_same_answers(ix, fresh_build(docs, tmp_path / "fresh"))


def test_a_bad_row_map_is_refused_at_open(tmp_path: Path) -> None:
    _, ix = delta_updated(tmp_path)
    path = ix / "global" / "map-base.npy"
    m = np.load(path)
    m[[0, 1]] = m[[1, 0]]  # same size, no longer increasing
    np.save(path, m)
    with pytest.raises(IndexCorrupt, match="row map"):
        open_sharded(ix)
    result = subprocess.run(
        [sys.executable, "-m", "docqa", "search", "w1", "--index", str(ix)],
        capture_output=True, check=False, timeout=120,
    )  # fmt: skip
    err = result.stderr.decode()
    assert result.returncode == 2 and len(err.strip().splitlines()) == 1, err
    assert "map-base.npy" in err and "rebuild" in err and "Traceback" not in err


def test_is_sharded_parses_only_a_manifest_with_the_mark(tmp_path: Path) -> None:
    docs, ix = built(tmp_path)
    assert not shards.may_be_sharded(ix) and not shards.is_sharded(ix)
    from docqa.index.meta import update_meta

    update_meta(ix, "note", '"format": "docqa-shards"')  # in a string: escaped, no mark
    assert not shards.may_be_sharded(ix)
    update_meta(ix, "note", {"format": "docqa-shards"})  # nested: the mark, not the format
    assert shards.may_be_sharded(ix) and not shards.is_sharded(ix)
    assert isinstance(shards.open_any(ix), Index)  # opened as what it is
    assert build_index([docs], ix, SETTINGS).embedded == 0  # still updated as a plain index
    _, updated = delta_updated(tmp_path / "other")
    assert shards.may_be_sharded(updated) and shards.is_sharded(updated)
    assert isinstance(shards.open_any(updated), shards.ShardedIndex)


def test_the_debris_of_a_killed_delta_is_cleaned(tmp_path: Path) -> None:
    _, ix = delta_updated(tmp_path)
    debris = tmp_path / ".ix.tmp-999999999-0badcafe"  # a pid no process has
    shutil.copytree(ix, debris)
    clean_debris(ix)
    assert not debris.exists() and is_sharded(ix)


EDITS = st.lists(
    st.tuples(st.sampled_from(["edit", "append", "delete", "add", "rename"]),
              st.integers(0, 29)),
    min_size=1, max_size=3,
)  # fmt: skip


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rounds=st.lists(EDITS, min_size=1, max_size=3))
def test_any_sequence_of_small_updates_answers_as_a_rebuild(
    tmp_path_factory: pytest.TempPathFactory, rounds: list[list[tuple[str, int]]]
) -> None:
    root = tmp_path_factory.mktemp("delta")
    docs = corpus(root / "docs")
    ix = root / "ix"
    build_index([docs], ix, SETTINGS)
    for n, edits in enumerate(rounds):
        for kind, i in edits:
            pages = sorted(docs.rglob("*.md"))
            page = pages[i % len(pages)]
            if kind == "edit":
                page.write_text(f"# Edited {n} {i}\n\nedited new words w{i}\n")
            elif kind == "append":
                with page.open("a") as f:
                    f.write(f"\n## Appended {n}\n\nw{i} appended\n")
            elif kind == "delete" and len(pages) > 5:
                page.unlink()
            elif kind == "add":
                (docs / "d0" / f"new-{n}-{i}.md").write_text(f"# Added page {i}\n\nadded w{i}\n")
            elif kind == "rename":
                page.rename(page.with_name(f"renamed-{n}-{page.name}"))
        build_index([docs], ix, SETTINGS)
        assert_same_answers(ix, fresh_build(docs, root / "fresh"))


def test_a_mapped_part_searches_deeper_only_past_deleted_rows() -> None:
    """``Shard.search`` of a part with deleted rows: deeper while its list is full and holds
    deleted rows, never past a list that is not full (every row with a score is in it)."""
    from docqa.shards.search import Shard
    from docqa.types import TopK

    ids = np.array([-1, -1, 0, 1, 2, 3, -1, 4], dtype=np.int64)  # rows 0, 1, 6 deleted
    scores = np.array([9, 8, 7, 6, 5, 4, 3, 2], dtype=np.float32)  # row order = score order
    asked: list[int] = []

    def run(k: int, mask: object, hits: int = 8) -> TopK:
        asked.append(k)
        n = min(k, hits)
        s = np.full((1, k), -np.inf, np.float32)
        r = np.full((1, k), -1, np.int64)
        s[0, :n], r[0, :n] = scores[:n], np.arange(n)
        return TopK(s, r)

    shard = Shard(0, np.zeros((8, 2), np.float32), None, ids)  # type: ignore[arg-type]
    got = shard.search(run, 3, None)
    assert got.ids.tolist() == [[0, 1, 2]] and got.scores.tolist() == [[7, 6, 5]]
    assert asked == [3, 6]  # two deleted rows in the first 3: once more, deeper
    asked.clear()
    short = shard.search(lambda k, m: run(k, m, hits=2), 3, None)  # only rows 0, 1 score
    assert short.ids.tolist() == [[-1, -1, -1]] and asked == [3]  # not full: no deeper search
    seen: list[object] = []
    live = np.array([7])  # a request mask holds live rows only: searched once, as asked
    shard.search(lambda k, m: (seen.append(m), run(k, m))[1], 2, live)
    assert len(seen) == 1 and seen[0] is live


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 6), max_size=12), st.data())
def test_spans_map_equals_its_slice_by_slice_twin(lengths: list[int], data: st.DataObject) -> None:
    """A part's files, each a span of rows, some left out (removed), laid end to end in the
    whole in scan order (which need not be the part's order)."""
    starts = np.cumsum([0, *lengths])
    size = int(starts[-1]) + data.draw(st.integers(0, 3))
    kept = [i for i in range(len(lengths)) if data.draw(st.booleans())]
    order = data.draw(st.permutations(kept))
    spans, row = [], data.draw(st.integers(0, 5))
    for i in order:
        spans.append((int(starts[i]), int(starts[i + 1]), row))
        row += lengths[i] + data.draw(st.integers(0, 2))  # another part's rows between
    got = delta_maps.spans_map(size, spans)
    assert got.dtype == np.int64
    assert np.array_equal(got, delta_maps.spans_map_reference(size, spans))
