"""Paired, interleaved full builds by two installs of docqa, and a byte comparison of each pair.

    python benchmarks/paired_builds.py --theirs ../main-checkout/.venv/bin/python \
        [--ours PYTHON] [--rounds 3] [--workers 2] [--where DIR]

Each round builds the ~106 MB benchmark corpus (``index_corpus``, as ``bench_index.py``) with
both interpreters' ``docqa index``, the order alternating, and prints each build's wall
seconds, CPU seconds of its process tree and peak summed RSS (sampled as
``bench_index.run_index`` does), then whether the two index directories hold the same bytes:
every file ``cmp``-equal but the manifest, which must be equal but for ``created`` and
``scanned_ns``. Last, the medians and the pairs' CPU ratios (theirs over ours).
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import statistics
import sys
from pathlib import Path

from bench_index import run_index
from index_corpus import replicated
from paired import alternating, install_options

VOLATILE = ("created", "scanned_ns")  # the manifest's fields that differ between two builds


def build(python: str, corpus: Path, ix: Path, workers: int) -> tuple[float, float, float]:
    """``(wall s, CPU s of the process tree, peak summed RSS MB)`` of one fresh build."""
    shutil.rmtree(ix, ignore_errors=True)
    got = run_index(corpus, ix, workers, python)
    return got["wall"], got["cpu"], got["rss_mb"]


def _manifest(ix: Path) -> object:
    def drop(value: object) -> object:
        if isinstance(value, dict):
            return {k: drop(v) for k, v in value.items() if k not in VOLATILE}
        return [drop(v) for v in value] if isinstance(value, list) else value

    return drop(json.loads((ix / "manifest.json").read_text()))


def same_bytes(a: Path, b: Path) -> str:
    """How the two index directories compare, in a few words."""
    names = sorted(str(p.relative_to(a)) for p in a.rglob("*") if p.is_file())
    if names != sorted(str(p.relative_to(b)) for p in b.rglob("*") if p.is_file()):
        return "DIFFERENT FILES"
    differ = [n for n in names if n != "manifest.json" and not filecmp.cmp(a / n, b / n, False)]
    manifest = "equal" if _manifest(a) == _manifest(b) else "DIFFERENT"
    return f"{len(names) - 1 - len(differ)}/{len(names) - 1} files cmp-equal, manifest {manifest}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--theirs", required=True, help="the reference install's python")
    parser.add_argument("--ours", default=sys.executable)
    install_options(parser)
    args = parser.parse_args()
    corpus = replicated(args.where, 100)
    pythons = {"theirs": args.theirs, "ours": args.ours}
    runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in pythons}
    for r in range(args.rounds):
        load = os.getloadavg()[0]
        order = alternating(list(pythons), r)
        for name in order:
            runs[name].append(build(pythons[name], corpus, args.where / f"ix-{name}", args.workers))
        cells = [f"{n}: {w:.2f} s, {c:.2f} CPU s, {m:.0f} MB" for n, (w, c, m) in
                 ((n, runs[n][-1]) for n in order)]  # fmt: skip
        compared = same_bytes(args.where / "ix-theirs", args.where / "ix-ours")
        print(f"round {r + 1} (load {load:.1f}): " + " | ".join(cells) + f" | {compared}")
    for name, found in runs.items():
        wall = statistics.median(w for w, _, _ in found)
        cpu = statistics.median(c for _, c, _ in found)
        rss = statistics.median(m for _, _, m in found)
        print(f"median {name}: {wall:.2f} s, {cpu:.2f} CPU s, {rss:.0f} MB")
    ratios = [t[1] / o[1] for t, o in zip(runs["theirs"], runs["ours"], strict=True)]
    shown = ", ".join(f"{x:.2f}" for x in ratios)
    print(f"CPU ratio theirs/ours: median {statistics.median(ratios):.2f} ({shown}); "
          f"--workers {args.workers}; load average now {os.getloadavg()[0]:.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
