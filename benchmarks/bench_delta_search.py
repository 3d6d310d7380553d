"""Search over a delta-updated index against a fresh build of the same files, paired.

    python benchmarks/bench_delta_search.py [--where /tmp/docqa-bench] [--size 100]

Takes the replicated corpus of ``bench_index.py`` (``corpus-{size}MB``), builds it fresh,
edits 1% of the files, updates the fresh copy's twin as a delta and builds the edited files
fresh again; then asks pydocs' questions (k = 10) of both, one question at a time through
``Collection.retriever(mode)``, interleaved, and reports each mode's p50 and the median of
the paired ratios (delta / fresh). The hits of every question are asserted equal (ids and
scores) before anything is timed. Not a test: timings on a shared machine are noisy.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_index import touch_one_percent
from bench_keyword import PYDOCS
from index_corpus import replicated
from paired import interleaved_rounds, ratios

from docqa.collection import Collection

QUESTIONS = PYDOCS / "questions.jsonl"


def build(corpus: Path, ix: Path) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "docqa", "index", str(corpus), "--index", str(ix), "--quiet"],
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


def questions() -> list[str]:
    lines = QUESTIONS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question"] for line in lines if line.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--where", type=Path, default=Path(tempfile.gettempdir()) / "docqa-bench")
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    corpus = replicated(args.where, args.size)
    delta, fresh = args.where / "ix-search-delta", args.where / "ix-search-fresh"
    for ix in (delta, fresh):
        shutil.rmtree(ix, ignore_errors=True)
    build(corpus, delta)
    time.sleep(3.1)  # past the racy window: the update trusts the unchanged files' stats
    print(f"edited {touch_one_percent(corpus)} files")
    summary = build(corpus, delta)
    assert "written as a delta" in summary, summary
    build(corpus, fresh)
    print(summary)
    a, b = Collection.open(delta), Collection.open(fresh)
    asked = questions()
    n = len(asked)
    print(f"{len(asked)} questions x {args.rounds} rounds, k = 10, {len(b.chunks)} chunks")
    print("| mode | delta-updated p50 | fresh build p50 | paired delta / fresh |")
    print("|---|---|---|---|")
    for mode in ("dense", "keyword", "hybrid"):
        ra, rb = a.retriever(mode, guard=False), b.retriever(mode, guard=False)
        for q in asked:  # correctness first, and the warm-up (kernels compiled, pages in)
            got, want = ra.search(q, 10), rb.search(q, 10)
            assert [(h.chunk.id, h.score) for h in got] == [(h.chunk.id, h.score) for h in want], (
                mode,
                q,
            )
        times = interleaved_rounds(
            {
                "delta": lambda r, ra=ra: ra.search(asked[r % n], 10),
                "fresh": lambda r, rb=rb: rb.search(asked[r % n], 10),
            },
            args.rounds * n,
        )
        ta, tb = [t["delta"] for t in times], [t["fresh"] for t in times]
        pairs = ratios(times, "delta", "fresh")
        print(
            f"| {mode} | {1e3 * statistics.median(ta):.2f} ms | "
            f"{1e3 * statistics.median(tb):.2f} ms | {statistics.median(pairs):.2f}x |"
        )


if __name__ == "__main__":
    main()
