"""One question at a time through the MiniLM embedder: p50 / p90 latency, 1 and 2 threads.

What a service pays per question (the issue's target: <= 10 ms p50). Needs only the
``minilm`` extra (no torch): 60 pydocs questions, asked ``--passes`` times (2); each question
goes through the 1-thread and the 2-thread embedder back to back, the order alternating
(``paired.py``), after four untimed warm-up questions. Printed per thread count and pass:
p50, p90 and best; then the paired ratio of 1 thread over 2 threads.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/minilm_question_latency.py \\
        [--questions 60] [--passes 2]
"""

from __future__ import annotations

import argparse
import json
import statistics
from typing import Any

from paired import interleaved_rounds, paired_line, ratios
from quality.corpora import PYDOCS

from docqa.embed.minilm import MiniLMEmbedder

THREADS = (1, 2)


def check(_round: int, vectors: dict[int, Any]) -> None:
    assert all(v.shape == (1, 384) for v in vectors.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--passes", type=int, default=2)
    args = parser.parse_args()
    lines = (PYDOCS / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    questions = [json.loads(line)["question"] for line in lines if line.strip()][: args.questions]
    n = len(questions)
    embedders = {t: MiniLMEmbedder(n_threads=t) for t in THREADS}
    rounds = interleaved_rounds(
        {t: (lambda r, e=e: e.embed([questions[r % n]], query=True)) for t, e in embedders.items()},
        args.passes * n,
        warmup=4,  # session, arenas
        check=check,
    )
    for threads in THREADS:
        for p in range(args.passes):
            times = sorted(t[threads] * 1000 for t in rounds[p * n : (p + 1) * n])
            print(
                f"{threads} thread(s): p50 {statistics.median(times):.2f} ms, "
                f"p90 {times[int(0.9 * len(times))]:.2f} ms, best {times[0]:.2f} ms"
            )
    print(paired_line("one question, 1 thread over 2 threads", ratios(rounds, 1, 2)))


if __name__ == "__main__":
    main()
