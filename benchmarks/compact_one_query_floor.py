"""One int8 query over 1M x 256 beside the time to read its bytes once (the memory floor).

Random unit rows and queries; k = 10. Interleaved rounds (``paired.py``), medians per row of
the table, each search checked bit for bit against float32 ``topk`` (computed before):

- ``floor``: the codes (N x d int8) and the three per-row terms read once, summed as int64
  words by NumPy on the same threads (``threadpoolctl`` does not bound NumPy's reduction,
  so one thread: compare with ``--threads 1`` for the strict floor);
- ``one query``: ``CompactMatrix.topk(q, 10)``, the library's one-query path (the Numba
  kernel ``compact_kernels.single_query``, int16 query codes);
- ``native, VNNI`` / ``native, AVX2``: the same query through the native batch kernel
  (``compact_batch.search`` with one query), with the CPU's best tile and with AVX2 forced
  (``DOCQA_INT8_TILE=avx2``): a direction check of routing single queries through it.

    .venv/bin/python benchmarks/compact_one_query_floor.py [--rows N] [--threads T] [--rounds R]
"""

from __future__ import annotations

import argparse
import os
import statistics
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from paired import interleaved_times

from docqa.search import CompactMatrix, compact_batch, topk
from docqa.search.compact import quantise_queries
from docqa.types import TopK

K = 10


def unit(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    x = rng.standard_normal((n, d), dtype=np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def native_one(cm: CompactMatrix, q: np.ndarray, tile: str) -> TopK:
    """One query through ``compact_batch.search`` with the given tile ("best" or "avx2")."""
    os.environ.pop(compact_batch.ISA_ENV, None)
    if tile == "avx2":
        os.environ[compact_batch.ISA_ENV] = "avx2"
    qs = q[None, :]
    ps, qvs = quantise_queries(qs)
    out = (np.full((1, K), -np.inf, np.float32), np.full((1, K), -1, np.int64), np.zeros(1, int))
    arrays = (cm.vectors, cm.codes, cm.scale, cm.radius, cm.code_norm)
    coarse = quantise_queries(qs, top=compact_batch.COARSE)
    compact_batch.search(arrays, (qs, ps, qvs), coarse, None, None, out)
    os.environ.pop(compact_batch.ISA_ENV, None)
    return TopK(out[0], out[1])


def main(rows: int, d: int, threads: int, rounds: int) -> None:
    numba.set_num_threads(threads)
    rng = np.random.default_rng(7)
    vectors, queries = unit(rng, rows, d), unit(rng, rounds + 1, d)
    cm = CompactMatrix.from_float32(vectors)
    words = cm.codes.reshape(-1).view(np.int64)
    terms = (cm.scale.view(np.int32), cm.radius.view(np.int32), cm.code_norm.view(np.int32))
    state = {"i": 0}

    def query() -> np.ndarray:
        return queries[state["i"] % len(queries)]

    wants = [topk(vectors, q, K) for q in queries]  # the float32 answers, outside the timing

    def checked(search: Callable[[np.ndarray], Any]) -> Callable[[], None]:
        def run() -> None:
            got, want = search(query()), wants[state["i"] % len(queries)]
            assert np.array_equal(got.ids, want.ids) and np.array_equal(got.scores, want.scores)

        return run

    runs: dict[str, Callable[[], Any]] = {
        "floor": lambda: (words.sum(), *(t.sum() for t in terms)),
        "one query": checked(lambda q: cm.topk(q, K, n_threads=threads)),
    }
    if compact_batch.native_kernel() is not None:
        if compact_batch.native_kernel().best_isa() == 2:  # type: ignore[union-attr]
            runs["native, VNNI"] = checked(lambda q: native_one(cm, q, "best"))
        runs["native, AVX2"] = checked(lambda q: native_one(cm, q, "avx2"))
    for run in runs.values():  # warm-up: compile, page in
        run()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for round_times in interleaved_times(runs, rounds):
        state["i"] += 1
        for name, seconds in round_times.items():
            times[name].append(seconds)
    floor = statistics.median(times["floor"])
    print(f"{rows} x {d} int8 ({cm.scanned_bytes / 1e6:.0f} MB scanned), k={K}, {threads} threads")
    for name, ts in times.items():
        ms = statistics.median(ts) * 1e3
        print(f"  {name:14s} {ms:7.1f} ms  {ms / (floor * 1e3):5.2f}x the floor")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=7)
    a = parser.parse_args()
    main(a.rows, a.dim, a.threads, a.rounds)
