"""Batch search over a sharded index: local vs Ray actors on the same cores; a build on Ray.

    python benchmarks/bench_distributed.py                 # 1M x 256 in 4 shards, 10,000 q
    python benchmarks/bench_distributed.py --rows 200000 --queries 2000 --rounds 2

Writes a synthetic sharded index (unit random vectors, short random texts for BM25) under
``--dir``, then times ``dense(queries, k)`` through three ``RowSearcher``s, interleaved round
by round: local (``ShardSet``, every shard in this process, Numba's threads), Ray with one
actor owning all shards (2 threads) and Ray with two actors (1 thread each, 2 shards each).
Every timed call's result is checked equal to the local one. Also measured: each shard's
scan alone, the canonical merge of the per-shard lists, the round trip of an empty actor
call, and (``--build-mb``) a sharded build of a generated Markdown corpus locally and on Ray.
Warm-up (JIT, page cache, actor start) is outside the timed part. Memory: the vectors are
memory-mapped, so the driver and the actors share one copy in the page cache.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from paired import interleaved_times


def make_index(root: Path, rows: int, dim: int, shards: int, seed: int = 7) -> None:
    """A sharded index of ``rows`` synthetic chunks in ``shards`` shards."""
    from docqa.index import write_index
    from docqa.index.shards import shard_name, write_top_manifest
    from docqa.keyword import BM25Index
    from docqa.types import Chunk

    rng = np.random.default_rng(seed)
    tmp = root.with_name(root.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    cuts = np.linspace(0, rows, shards + 1).astype(int)
    embedder = {"name": f"hashing-{dim}-v1", "dim": dim,
                "config": {"kind": "hashing", "version": 1, "dim": dim,
                           "stop_words": True, "fold_plurals": True}}  # fmt: skip
    for s in range(shards):
        n = int(cuts[s + 1] - cuts[s])
        vectors = rng.standard_normal((n, dim), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        words = rng.integers(0, 50_000, size=(n, 6))
        texts = [" ".join(f"w{w}" for w in row) for row in words.tolist()]
        chunks = [Chunk(f"doc{cuts[s] + i}#c", "doc#c", ("Doc",), "doc.md", i, 1, 1, t, "h")
                  for i, t in enumerate(texts)]  # fmt: skip
        bm25 = BM25Index.from_texts(texts)
        meta = {"bm25": bm25.config.to_dict(), "settings": {}, "files": {}}
        write_index(tmp / shard_name(s), chunks, vectors, embedder=embedder,
                    arrays=bm25.to_arrays(), meta=meta)  # fmt: skip
        del vectors, chunks, texts
    write_top_manifest(tmp, [shard_name(s) for s in range(shards)], bm25.config.to_dict(), {})
    shutil.rmtree(root, ignore_errors=True)
    tmp.rename(root)


def median_time(fn: Callable[[], Any], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def search_table(args: argparse.Namespace, root: Path) -> list[str]:
    """Local vs Ray 1 and 2 actors: queries/s and paired ratios, plus the parts' costs."""
    import ray

    from docqa.distributed import RayShardSearcher
    from docqa.index.shards import open_sharded
    from docqa.search import topk
    from docqa.shards.collection import local_shards
    from docqa.shards.search import merge_topk, shifted

    index = open_sharded(root)
    rng = np.random.default_rng(11)
    queries = rng.standard_normal((args.queries, index.manifest.dim), dtype=np.float32)
    local = local_shards(index)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    # reservations shrunk so both searchers fit in the 2-CPU cluster at once (each is timed
    # alone, so each still has the 2 cores to itself)
    one = RayShardSearcher(root, 1, n_threads=2, cpus=1.0)
    two = RayShardSearcher(root, 2, n_threads=1, cpus=0.5)
    want = local.dense(queries, args.k, None)
    for searcher in (one, two):  # warm-up: actors started, JIT compiled, pages cached
        got = searcher.dense(queries[:64], args.k, None)
        assert np.array_equal(got.ids, local.dense(queries[:64], args.k, None).ids)

    def checked(searcher: Any) -> Callable[[], None]:
        def run() -> None:
            got = searcher.dense(queries, args.k, None)
            assert np.array_equal(got.ids, want.ids) and np.array_equal(got.scores, want.scores)

        return run

    fns = {"local": checked(local), "ray-1": checked(one), "ray-2": checked(two)}
    rounds = interleaved_times(fns, args.rounds)
    med = {name: statistics.median(r[name] for r in rounds) for name in fns}
    ratio = {n: statistics.median(r["local"] / r[n] for r in rounds) for n in ("ray-1", "ray-2")}
    shard = index.shards[0]
    scan = median_time(lambda: topk(shard.vectors, queries, args.k), max(1, args.rounds // 2))
    parts = [shifted(topk(s.vectors, queries[:1000], args.k), int(o))
             for s, o in zip(index.shards, index.offsets, strict=False)]  # fmt: skip
    merge = median_time(lambda: merge_topk(parts, 1000, args.k), 5)
    pid_call = median_time(lambda: ray.get(two.actors[0].pid.remote()), 50)
    small = median_time(lambda: two.dense(queries[:1], args.k, None), 20)
    n, q = len(index), args.queries
    lines = [
        (
            f"{n:,} x {index.manifest.dim} float32 in {len(index.shards)} shards, "
            f"{q:,} queries, k = {args.k}, {args.rounds} interleaved rounds (medians)"
        ),
        "",
        "| searcher | seconds | queries/s | vs local (paired) |",
        "|---|---:|---:|---:|",
        (
            f"| local, 4 shards in-process, 2 threads | {med['local']:.2f} | "
            f"{q / med['local']:,.0f} | 1.00x |"
        ),
        (
            f"| Ray, 1 actor x 2 threads | {med['ray-1']:.2f} | {q / med['ray-1']:,.0f} | "
            f"{ratio['ray-1']:.2f}x |"
        ),
        (
            f"| Ray, 2 actors x 1 thread | {med['ray-2']:.2f} | {q / med['ray-2']:,.0f} | "
            f"{ratio['ray-2']:.2f}x |"
        ),
        "",
        (
            f"one shard ({len(shard):,} rows) scanned alone, {q:,} queries, 2 threads: {scan:.2f} s "
            f"({scan / q / len(shard) * 1e12:.1f} ps per query-row)"
        ),
        (
            f"canonical merge of {len(parts)} lists of k = {args.k}, 1,000 queries: "
            f"{merge * 1e3:.2f} ms ({merge / 1000 * 1e6:.2f} us per query)"
        ),
        (
            f"Ray actor round trip (empty call): {pid_call * 1e3:.2f} ms; "
            f"one-query fan-out to 2 actors: {small * 1e3:.1f} ms"
        ),
    ]
    one.close()
    two.close()
    ray.shutdown()
    return lines


def build_table(args: argparse.Namespace) -> list[str]:
    """A sharded build of a generated Markdown corpus of ``--build-mb`` MB: local vs Ray."""
    import ray

    from docqa.distributed import build_on_ray
    from docqa.shards.build import build_sharded

    docs = args.dir / "corpus"
    make_corpus(docs, args.build_mb)
    shard_rows = 50_000
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    local = median_time(lambda: build_sharded([docs], args.dir / "b-local", shard_rows=shard_rows), 1)  # fmt: skip
    on_ray = median_time(
        lambda: build_on_ray([docs], args.dir / "b-ray", shard_rows=shard_rows, groups=4), 1
    )
    ray.shutdown()
    return [
        f"sharded build of {args.build_mb} MB of Markdown ({shard_rows:,} rows a shard), one run",
        "",
        "| build | seconds | MB/s |",
        "|---|---:|---:|",
        f"| local (1 group, this process) | {local:.1f} | {args.build_mb / local:.2f} |",
        f"| Ray (4 groups, 2 CPUs) | {on_ray:.1f} | {args.build_mb / on_ray:.2f} |",
    ]


def make_corpus(root: Path, megabytes: int) -> None:
    """Markdown files of sections of English-like random words, about ``megabytes`` MB."""
    rng = np.random.default_rng(3)
    vocab = [f"word{i}" for i in range(20_000)] + ["the", "loan", "fine", "library"] * 500
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    per_file, written, i = 200_000, 0, 0
    while written < megabytes << 20:
        picks = rng.integers(0, len(vocab), size=per_file // 7)
        words = [vocab[p] for p in picks.tolist()]
        paras = [" ".join(words[j : j + 90]) for j in range(0, len(words), 90)]
        body = "\n\n".join(f"## Part {j}\n\n{p}" for j, p in enumerate(paras))
        text = f"# File {i}\n\n{body}\n"
        (root / f"f{i:05d}.md").write_text(text)
        written += len(text)
        i += 1


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--dim", type=int, default=256)
    p.add_argument("--shards", type=int, default=4)
    p.add_argument("--queries", type=int, default=10_000)
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--build-mb", type=int, default=0, help="also time a build of this size")
    p.add_argument("--dir", type=Path, default=Path("/tmp/ray/bench"))
    args = p.parse_args()
    root = args.dir / f"ix-{args.rows}x{args.dim}-{args.shards}"
    if not (root / "manifest.json").exists():
        make_index(root, args.rows, args.dim, args.shards)
    print("\n".join(search_table(args, root)), flush=True)
    if args.build_mb:
        print()
        print("\n".join(build_table(args)))


if __name__ == "__main__":
    main()
