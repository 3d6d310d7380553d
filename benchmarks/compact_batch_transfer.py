"""Does the int8 batch speed-up carry over from random unit rows to real text embeddings?

Batches of 1,000 questions, k = 10, over (a) random unit rows and (b) hashing-256 embeddings
of English chunks (docstrings and docs under /usr/share, ``corpus.py``; the questions are
other chunks' word runs), up to 100k x 256 (the distinct chunks there are): float32 docqa against int8 docqa with the native
kernel and with the portable sgemm path, paired and interleaved (``paired.py``); rows
rescored per question (medians) and a check that every answer equals float32 ``topk``. Run:

    .venv/bin/python benchmarks/compact_batch_transfer.py
"""

from __future__ import annotations

import statistics
from unittest import mock

import numpy as np
from corpus import corpus
from paired import interleaved_times

from docqa.embed import HashingEmbedder
from docqa.search import CompactMatrix, compact_batch, topk

K = 10
N = 100_000
QUESTIONS = 1000
ROUNDS = 3


def _kinds() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(0)
    unit = rng.standard_normal((N, 256)).astype(np.float32)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    unit_q = unit[rng.integers(0, N, QUESTIONS)] + 0.5 * unit[rng.integers(0, N, QUESTIONS)]
    chunks = list(dict.fromkeys(corpus(20.0).chunks))  # distinct chunks only
    rows = chunks[:N]
    questions = [" ".join(ch.split()[5:12]) for ch in chunks[:: max(1, len(chunks) // QUESTIONS)]]
    hashing = HashingEmbedder(256)
    return {
        "random unit rows": (unit, unit_q.astype(np.float32)),
        "hashing-256 English chunks": (
            hashing.embed(rows),
            hashing.embed(questions[:QUESTIONS], query=True),
        ),
    }


def _portable(cm: CompactMatrix, qs: np.ndarray) -> object:
    with mock.patch.object(compact_batch, "native_kernel", lambda: None):
        return cm.topk(qs, K)


def main() -> None:
    print(f"batches of {QUESTIONS}, k = {K}, {ROUNDS} interleaved rounds, medians")
    print(f"{'rows':<30}{'f32/native':>11}{'f32/sgemm':>10}{'rescored':>9}")
    for name, (m, qs) in _kinds().items():
        print(f"{name + f' {m.shape[0] // 1000}k':<30}{_row(m, qs)}")


def _row(m: np.ndarray, qs: np.ndarray) -> str:
    cm = CompactMatrix.from_float32(m)
    want = topk(m, qs, K)
    got, rescored = cm.topk_counted(qs, K)
    assert np.array_equal(got.ids, want.ids) and np.array_equal(got.scores, want.scores)
    fns = {"f32": lambda: topk(m, qs, K), "native": lambda: cm.topk(qs, K)}
    fns["sgemm"] = lambda: _portable(cm, qs)
    times = interleaved_times(fns, ROUNDS)
    native = statistics.median(t["f32"] / t["native"] for t in times)
    sgemm = statistics.median(t["f32"] / t["sgemm"] for t in times)
    return f"{native:>11.2f}{sgemm:>10.2f}{statistics.median(rescored.tolist()):>9.0f}"


if __name__ == "__main__":
    main()
