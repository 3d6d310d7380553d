"""`docqa ask` from the shell: wall time of a fresh process, and where it goes.

    python benchmarks/ask_latency.py --index hashing=IDX1 --index minilm=IDX2 \\
        [--before OLD_SRC] [--rounds 7]

Each round runs one pydocs question (a different one each round) through
``python -m docqa ask Q --index IDX`` for every index given, in a fresh process, the order
reversed every other round; with ``--before`` (the ``src`` folder of an older checkout) the
same commands also run on that code, alternating with this one, so the before/after ratio is
paired. The answer (or the refusal) must come back (exit 0 or 1) each time: a failed run
stops the benchmark.
Warm OS cache (one untimed run of each first). Reported: median and best wall seconds per
index and code, the paired ratio, and a breakdown of one in-process question by phase
(imports, opening the index, search with the guard, the answer), measured with the same calls
the command makes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from paired import interleaved_rounds, ratios

HERE = Path(__file__).resolve()
SRC = HERE.parents[1] / "src"
PYDOCS = next(
    (p for p in (HERE.parents[n] / "shared/evalsets/pydocs" for n in (2, 3)) if p.is_dir()),
    HERE.parents[2] / "shared/evalsets/pydocs",
)


def questions(n: int) -> list[str]:
    lines = (PYDOCS / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question"] for line in lines if line.strip()][:n]


def ask_once(src: Path, index: str, question: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        [sys.executable, "-m", "docqa", "ask", question, "--index", index],
        env=env,
        capture_output=True,
        check=False,
    )
    said = done.stdout + done.stderr  # an answer, or a refusal (over an index without pydocs)
    if done.returncode not in (0, 1) or (b"citations" not in said and b"refused" not in said):
        raise SystemExit(f"docqa ask failed ({done.returncode}): {done.stderr.decode()[-400:]}")


PHASES = """
import sys, time
t0 = time.perf_counter()
import docqa.cli.commands
from docqa import Collection
from docqa.answering import answer
from docqa.models import ExtractiveModel
from docqa.search import oneoff
t1 = time.perf_counter()
oneoff.prefer_twins()
retriever = Collection.open(sys.argv[1]).retriever("hybrid")
t2 = time.perf_counter()
hits = retriever.search(sys.argv[2], 5)
t3 = time.perf_counter()
text = answer(sys.argv[2], retriever, ExtractiveModel.auto(), 5).text
t4 = time.perf_counter()
assert text
print(f"{t1 - t0:.3f} {t2 - t1:.3f} {t3 - t2:.3f} {t4 - t3:.3f}")
"""


def phases(index: str, question: str) -> list[float]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", PHASES, index, question],
        env=env,
        capture_output=True,
        check=True,
    ).stdout.decode()
    wall = time.perf_counter() - start
    parts = [float(x) for x in out.split()]
    return [wall - sum(parts), *parts]  # interpreter start-up and exit, then the phases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", action="append", required=True, help="NAME=DIR")
    parser.add_argument("--before", type=Path, help="src folder of the code to compare with")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    indexes = dict(item.split("=", 1) for item in args.index)
    codes = {"now": SRC} | ({"before": args.before} if args.before else {})
    qs = questions(args.rounds + 1)
    runs = [(name, code) for name in indexes for code in codes]
    # one untimed round first (its question qs[-1]) warms the OS cache and every on-disk cache
    rounds = interleaved_rounds(
        {(n, c): (lambda r, n=n, c=c: ask_once(codes[c], indexes[n], qs[r])) for n, c in runs},
        args.rounds,
        warmup=1,
    )
    times = {run: [t[run] for t in rounds] for run in runs}
    print(f"`docqa ask`, fresh process, warm cache, {args.rounds} rounds (seconds)\n")
    print("| index | code | median | best | paired before/now |\n|---|---|---|---|---|")
    for name, code in runs:
        t = times[(name, code)]
        ratio = ""
        if code == "now" and "before" in codes:
            pairs = ratios(rounds, (name, "before"), (name, "now"))
            ratio = f"{statistics.median(pairs):.2f}x"
        print(f"| {name} | {code} | {statistics.median(t):.3f} | {min(t):.3f} | {ratio} |")
    print("\nbreakdown of one question (now; median of 5 fresh processes, seconds)\n")
    print("| index | start-up + exit | imports | open index | search + guard | answer |")
    print("|---|---|---|---|---|---|")
    for name, index in indexes.items():
        rows = [phases(index, q) for q in qs[:5]]
        cells = " | ".join(f"{statistics.median(col):.3f}" for col in zip(*rows, strict=True))
        print(f"| {name} | {cells} |")


if __name__ == "__main__":
    main()
