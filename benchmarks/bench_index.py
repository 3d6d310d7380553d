"""End-to-end ``docqa index`` on replicated real documentation, with the same run's anchors.

    python benchmarks/bench_index.py --sizes 100 1000 --workers 2

For each size: a full build (``docqa index CORPUS --index IX --quiet --workers N`` in a child
process), then an incremental one after 1% of the files were edited, the same command again 3 s
later (the edited files were changed within the racy window of that build's scan, so they are
read and hashed again; now their stats are trusted) and once more (nothing to do); then more
pairs of a full build and an update (``--pairs``, 5 in all), whose median ratio is reported,
as one pair's ratio moves by half with the machine's speed from one second to the next.
Reported: MB/s (corpus bytes / wall seconds), CPU seconds of the whole process tree (sampled;
the last 50 ms are missed), peak RSS summed over the build's processes (sampled from /proc
every 50 ms), and the anchors over the chunk texts of the built
index: the hashing embedder alone on the same threads (the kernel limit), tantivy (Rust,
Lucene-like, writer on the same threads) and bm25s. Each timed part is checked: the index
verifies and holds the rows it reports; tantivy and bm25s hold one document per chunk.
Not a test: a script, since one run takes minutes. Timings on a shared machine are noisy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from index_corpus import MB, replicated, size_of

PAGE = os.sysconf("SC_PAGE_SIZE")


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (from /proc/<pid>/task/*/children)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                todo.extend(int(c) for c in (task / "children").read_text().split())
            except OSError:
                continue
    return out


TICK = os.sysconf("SC_CLK_TCK")


def _cpu(pids: list[int], seen: dict[int, float]) -> None:
    """Record each process's user + system seconds so far (the last sample counts)."""
    for p in pids:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            seen[p] = (int(fields[11]) + int(fields[12])) / TICK
        except (OSError, IndexError, ValueError):
            continue


