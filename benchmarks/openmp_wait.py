"""Idle OpenMP threads: spinning (libgomp's default) against sleeping (``OMP_WAIT_POLICY=PASSIVE``).

    cd benchmarks && ../.venv/bin/python openmp_wait.py [--rounds 3] [--calls 200]

Dense search (``Collection.retriever("dense").search``, k = 5, the guard on) over the 100k-chunk
index of ``bench_service.py``, one call after another in one thread, in a fresh process per
policy and round (the runtime reads the policy when it loads), alternating the two policies.
Twice: on a quiet machine, and with one busy process beside it (a pure-Python loop: a client,
another worker or another job on one of the cores). Reported: p50 latency and CPU ms per call of
each process, medians over the rounds. Each call's top hit is checked against the first run's.
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

HERE = Path(__file__).resolve().parent
POLICIES = {"spin (default)": None, "sleep (PASSIVE)": "PASSIVE"}

CHILD = """
import json, statistics, sys, time
from docqa.collection import Collection
index, calls = sys.argv[1], int(sys.argv[2])
questions = json.loads(sys.argv[3])
retriever = Collection.open(index).retriever("dense")
for q in questions[:10]:
    retriever.search(q, 5)  # warm-up: compiled kernels, the team of threads, the pages
times, tops = [], []
cpu = time.process_time()
for i in range(calls):
    start = time.perf_counter()
    hits = retriever.search(questions[i % len(questions)], 5)
    times.append(time.perf_counter() - start)
    tops.append(hits[0].id if hits else None)
cpu = time.process_time() - cpu
print(json.dumps({"p50": statistics.median(times) * 1e3, "cpu": cpu / calls * 1e3,
                  "tops": tops}))
"""

BUSY = "import time\nend = time.monotonic() + float(__import__('sys').argv[1])\n" + (
    "while time.monotonic() < end:\n    pass\n"
)


def run(index: Path, calls: int, questions: list[str], policy: str | None) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if policy is not None:
        env["OMP_WAIT_POLICY"] = policy
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(index), str(calls), json.dumps(questions)],
        env=env, capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    result: dict[str, object] = json.loads(out.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from bench_service import build_index_100k, questions_of

    index = build_index_100k()
    questions = questions_of(index)
    expected: list[object] | None = None
    print(f"dense search, 100k chunks, {args.calls} calls per process, {args.rounds} rounds")
    print("| beside it | idle threads | p50 ms | CPU ms per call |\n|---|---|---|---|")
    for beside in ("nothing", "one busy process"):
        figures: dict[str, list[dict[str, object]]] = {name: [] for name in POLICIES}
        for _ in range(args.rounds):
            for name, policy in POLICIES.items():
                busy = None
                if beside != "nothing":
                    busy = subprocess.Popen([sys.executable, "-c", BUSY, "300"])
                    time.sleep(0.2)
                try:
                    result = run(index, args.calls, questions, policy)
                finally:
                    if busy is not None:
                        busy.kill()
                        busy.wait()
                if expected is None:
                    expected = list(result["tops"])  # type: ignore[call-overload]
                if result["tops"] != expected:
                    raise SystemExit(f"{name}: top hits differ from the first run's")
                figures[name].append(result)
        for name, runs in figures.items():
            p50 = statistics.median(float(r["p50"]) for r in runs)  # type: ignore[arg-type]
            cpu = statistics.median(float(r["cpu"]) for r in runs)  # type: ignore[arg-type]
            print(f"| {beside} | {name} | {p50:.2f} | {cpu:.2f} |")
    load = os.getloadavg()
    print(f"\nload average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")


if __name__ == "__main__":
    main()
