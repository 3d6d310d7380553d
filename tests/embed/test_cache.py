"""The persistent embedding cache: keys, eviction, two processes, and CachedEmbedder."""

from __future__ import annotations

import multiprocessing
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa.embed import HashingEmbedder
from docqa.embed.cache import CachedEmbedder, EmbeddingCache, fingerprint, text_key
from docqa.errors import InputError


class CountingEmbedder:
    """The hashing embedder, counting the texts it was asked to embed."""

    def __init__(self, dim: int = 16) -> None:
        self.inner = HashingEmbedder(dim)
        self.seen: list[str] = []
        self.name, self.dim = self.inner.name, dim

    def config(self) -> dict[str, Any]:
        return self.inner.config()

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        self.seen.extend(texts)
        return self.inner.embed(texts)


def test_second_pass_embeds_only_new_texts(tmp_path: Path) -> None:
    inner = CountingEmbedder()
    emb = CachedEmbedder(inner, EmbeddingCache(tmp_path / "c.sqlite3"))
    first = emb.embed(["alpha beta", "gamma", "alpha beta"])
    assert inner.seen == ["alpha beta", "gamma"]  # duplicates embedded once
    again = CachedEmbedder(CountingEmbedder(), EmbeddingCache(tmp_path / "c.sqlite3"))
    out = again.embed(["gamma", "delta", "alpha beta"])
    assert again.inner.seen == ["delta"]  # type: ignore[attr-defined]
    np.testing.assert_array_equal(out[[0, 2]], first[[1, 0]])
    np.testing.assert_array_equal(out, HashingEmbedder(16).embed(["gamma", "delta", "alpha beta"]))
    assert (again.hits, again.misses) == (2, 1)


def test_queries_and_models_do_not_share_rows(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "c.sqlite3")
    a, b = CountingEmbedder(16), CountingEmbedder(32)
    CachedEmbedder(a, cache).embed(["x y"])
    CachedEmbedder(a, cache).embed(["x y"], query=True)
    CachedEmbedder(b, cache).embed(["x y"])
    assert a.seen == ["x y", "x y"] and b.seen == ["x y"]
    assert fingerprint(a) != fingerprint(b)
    assert text_key("t", query=True) != text_key("t", query=False)
    assert cache.stats().entries == 3 and len(cache.stats().models) == 2


class ModelEmbedder(CountingEmbedder):
    """A counting embedder whose vectors come from code of docqa's own (as MiniLM's graph)."""

    def __init__(self, code_digest: str) -> None:
        super().__init__()
        self.code_digest = code_digest


def test_rows_of_an_older_graph_are_not_read_back(tmp_path: Path) -> None:
    # the same settings and weights, but the code that builds the graph changed: the vectors
    # it cached may differ from what the new graph computes, so they are not reused
    cache = EmbeddingCache(tmp_path / "c.sqlite3")
    old, new = ModelEmbedder("aaaa"), ModelEmbedder("bbbb")
    assert old.config() == new.config()
    CachedEmbedder(old, cache).embed(["x y"])
    CachedEmbedder(new, cache).embed(["x y"])
    assert old.seen == ["x y"] and new.seen == ["x y"]
    again = ModelEmbedder("bbbb")
    CachedEmbedder(again, cache).embed(["x y"])
    assert again.seen == []  # the same code: read back
    assert len({fingerprint(old), fingerprint(new), fingerprint(CountingEmbedder())}) == 3


def test_minilm_rows_name_the_code_that_builds_its_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    from docqa.embed import bert, bert_onnx, minilm
    from docqa.embed.onnx_cache import source_digest

    embedder = minilm.MiniLMEmbedder(directory=Path("/nonexistent"))
    monkeypatch.setattr(embedder, "config", lambda: {"kind": "minilm"})  # no weights needed
    assert embedder.code_digest == source_digest(bert, bert_onnx)
    before = fingerprint(embedder)
    minilm._graph_code.cache_clear()
    monkeypatch.setattr(minilm, "_graph_code", lambda: "edited")
    assert fingerprint(embedder) != before


def test_eviction_keeps_the_bound_and_the_recently_used(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "c.sqlite3", max_bytes=10 * 64)  # ten 16-dim rows
    keys = [text_key(str(i), query=False) for i in range(12)]
    vecs = np.arange(12 * 16, dtype=np.float32).reshape(12, 16)
    cache.put("m", keys[:8], vecs[:8])
    cache.get("m", keys[:2], 16)  # 0 and 1 are now the most recently used
    cache.put("m", keys[8:], vecs[8:])
    stats = cache.stats()
    assert stats.bytes <= 10 * 64 and stats.entries == stats.bytes // 64
    kept = cache.get("m", keys, 16)
    assert all(keys[i] in kept for i in (0, 1, 8, 9, 10, 11))  # recently used or new
    assert sum(keys[i] in kept for i in range(2, 8)) == 3  # 768 bytes down to <= 576
    np.testing.assert_array_equal(kept[keys[11]], vecs[11])


