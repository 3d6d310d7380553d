"""The timeline of one full ``docqa index`` build: what each process does, and when.

    python benchmarks/build_timeline.py --workers 2 --where /tmp/docqa-bench

Runs ``docqa index CORPUS --index IX --quiet --workers N`` in a child process (the corpus of
``bench_index.py``, built there if missing) with timers around the build's stages, installed
by wrapping module functions before ``docqa.cli.main.main`` runs (the workers are forked
from it, so they carry the wrappers too). The child writes its events to a file; this
process samples every process's CPU from /proc every 20 ms. Printed: the stages with their
start and end (seconds since the child's exec), each worker's busy span and CPU, and CPU
shares by phase (before the first worker starts, while results arrive, the tail after the
last result, exit). Not a test: the wrappers cost a few ms.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_index import process_tree

TICK = os.sysconf("SC_CLK_TCK")
EVENTS = "DOCQA_TIMELINE_EVENTS"


# ---- inside the build's process (and its forked workers) --------------------------------


def _log(name: str, start: float, end: float, cpu: float) -> None:
    with open(os.environ[EVENTS], "a", encoding="utf-8") as out:
        out.write(json.dumps([os.getpid(), name, start, end, cpu]) + "\n")


def _timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start, cpu = time.time(), time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            _log(name, start, time.time(), time.thread_time() - cpu)

    return wrapper


def worker_run(task: Any) -> Any:
    """``work.run`` timed in the worker (a module-level function: the pool pickles it)."""
    from docqa.pipeline import work

    start, cpu = time.time(), time.process_time()
    try:
        return work.run(task)
    finally:
        _log("worker: run group", start, time.time(), time.process_time() - cpu)


def worker_start() -> None:
    from docqa.pipeline import work

    _log("worker: started", time.time(), time.time(), time.process_time())
    work.ignore_interrupts()


def _results(fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(tasks: Any, workers: int) -> Any:
        first = last = time.time()
        for n, result in enumerate(fn(tasks, workers)):
            if n == 0:
                _log("parent: first result", first, time.time(), 0.0)
            last = time.time()
            yield result
        _log("parent: last result", last, last, 0.0)

    return wrapper


def _install() -> None:
    from docqa import build
    from docqa.index import builder
    from docqa.pipeline import postings, stream, write

    _log("parent: imports done", time.time(), time.time(), time.process_time())
    try:  # where the pool's worker function finds ``run`` (this branch, or one before it)
        from docqa.pipeline import transport
    except ImportError:
        transport = stream  # type: ignore[assignment]
    for module in {stream, transport}:
        if hasattr(module, "run"):
            module.run = worker_run
        if hasattr(module, "ignore_interrupts"):
            module.ignore_interrupts = worker_start
    stream.results = _results(stream.results)  # type: ignore[assignment]
    for module, name, label in (
        (build, "discover", "parent: scan"),
        (build, "_build_locked", "parent: build"),
        (write, "_stream_rows", "parent: stream"),
        (write, "write_bm25", "parent: postings merge"),
        (stream.Pass, "take", "parent: take result"),
        (postings.PostingRuns, "_spill", "parent: spill run"),
        (builder.IndexBuilder, "close_rows", "parent: close rows"),
        (builder.IndexBuilder, "commit", "parent: commit"),
        (builder.IndexBuilder, "__init__", "parent: temp dir"),
    ):
        setattr(module, name, _timed(label, getattr(module, name)))


def child(argv: list[str]) -> int:
    start = time.time()
    from docqa.cli.main import main

    _log("parent: import docqa.cli", start, time.time(), time.process_time())
    import docqa.cli.index  # noqa: F401 - main imports it anyway; timed here

    _install()
    code = main(argv)
    _log("parent: main returned", time.time(), time.time(), time.process_time())
    return code


# ---- this process: run the child, sample CPU, print ----------------------------------------


def _cpu_of(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, IndexError, ValueError):
        return None


def sample(
    cmd: list[str], env: dict[str, str]
) -> tuple[float, float, list[tuple[float, dict[int, float]]]]:
    """(exec time, exit time, samples of (time, pid -> CPU seconds so far))."""
    started = time.time()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE)
    samples: list[tuple[float, dict[int, float]]] = []
    while proc.poll() is None:
        now = time.time()
        cpu = {p: c for p in process_tree(proc.pid) if (c := _cpu_of(p)) is not None}
        samples.append((now, cpu))
        time.sleep(0.02)
    ended = time.time()
    if proc.returncode:
        raise SystemExit(f"docqa index failed ({proc.returncode})")
    return started, ended, samples


def _cpu_between(
    samples: list[tuple[float, dict[int, float]]], a: float, b: float
) -> dict[int, float]:
    """CPU seconds each pid used between times ``a`` and ``b`` (nearest samples)."""
    before = max((s for s in samples if s[0] <= a), default=samples[0], key=lambda s: s[0])[1]
    after = max((s for s in samples if s[0] <= b), default=samples[-1], key=lambda s: s[0])[1]
    return {p: c - before.get(p, 0.0) for p, c in after.items()}


def report(
    t0: float, t1: float, events: list[list[Any]], samples: list[tuple[float, dict[int, float]]]
) -> None:
    parent = next(e[0] for e in events if e[1] == "parent: build")
    print(f"exec to exit: {t1 - t0:.2f} s")
    print("\n| stage (parent) | start s | end s | wall s | CPU s (thread) | calls |")
    print("|---|---|---|---|---|---|")
    by_name: dict[str, list[list[Any]]] = {}
    for e in events:
        by_name.setdefault(e[1], []).append(e)
    for name, group in sorted(by_name.items(), key=lambda kv: kv[1][0][2]):
        if not name.startswith("parent"):
            continue
        wall = sum(e[3] - e[2] for e in group)
        cpu = sum(e[4] for e in group)
        print(f"| {name[8:]} | {group[0][2] - t0:.2f} | {group[-1][3] - t0:.2f} | "
              f"{wall:.2f} | {cpu:.2f} | {len(group)} |")  # fmt: skip
    print(
        "\n| worker | started s | first group s | last group end s | groups | busy s | CPU s in groups |"
    )
    print("|---|---|---|---|---|---|---|")
    for pid in sorted({e[0] for e in events if e[0] != parent}):
        runs = [e for e in events if e[0] == pid and e[1] == "worker: run group"]
        start = next(
            (e[2] for e in events if e[0] == pid and e[1] == "worker: started"), runs[0][2]
        )
        print(f"| {pid} | {start - t0:.2f} | {runs[0][2] - t0:.2f} | {runs[-1][3] - t0:.2f} | "
              f"{len(runs)} | {sum(e[3] - e[2] for e in runs):.2f} | {sum(e[4] for e in runs):.2f} |")  # fmt: skip
    first = by_name["parent: first result"][0]
    last = by_name["parent: last result"][0][2]
    start_workers = min((e[2] for e in events if e[1] == "worker: started"), default=first[2])
    main_ret = by_name["parent: main returned"][0][2]
    phases = [
        ("exec to workers' start", t0, start_workers),
        ("workers' start to first result", start_workers, first[3]),
        ("first to last result", first[3], last),
        ("last result to main's return", last, main_ret),
        ("main's return to exit", main_ret, t1),
    ]
    print("\n| phase | wall s | CPU s parent | CPU s workers | cores busy |")
    print("|---|---|---|---|---|")
    for label, a, b in phases:
        cpu = _cpu_between(samples, a, b)
        mine = cpu.get(parent, 0.0)
        others = sum(c for p, c in cpu.items() if p != parent)
        wall = max(b - a, 1e-9)
        print(
            f"| {label} | {b - a:.2f} | {mine:.2f} | {others:.2f} | {(mine + others) / wall:.2f} |"
        )
    total: dict[int, float] = {}
    for _, cpu in samples:
        total.update(cpu)  # a pid's last sample (workers are gone by the end)
    print(f"\nCPU s in all: {sum(total.values()):.2f} (parent {total.get(parent, 0.0):.2f}); "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")  # fmt: skip


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        raise SystemExit(child(sys.argv[2:]))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--where", type=Path, default=Path(tempfile.gettempdir()) / "docqa-bench")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).parent))
    from index_corpus import replicated

    corpus = replicated(args.where, args.size)
    ix = args.where / f"ix-timeline-{args.size}MB"
    subprocess.run(["rm", "-rf", str(ix)], check=True)
    events_path = args.where / "timeline-events.jsonl"
    events_path.unlink(missing_ok=True)
    env = {**os.environ, EVENTS: str(events_path)}
    cmd = [sys.executable, __file__, "--child", "index", str(corpus), "--index", str(ix),
           "--quiet", "--workers", str(args.workers)]  # fmt: skip
    t0, t1, samples = sample(cmd, env)
    events = [json.loads(line) for line in events_path.read_text().splitlines()]
    report(t0, t1, events, samples)


if __name__ == "__main__":
    main()
