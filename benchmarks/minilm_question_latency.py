"""One question at a time through the MiniLM embedder: p50 / p90 latency, 1 and 2 threads.

What a service pays per question (the issue's target: <= 10 ms p50). Needs only the
``minilm`` extra (no torch): 60 pydocs questions, one warm-up call, then two rounds each.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/minilm_question_latency.py
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from docqa.embed.minilm import MiniLMEmbedder

PYDOCS = Path(__file__).resolve().parents[1].parent / "shared" / "evalsets" / "pydocs"


def main() -> None:
    lines = (PYDOCS / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    questions = [json.loads(line)["question"] for line in lines if line.strip()][:60]
    for threads in (1, 2):
        embedder = MiniLMEmbedder(n_threads=threads)
        embedder.embed(questions[:4], query=True)  # warm-up: session, arenas
        for _ in range(2):
            times = []
            for q in questions:
                start = time.perf_counter()
                vector = embedder.embed([q], query=True)
                times.append((time.perf_counter() - start) * 1000)
                assert vector.shape == (1, 384)
            times.sort()
            print(
                f"{threads} thread(s): p50 {statistics.median(times):.2f} ms, "
                f"p90 {times[int(0.9 * len(times))]:.2f} ms, best {times[0]:.2f} ms"
            )


if __name__ == "__main__":
    main()
