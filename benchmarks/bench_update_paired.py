"""The update against a reference docqa, paired: the same corpus, rounds alternating which
environment goes first.

    python benchmarks/bench_update_paired.py --reference ../main-checkout/.venv/bin/python

Each round, for each of the two environments (this one's ``python`` and ``--reference``):
a full build of the 106 MB corpus of ``bench_index.py``, the update after 1% of the files
were edited, the same command 3 s later (the edited files are racily clean: hashed) and
once more (nothing to do). Reported: the medians over the rounds of wall seconds, CPU
seconds of the whole process tree and peak summed RSS, the update's share of the full
build, and the per-round wall ratios reference / this, with the load average. Not a test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_index import run_index, touch_one_percent
from index_corpus import replicated
from paired import alternating, install_options

RUNS = ("full", "update", "hashed", "nothing")


def one(python: str, corpus: Path, ix: Path, workers: int) -> dict[str, dict[str, float]]:
    """The four runs of one environment; each index checked by ``docqa verify``."""
    subprocess.run(["rm", "-rf", str(ix)], check=True)
    out = {"full": run_index(corpus, ix, workers, python)}
    touch_one_percent(corpus)
    out["update"] = run_index(corpus, ix, workers, python)
    time.sleep(3.1)  # past sources.RACY_NS since the edits
    out["hashed"] = run_index(corpus, ix, workers, python)
    out["nothing"] = run_index(corpus, ix, workers, python)
    subprocess.run([python, "-m", "docqa", "verify", "--index", str(ix)], check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", required=True, help="the other environment's python")
    install_options(parser)
    args = parser.parse_args()
    corpus = replicated(args.where, 100)
    envs = {"reference": args.reference, "this": sys.executable}
    got: dict[str, list[dict[str, dict[str, float]]]] = {name: [] for name in envs}
    loads = []
    for r in range(args.rounds):
        order = alternating(list(envs), r)
        for name in order:
            got[name].append(
                one(envs[name], corpus, args.where / f"ix-paired-{name}", args.workers)
            )
            loads.append(os.getloadavg()[0])
    print("| environment | run | wall s | CPU s | peak RSS MB |")
    print("|---|---|---|---|---|")
    for name in envs:
        for run in RUNS:
            med = {
                k: statistics.median(g[run][k] for g in got[name])
                for k in ("wall", "cpu", "rss_mb")
            }
            print(
                f"| {name} | {run} | {med['wall']:.2f} | {med['cpu']:.2f} | {med['rss_mb']:.0f} |"
            )
    for name in envs:
        share = [g["update"]["wall"] / g["full"]["wall"] for g in got[name]]
        cpu = [g["update"]["cpu"] / g["full"]["cpu"] for g in got[name]]
        print(f"{name}: update / full {statistics.median(share):.1%} wall, "
              f"{statistics.median(cpu):.1%} CPU (medians of the rounds)")  # fmt: skip
    for run in RUNS:
        ratios = [
            a[run]["wall"] / b[run]["wall"]
            for a, b in zip(got["reference"], got["this"], strict=True)
        ]
        print(f"{run}: wall reference / this per round " + ", ".join(f"{x:.2f}" for x in ratios))
    print(f"load average (1 min) during the rounds: {min(loads):.1f}-{max(loads):.1f}")


if __name__ == "__main__":
    main()