@settings(max_examples=40)
@given(st.lists(st.integers(0, 30), max_size=40), st.integers(1, 12))
def test_stored_bytes_always_match_the_rows(
    tmp_path_factory: Any, ids: list[int], bound_rows: int
) -> None:
    cache = EmbeddingCache(tmp_path_factory.mktemp("h") / "c.sqlite3", max_bytes=bound_rows * 16)
    for i in ids:
        cache.put("m", [text_key(str(i), query=False)], np.full((1, 4), i, np.float32))
    stats = cache.stats()
    with sqlite3.connect(stats.path) as con:
        (real,) = con.execute("SELECT COALESCE(SUM(length(vec)), 0) FROM vectors").fetchone()
    assert stats.bytes == real <= bound_rows * 16
    if ids:
        assert text_key(str(ids[-1]), query=False) in cache.get(
            "m", [text_key(str(ids[-1]), query=False)], 4
        )


def test_clear_all_and_one_model(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "c.sqlite3")
    cache.put("a", [b"1", b"2"], np.ones((2, 4), np.float32))
    cache.put("b", [b"1"], np.ones((1, 4), np.float32))
    assert cache.clear("a") == 2
    assert cache.stats().models == {"b": 1} and cache.stats().bytes == 16
    assert cache.clear() == 1 and cache.stats().entries == 0


def _writer(path: str, start: int, n: int) -> None:
    cache = EmbeddingCache(path)
    for i in range(start, start + n):
        cache.put("m", [text_key(str(i), query=False)], np.full((1, 8), i, np.float32))
        cache.get("m", [text_key(str(i - 1), query=False)], 8)


def test_two_processes_share_the_file(tmp_path: Path) -> None:
    path = str(tmp_path / "c.sqlite3")
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, s, 60)) for s in (0, 1000)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    cache = EmbeddingCache(path)
    assert cache.stats().entries == 120 and cache.stats().bytes == 120 * 32
    keys = [text_key(str(i), query=False) for i in (*range(60), *range(1000, 1060))]
    found = cache.get("m", keys, 8)
    assert len(found) == 120 and found[keys[-1]][0] == 1059.0


def _first_write(path: str, start: Any, row: int) -> None:
    start.wait(30)
    cache = EmbeddingCache(path)
    cache.put("m", [text_key(str(row), query=False)], np.full((1, 4), row, np.float32))


def test_processes_creating_the_file_at_once_all_succeed(tmp_path: Path) -> None:
    """A build's workers may open a cache that does not exist yet at the same moment; before
    the WAL switch waited, about one process in thirteen failed with "database is locked"."""
    ctx = multiprocessing.get_context("fork")
    for trial in range(30):
        path, start = str(tmp_path / f"c{trial}.sqlite3"), ctx.Event()
        procs = [ctx.Process(target=_first_write, args=(path, start, i)) for i in range(3)]
        for p in procs:
            p.start()
        time.sleep(0.05)  # every process waiting: they open the new file together
        start.set()
        for p in procs:
            p.join(60)
        assert [p.exitcode for p in procs] == [0, 0, 0], f"trial {trial}"
        assert EmbeddingCache(path).stats().entries == 3


class _Locked:
    """A connection whose WAL switch fails ``times`` times with ``message``."""

    def __init__(self, times: int, message: str = "database is locked") -> None:
        self.times, self.message, self.calls = times, message, []

    def execute(self, sql: str) -> Any:
        self.calls.append(sql)
        if sql == "PRAGMA journal_mode=WAL" and self.times:
            self.times -= 1
            raise sqlite3.OperationalError(self.message)
        return self

    def fetchone(self) -> tuple[str]:
        return ("delete",)

    def executescript(self, sql: str) -> None:
        self.calls.append("schema")


def test_the_wal_switch_is_retried_while_locked_and_other_errors_are_raised() -> None:
    from docqa.embed import cache as cache_module

    con = _Locked(3)
    cache_module._prepare(con)  # type: ignore[arg-type]
    assert con.calls.count("PRAGMA journal_mode=WAL") == 4 and con.calls[-1] == "schema"
    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
        cache_module._prepare(_Locked(1, "disk I/O error"))  # type: ignore[arg-type]
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        cache_module._prepare(_Locked(cache_module.WAL_ATTEMPTS))  # type: ignore[arg-type]


def test_unusable_file_and_bad_bound_are_clear_errors(tmp_path: Path) -> None:
    bad = tmp_path / "c.sqlite3"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(InputError, match="unusable.*docqa cache clear"):
        EmbeddingCache(bad).stats()
    with pytest.raises(InputError, match="max_bytes"):
        EmbeddingCache(tmp_path / "d", max_bytes=0)


def test_default_path_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCQA_CACHE_DIR", str(tmp_path / "cc"))
    assert EmbeddingCache().path == tmp_path / "cc" / "embeddings.sqlite3"
