"""What the build overlaps to save wall time changes no byte: workers forked or started by a
fork server, rows handed to the disk early and fsynced while the postings merge, the merge's
slices computed by two threads, the manifest's faster pretty JSON."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_streaming import assert_same_bytes, make_corpus

from docqa.build import IndexSettings, build_index
from docqa.embed import HashingEmbedder
from docqa.index import builder as streaming
from docqa.index import format as fmt
from docqa.index import open_index
from docqa.index.builder import IndexBuilder
from docqa.pipeline import postings, stream
from docqa.pipeline.postings import _in_order


@pytest.fixture
def pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many groups, spilled runs and merge slices, workers even for a small corpus."""
    monkeypatch.setattr(stream, "GROUP_FILES", 5)
    monkeypatch.setattr(postings, "DEFAULT_BUDGET", 300)
    monkeypatch.setattr(stream, "POOL_BYTES", 0)


FORKED = """
import sys
from pathlib import Path
from docqa.build import IndexSettings, build_index
from docqa.pipeline import postings, stream
stream.GROUP_FILES, postings.DEFAULT_BUDGET, stream.POOL_BYTES = 5, 300, 0
assert stream._context().get_start_method() == "fork", "another thread runs"
build_index([Path(sys.argv[1])], Path(sys.argv[2]), IndexSettings(dim=32), workers=2)
"""


def test_forked_and_fork_server_workers_give_the_same_bytes(tmp_path: Path, pieces: None) -> None:
    """Forked in a fresh process (one thread: the suite's own process may run others by now,
    and then rightly gets the fork server); served here, with a second thread made sure of."""
    docs = make_corpus(tmp_path / "docs", 40)
    subprocess.run(
        [sys.executable, "-c", FORKED, str(docs), str(tmp_path / "forked")],
        check=True,
        timeout=300,
    )
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    try:
        assert stream._context().get_start_method() == "forkserver"
        build_index([docs], tmp_path / "served", IndexSettings(dim=32), workers=2)
    finally:
        stop.set()
        other.join()
    build_index([docs], tmp_path / "one", IndexSettings(dim=32), workers=1)
    assert_same_bytes(tmp_path / "forked", tmp_path / "served")
    assert_same_bytes(tmp_path / "forked", tmp_path / "one")


def test_early_writeback_changes_no_byte(
    tmp_path: Path, pieces: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = make_corpus(tmp_path / "docs", 30)
    build_index([docs], tmp_path / "late", IndexSettings(dim=32), workers=1)
    monkeypatch.setattr(streaming, "WRITEBACK_BYTES", 1)  # hand every write to the disk
    build_index([docs], tmp_path / "early", IndexSettings(dim=32), workers=1)
    assert_same_bytes(tmp_path / "late", tmp_path / "early")
    open_index(tmp_path / "early").verify()


def _rows(builder: IndexBuilder, n: int) -> None:
    records = b"".join(b'{"id":"r%d"}' % i for i in range(n))
    builder.add_records(records, np.array([len(b'{"id":"r%d"}' % i) for i in range(n)]))
    builder.append_vectors(np.ones((n, 4), np.float32))


def test_close_rows_then_commit_gives_a_verified_index(tmp_path: Path) -> None:
    embedder = HashingEmbedder(4)
    with IndexBuilder(tmp_path / "ix") as builder:
        _rows(builder, 5)
        builder.close_rows()
        builder.array("late", np.int64).append(np.arange(3))  # opened after: synced at commit
        builder.commit(embedder, {})
    ix = open_index(tmp_path / "ix")
    ix.verify()
    assert len(ix) == 5 and np.array_equal(ix.array("late"), np.arange(3))
    assert set(ix.manifest.files) == {
        fmt.VECTORS,
        fmt.BLOB,
        fmt.OFFSETS,
        fmt.array_file("late"),
    }


def test_a_builder_not_durable_fsyncs_nothing_and_lists_all_it_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A delta's builder (``durable=False``) leaves every fsync to the index it is part of:
    its list holds each file and folder installed, so that one round makes them durable."""
    outer = tmp_path / "outer"
    outer.mkdir()
    synced: list[int] = []
    monkeypatch.setattr(streaming.os, "fsync", lambda fd: synced.append(fd))
    with IndexBuilder(outer / "delta", durable=False) as builder:
        _rows(builder, 5)
        builder.close_rows()
        builder.array("late", np.int64).append(np.arange(3))
        builder.commit(HashingEmbedder(4), {})
    assert synced == []
    ix = open_index(outer / "delta")
    ix.verify()
    assert len(ix) == 5
    written = {outer, *(outer / "delta").rglob("*"), outer / "delta"}
    assert set(builder.unsynced) == written


def test_an_error_after_close_rows_leaves_the_previous_index(tmp_path: Path) -> None:
    with IndexBuilder(tmp_path / "ix") as builder:
        _rows(builder, 2)
        builder.commit(HashingEmbedder(4), {})
    before = (tmp_path / "ix" / fmt.MANIFEST).read_bytes()
    with pytest.raises(KeyboardInterrupt), IndexBuilder(tmp_path / "ix") as builder:
        _rows(builder, 3)
        builder.close_rows()
        raise KeyboardInterrupt
    assert [p.name for p in tmp_path.iterdir()] == ["ix"]  # no temporary directory left
    assert (tmp_path / "ix" / fmt.MANIFEST).read_bytes() == before
    assert len(open_index(tmp_path / "ix")) == 2


def test_in_order_keeps_the_order_and_at_most_two_at_work() -> None:
    running, most = 0, 0
    lock = threading.Lock()

    def work(i: int) -> int:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.002 * (i % 3))
        with lock:
            running -= 1
        return i * i

    assert list(_in_order(work, list(range(20)))) == [i * i for i in range(20)]
    assert 1 <= most <= 2
    assert list(_in_order(work, [])) == [] and list(_in_order(work, [3])) == [9]


def test_in_order_raises_the_first_error_and_stops() -> None:
    started: list[int] = []

    def work(i: int) -> int:
        started.append(i)
        if i == 2:
            raise ValueError("slice 2")
        return i

    with pytest.raises(ValueError, match="slice 2"):
        list(_in_order(work, list(range(50))))
    assert len(started) < 10  # bounded look-ahead: nothing like all 50 were started


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text() | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300)
@given(JSON)
def test_pretty_json_is_json_dumps_indent_two_when_nothing_is_flat(value: object) -> None:
    expected = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
    assert fmt.pretty_json(value, flat=10**6) == expected
    for flat in (0, 1, 2, 3):
        assert json.loads(fmt.pretty_json(value, flat=flat)) == value


def test_a_manifest_keeps_each_file_record_on_one_line(tmp_path: Path) -> None:
    docs = make_corpus(tmp_path / "docs", 3)
    build_index([docs], tmp_path / "ix", IndexSettings(dim=32), workers=1)
    text = (tmp_path / "ix" / fmt.MANIFEST).read_text()
    doc = json.loads(text)
    for source, record in doc["meta"]["files"].items():
        line = f"{json.dumps(source)}: {json.dumps(record, sort_keys=True)}"
        assert f"\n      {line}" in text
    assert text.startswith('{\n  "arrays": [\n') and text.endswith("\n}\n")