def _rss(pids: list[int]) -> int:
    total = 0
    for p in pids:
        try:
            total += int(Path(f"/proc/{p}/statm").read_text().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            continue
    return total


def run_index(
    corpus: Path, ix: Path, workers: int, python: str = sys.executable
) -> dict[str, float]:
    """Wall seconds, CPU seconds and peak summed RSS (MB) of one ``docqa index`` (run by
    ``python``: another environment's docqa for a paired comparison)."""
    cmd = [python, "-m", "docqa", "index", str(corpus), "--index", str(ix)]
    started = time.perf_counter()
    proc = subprocess.Popen([*cmd, "--quiet", "--workers", str(workers)], stdout=subprocess.PIPE)
    peak, cpu, done = [0], dict[int, float](), threading.Event()

    def sample() -> None:  # beside the wait, so that the wall time is not rounded to a sample
        while not done.is_set():
            tree = process_tree(proc.pid)
            peak[0] = max(peak[0], _rss(tree))
            _cpu(tree, cpu)
            done.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out = proc.stdout.read().decode() if proc.stdout else ""
    proc.wait()
    wall = time.perf_counter() - started
    done.set()
    sampler.join()
    if proc.returncode != 0:
        raise SystemExit(f"docqa index failed ({proc.returncode}): {out}")
    return {"wall": wall, "cpu": sum(cpu.values()), "rss_mb": peak[0] / MB, "summary": out.strip()}  # type: ignore[dict-item]


def watch_pairs(corpus: Path, where: Path, workers: int, pairs: int) -> list[dict[str, float]]:
    """``docqa watch`` on ``corpus``: after its first build, ``pairs`` times a full build (a
    fresh ``docqa index`` elsewhere, the watcher idle) and then a 1% edit, timed until the
    watcher's summary line: ``update`` is the update's own wall time (its line's seconds),
    ``latency`` the time from the last write to the line (the burst settles 50 ms after its
    last change, then the update runs). The watched index is checked against a fresh build."""
    ix, full_ix = where / "ix-watch", where / "ix-watch-full"
    subprocess.run(["rm", "-rf", str(ix)], check=True)
    proc = subprocess.Popen(
        [sys.executable, "-m", "docqa", "watch", str(corpus), "--index", str(ix), "--quiet",
         "--workers", str(workers)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    try:
        proc.stdout.readline()  # the first build
        time.sleep(1.5)  # past the watcher's start and its first quiet second
        out = []
        for _ in range(pairs):
            subprocess.run(["rm", "-rf", str(full_ix)], check=True)
            full = run_index(corpus, full_ix, workers)
            touch_one_percent(corpus)
            written = time.perf_counter()
            line = proc.stdout.readline()
            latency = time.perf_counter() - written
            assert " changes: indexed " in line or " change: indexed " in line, line
            update = float(line.rsplit(";", 1)[1].split()[0])
            out.append({"full": full["wall"], "update": update, "latency": latency})
            time.sleep(0.2)
        verify(ix)
        fresh = where / "ix-watch-fresh"
        subprocess.run(["rm", "-rf", str(fresh)], check=True)
        run_index(corpus, fresh, workers)
        same_answers(ix, fresh)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    return out


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def touch_one_percent(corpus: Path) -> int:
    files = sorted(p for p in corpus.rglob("*") if p.is_file())
    chosen = files[:: max(1, len(files) // max(1, len(files) // 100))][: max(1, len(files) // 100)]
    for path in chosen:
        with open(path, "a", encoding="utf-8") as out:
            out.write("\n\nEdited for the incremental benchmark.\n")
    return len(chosen)


def verify(ix: Path) -> None:
    """Checksum the index, whole or delta-updated."""
    from docqa.index import open_index
    from docqa.index.shards import is_sharded, open_sharded

    (open_sharded(ix) if is_sharded(ix) else open_index(ix)).verify()


def same_answers(ix: Path, fresh: Path, n: int = 60) -> int:
    """Check that ``ix`` (updated) holds the chunks of ``fresh`` (built anew) and answers
    ``n`` questions (words of its chunks) with the same hits in every mode; returns ``n``."""
    from docqa.collection import Collection

    a, b = Collection.open(ix), Collection.open(fresh)
    assert len(a.chunks) == len(b.chunks)
    step = max(1, len(b.chunks) // n)
    questions = [
        " ".join(b.chunks[i].text.split()[3:9]) or "docs" for i in range(0, len(b.chunks), step)
    ]
    for mode in ("dense", "keyword", "hybrid"):
        got, want = (
            a.search_batch(questions, 10, mode=mode),
            b.search_batch(questions, 10, mode=mode),
        )
        assert [[(h.chunk.id, h.score) for h in x] for x in got] == [
            [(h.chunk.id, h.score) for h in x] for x in want
        ], mode
    return len(questions)


def anchors(ix: Path, megabytes: float, threads: int) -> dict[str, float]:
    """Seconds of the embedder alone, tantivy and bm25s over the index's chunk texts."""
    from docqa.embed import HashingEmbedder
    from docqa.index import open_index
    from docqa.text import embed_text

    index = open_index(ix)
    texts = [embed_text(c) for c in index.chunks]
    out: dict[str, float] = {}
    embedder = HashingEmbedder(index.manifest.dim, n_threads=threads)
    embedder.embed(texts[:1000])  # warm-up
    started = time.perf_counter()
    vectors = embedder.embed(texts)
    out["embedder alone"] = time.perf_counter() - started
    assert vectors.shape == index.vectors.shape
    try:
        out["tantivy"] = _tantivy(texts, threads)
    except ImportError:
        print("tantivy not installed (pip install '.[bench]')")
    try:
        out["bm25s"] = _bm25s(texts)
    except ImportError:
        print("bm25s not installed (pip install '.[bench]')")
    return out


def _tantivy(texts: list[str], threads: int) -> float:
    import tantivy

    schema = tantivy.SchemaBuilder().add_text_field("body", stored=False).build()
    with tempfile.TemporaryDirectory(prefix="bench-tantivy-") as where:
        started = time.perf_counter()
        index = tantivy.Index(schema, path=where)
        writer = index.writer(heap_size=200_000_000, num_threads=threads)
        for text in texts:
            writer.add_document(tantivy.Document(body=text))
        writer.commit()
        writer.wait_merging_threads()
        seconds = time.perf_counter() - started
        index.reload()
        assert index.searcher().num_docs == len(texts)
    return seconds


def _bm25s(texts: list[str]) -> float:
    import bm25s

    started = time.perf_counter()
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    seconds = time.perf_counter() - started
    assert retriever.scores["num_docs"] == len(texts)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--where", type=Path, default=Path(tempfile.gettempdir()) / "docqa-bench")
    parser.add_argument("--no-anchors", action="store_true")
    parser.add_argument("--no-watch", action="store_true", help="skip the docqa watch pairs")
    parser.add_argument(
        "--pairs", type=int, default=5, help="full build + update pairs for the ratio's median"
    )
    args = parser.parse_args()
    args.where.mkdir(parents=True, exist_ok=True)
    for size in args.sizes:
        corpus = replicated(args.where, size)
        megabytes = size_of(corpus) / MB
        ix = args.where / f"ix-{size}MB"
        subprocess.run(["rm", "-rf", str(ix)], check=True)
        full = run_index(corpus, ix, args.workers)
        verify(ix)
        print(f"\n## {megabytes:.0f} MB, {sum(1 for p in corpus.rglob('*') if p.is_file())} files")
        print(f"full build: {full['summary']}")
        print("| run | seconds | MB/s | CPU s | peak RSS MB (all processes) |")
        print("|---|---|---|---|---|")
        print(f"| full, --workers {args.workers} | {full['wall']:.2f} | "
              f"{megabytes / full['wall']:.1f} | {full['cpu']:.1f} | {full['rss_mb']:.0f} |")  # fmt: skip
        edited = touch_one_percent(corpus)
        inc = run_index(corpus, ix, args.workers)
        verify(ix)
        print(f"| incremental, {edited} files edited | {inc['wall']:.2f} | "
              f"{megabytes / inc['wall']:.1f} | {inc['cpu']:.1f} | {inc['rss_mb']:.0f} |")  # fmt: skip
        time.sleep(3.1)  # past sources.RACY_NS since the edits
        for label in (
            "again, 3 s later (edited files racily clean: hashed)",
            "again (nothing to do)",
        ):
            same = run_index(corpus, ix, args.workers)
            print(f"| {label} | {same['wall']:.2f} | {megabytes / same['wall']:.1f} | "
                  f"{same['cpu']:.1f} | {same['rss_mb']:.0f} |")  # fmt: skip
        print(
            f"incremental / full: {inc['wall'] / full['wall']:.1%} wall, "
            f"{inc['cpu'] / full['cpu']:.1%} CPU; load average {_load()}; {inc['summary']}"
        )
        pairs = [(full, inc)]
        for _ in range(args.pairs - 1):  # the machine's speed drifts: pairs, each a ratio
            subprocess.run(["rm", "-rf", str(ix)], check=True)
            again = run_index(corpus, ix, args.workers)
            touch_one_percent(corpus)
            pairs.append((again, run_index(corpus, ix, args.workers)))
        verify(ix)
        if len(pairs) > 1:
            ratios = sorted(i["wall"] / f["wall"] for f, i in pairs)
            fulls = statistics.median(f["wall"] for f, _ in pairs)
            incs = statistics.median(i["wall"] for _, i in pairs)
            print(
                f"over {len(pairs)} pairs (a full build, then the update after 1% is edited): "
                f"incremental / full median {statistics.median(ratios):.1%} "
                f"(each: {', '.join(f'{r:.1%}' for r in ratios)}); "
                f"median full {fulls:.2f} s, update {incs:.2f} s; load average {_load()}"
            )
        fresh = args.where / f"ix-{size}MB-fresh"
        subprocess.run(["rm", "-rf", str(fresh)], check=True)
        run_index(corpus, fresh, args.workers)
        print(
            f"updated index answers as a fresh build: {same_answers(ix, fresh)} questions checked"
        )
        if not args.no_watch:
            runs = watch_pairs(corpus, args.where, args.workers, args.pairs)
            ratios = sorted(r["update"] / r["full"] for r in runs)
            print(
                f"docqa watch, {len(runs)} pairs (a full build, then a 1% edit seen by the "
                f"watcher): update / full median {statistics.median(ratios):.1%} "
                f"(each: {', '.join(f'{r:.1%}' for r in ratios)}); median full "
                f"{statistics.median(r['full'] for r in runs):.2f} s, update "
                f"{statistics.median(r['update'] for r in runs):.2f} s, write to summary line "
                f"{statistics.median(r['latency'] for r in runs):.2f} s; the watched index "
                f"answers as a fresh build; load average {_load()}"
            )
        if args.no_anchors:
            continue
        # The fresh build: ``ix`` is a delta-updated index by now, which ``open_index`` (one
        # part) does not read; the fresh one holds the same chunks.
        times = anchors(fresh, megabytes, args.workers)
        print(
            "\n| anchor (same chunk texts, same run) | seconds | corpus MB/s | docqa index / it |"
        )
        print("|---|---|---|---|")
        for name, seconds in times.items():
            print(f"| {name} | {seconds:.1f} | {megabytes / seconds:.1f} | "
                  f"{seconds / full['wall']:.2f}x |")  # fmt: skip


if __name__ == "__main__":
    main()
