"""Results through shared slots are the results the workers made: packed and unpacked
values, the pipe for what does not fit, slots reused by a forked pool only once taken, and
postings copied out of the caller's arrays."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from test_streaming import make_corpus

from docqa.pipeline import transport
from docqa.pipeline.postings import PostingRuns
from docqa.pipeline.work import FileResult, Postings, Result


def _result(records: bytes, rows: int, dim: int | None, postings: int) -> Result:
    rng = np.random.default_rng(rows * 7 + postings)
    return Result(
        files=(FileResult("a.md", len(records), "0" * 64, rows),),
        records=records,
        record_lengths=rng.integers(0, 100, rows).astype(np.int64),
        vectors=None if dim is None else rng.random((rows, dim), dtype=np.float32),
        postings=Postings(
            rng.integers(0, 2**64 - 1, postings, dtype=np.uint64, endpoint=True),
            rng.integers(0, max(rows, 1), postings).astype(np.int32),
            rng.integers(1, 9, postings).astype(np.int32),
            rng.integers(0, 500, rows).astype(np.int32),
        ),
        texts=("kept text",) if rows % 2 else (),
    )


def assert_same(got: Result, want: Result) -> None:
    assert got.files == want.files and got.texts == want.texts
    assert bytes(memoryview(got.records)) == bytes(memoryview(want.records))
    pairs = [
        (got.record_lengths, want.record_lengths),
        (got.postings.hashes, want.postings.hashes),
        (got.postings.rows, want.postings.rows),
        (got.postings.tf, want.postings.tf),
        (got.postings.lengths, want.postings.lengths),
    ]
    for a, b in pairs:
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    if want.vectors is None:
        assert got.vectors is None
    else:
        assert got.vectors is not None and got.vectors.dtype == np.float32
        assert np.array_equal(got.vectors, want.vectors)


@settings(max_examples=60, deadline=None)
@given(
    records=st.binary(max_size=3000),
    rows=st.integers(0, 40),
    dim=st.none() | st.integers(1, 64),
    postings=st.integers(0, 500),
    slot=st.integers(0, 2),
)
def test_packed_results_unpack_to_the_same_values(
    records: bytes, rows: int, dim: int | None, postings: int, slot: int
) -> None:
    slots = transport.Slots(3, 64 << 10)
    want = _result(records, rows, dim, postings)
    packed = transport.pack(want, slots, slot)
    assert isinstance(packed, transport.Packed) and packed.slot == slot
    assert_same(transport.unpack(packed, slots), want)


def test_a_result_that_does_not_fit_its_slot_goes_whole() -> None:
    slots = transport.Slots(2, 4096)
    big = _result(b"x" * 5000, 3, 8, 10)
    assert transport.pack(big, slots, 1) is big
    assert transport.unpack(big, slots) is big
    assert transport.unpack(big, None) is big


def test_slots_are_shared_with_a_forked_child() -> None:
    """A forked worker's writes into a slot are what the parent reads (MAP_SHARED)."""
    import os

    slots = transport.Slots(2, 4096)
    want = _result(b"shared bytes", 4, 3, 20)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        transport.init_worker(slots)
        packed = transport.pack(want, slots, 1)
        os._exit(0 if isinstance(packed, transport.Packed) else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    layouts = transport.pack(want, transport.Slots(2, 4096), 1)
    assert isinstance(layouts, transport.Packed)
    assert_same(transport.unpack(layouts, slots), want)  # the child's bytes, read here


FORKED_RESULTS = """
import sys
from pathlib import Path
from docqa.build import IndexSettings
from docqa.embed import HashingEmbedder
from docqa.pipeline import stream, transport, work
from docqa.pipeline.sources import discover
assert stream._context().get_start_method() == "fork", "another thread runs"
files, _ = discover([Path(sys.argv[1])])
tasks = [work.Task(tuple(files[i : i + 2]), 60, 0, True, HashingEmbedder(16), {})
         for i in range(0, len(files), 2)]
packed = []
unpack = transport.unpack
transport.unpack = lambda got, slots: packed.append(type(got).__name__) or unpack(got, slots)
for task, got in zip(tasks, stream.results(iter(tasks), 2), strict=True):
    want = work.run(task)  # compared before the next result may reuse the slot
    assert bytes(memoryview(got.records)) == want.records
    assert (got.vectors == want.vectors).all() and got.files == want.files
    for name in ("hashes", "rows", "tf", "lengths"):
        assert (getattr(got.postings, name) == getattr(want.postings, name)).all(), name
assert set(packed) == {"Packed"} and len(packed) == len(tasks), packed
print(len(tasks))
"""


def test_a_forked_pool_gives_each_task_its_result_through_reused_slots(tmp_path: Path) -> None:
    """More tasks than slots (2 workers: 4), each compared with the task run here; run in a
    fresh single-threaded process, so that the pool forks."""
    docs = make_corpus(tmp_path / "docs", 30)
    out = subprocess.run(
        [sys.executable, "-c", FORKED_RESULTS, str(docs)],
        check=True,
        timeout=300,
        capture_output=True,
        text=True,
    )
    assert int(out.stdout) == 15


@settings(max_examples=40, deadline=None)
@given(
    blocks=st.lists(hnp.arrays(np.uint64, st.integers(0, 40)), min_size=1, max_size=8),
    budget=st.integers(1, 60),
)
def test_postings_are_copied_out_of_the_callers_arrays(
    tmp_path_factory: pytest.TempPathFactory, blocks: list[np.ndarray], budget: int
) -> None:
    """The runs hold what was added even when the caller reuses its arrays after ``add``
    (as a slot is reused), whatever the budget (buffers grow and spill)."""
    scratch = tmp_path_factory.mktemp("runs")
    runs, want, row = PostingRuns(scratch, budget), [], 0
    for block in blocks:
        hashes = np.sort(block)
        rows = np.arange(row, row + hashes.size, dtype=np.int32)
        tf = np.ones(hashes.size, np.int32)
        runs.add(hashes, rows, tf)
        want.append((hashes.copy(), rows.copy()))
        hashes[...], rows[...] = 0, -1  # the caller reuses its memory
        row += hashes.size
    got: dict[str, list[np.ndarray]] = {"bm25_rows": [], "bm25_vocab": []}
    runs.merge(lambda name, arr: got.setdefault(name, []).append(arr))
    all_h = np.concatenate([h for h, _ in want])
    all_r = np.concatenate([r for _, r in want])
    order = np.lexsort((all_r, all_h))
    rows_out = np.concatenate([*got["bm25_rows"], np.zeros(0, np.int32)])
    vocab_out = np.concatenate([*got["bm25_vocab"], np.zeros(0, np.uint64)])
    assert np.array_equal(rows_out, all_r[order])
    assert np.array_equal(vocab_out, np.unique(all_h))
