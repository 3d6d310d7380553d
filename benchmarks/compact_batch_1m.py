"""int8 against float32 docqa for one batch of 1,000 queries over 1M unit rows, paired.

The quick check of the #17 batch target without the FAISS rows of ``bench_search.py`` (whose
full run takes most of an hour): random unit rows and queries, a warm-up outside the timed
part, then PAIRS pairs in alternating order, each checked bit for bit against float32 ``topk``.

    .venv/bin/python benchmarks/compact_batch_1m.py [DIM] [THREADS] [PAIRS] [ROWS]

(defaults: 256, 2, 3, 1,000,000).
"""

from __future__ import annotations

import statistics
import sys

import numpy as np
from paired import interleaved_rounds, ratios

from docqa import topk
from docqa.search.compact import CompactMatrix
from docqa.types import TopK


def unit(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    x = rng.standard_normal((n, d), dtype=np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def main(d: int, threads: int, pairs: int, n: int = 1_000_000) -> None:
    rng = np.random.default_rng(7)
    rows, queries = unit(rng, n, d), unit(rng, 1000, d)
    compact = CompactMatrix.from_float32(rows)
    runs = {
        "float32": lambda _r: topk(rows, queries, 10, n_threads=threads),
        "int8": lambda _r: compact.topk(queries, 10, n_threads=threads),
    }

    def check(_r: int, results: dict[str, TopK]) -> None:
        for a, b in zip(results["float32"], results["int8"], strict=True):
            assert np.array_equal(a, b), "int8 results differ from float32 topk"

    # one untimed round first: compile and page in
    rounds = interleaved_rounds(runs, pairs, warmup=1, check=check)
    for i, seconds in enumerate(rounds):
        print(f"pair {i}: float32 {seconds['float32']:.2f} s, int8 {seconds['int8']:.2f} s")
    ratio = ratios(rounds, "float32", "int8")
    print(
        f"{'1M' if n == 1_000_000 else f'{n:,}'} x {d}, 1000 queries, {threads} threads: "
        f"int8 {statistics.median(ratio):.2f}x "
        f"faster (paired median, range {min(ratio):.2f}-{max(ratio):.2f}), 0 mismatches"
    )


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:5]]
    main(*(args + [256, 2, 3, 1_000_000][len(args) :]))
