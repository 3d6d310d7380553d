"""int8 against float32 docqa for one batch of 1,000 queries over 1M unit rows, paired.

The quick check of the #17 batch target without the FAISS rows of ``bench_search.py`` (whose
full run takes most of an hour): random unit rows and queries, a warm-up outside the timed
part, then PAIRS pairs in alternating order, each checked bit for bit against float32 ``topk``.

    .venv/bin/python benchmarks/compact_batch_1m.py [DIM] [THREADS] [PAIRS]
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from docqa import topk
from docqa.search.compact import CompactMatrix


def unit(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    x = rng.standard_normal((n, d), dtype=np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def main(d: int, threads: int, pairs: int) -> None:
    rng = np.random.default_rng(7)
    rows, queries = unit(rng, 1_000_000, d), unit(rng, 1000, d)
    compact = CompactMatrix.from_float32(rows)
    runs = {
        "float32": lambda: topk(rows, queries, 10, n_threads=threads),
        "int8": lambda: compact.topk(queries, 10, n_threads=threads),
    }
    for run in runs.values():  # warm-up: compile and page in
        run()
    ratios = []
    for i in range(pairs):
        order = list(runs) if i % 2 == 0 else list(runs)[::-1]
        seconds, results = {}, {}
        for name in order:
            start = time.perf_counter()
            results[name] = runs[name]()
            seconds[name] = time.perf_counter() - start
        for a, b in zip(results["float32"], results["int8"], strict=True):
            assert np.array_equal(a, b), "int8 results differ from float32 topk"
        ratios.append(seconds["float32"] / seconds["int8"])
        print(f"pair {i}: float32 {seconds['float32']:.2f} s, int8 {seconds['int8']:.2f} s")
    print(
        f"1M x {d}, 1000 queries, {threads} threads: int8 {statistics.median(ratios):.2f}x "
        f"faster (paired median, range {min(ratios):.2f}-{max(ratios):.2f}), 0 mismatches"
    )


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:4]]
    main(*(args + [256, 2, 3][len(args) :]))
