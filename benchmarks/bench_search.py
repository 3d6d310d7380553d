"""Exact top-k search against the NumPy reference, np.argpartition, FAISS and the bandwidth floor.

Run: .venv/bin/python -m pytest benchmarks/bench_search.py -o python_files='bench_*.py' -q
Matrices are cached as .npy in $DOCQA_BENCH_DIR (default /tmp/docqa-bench) and opened with
mmap (warm). Set DOCQA_BENCH_FULL=1 to add the 1M-row batch and the 1M x 384 cases.
Mismatches count (query, position) pairs whose id differs from the reference top-k on
canonical scores (for FAISS and argpartition these are tie-order or rounding differences).

``test_int8`` compares docqa's int8 search (``CompactMatrix``: exact, float32 rows on disk
for rescoring) with float32 docqa, the one-pass floor, FAISS ``IndexFlatIP`` and FAISS
``IndexScalarQuantizer(QT_8bit)`` (approximate: its mismatches are counted). Resident memory
is what each search keeps in RAM: for docqa the resident pages of freshly memory-mapped
``.npy`` files after the search (``/proc/self/smaps``), for FAISS the anonymous memory its
index holds.
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Self

import numba
import numpy as np
import pytest
from numba import njit, prange
from paired import paired_line, paired_ratios

from docqa.search import CompactMatrix, canonical_scores, compact_batch, topk
from docqa.search.compact_names import ARRAYS as INT8_ARRAYS
from docqa.search.reference import topk_from_scores

faiss = pytest.importorskip("faiss")

K = 10
CACHE = Path(os.environ.get("DOCQA_BENCH_DIR", "/tmp/docqa-bench"))
FULL = os.environ.get("DOCQA_BENCH_FULL") == "1"
ROWS: list[dict[str, object]] = []
PAIRED: list[str] = []  # lines for the table: interleaved, paired ratios
INT8_ROWS: list[str] = []  # lines of the int8 table
INT8_CASES = [
    (1_000_000, 256, 1, 1),
    (1_000_000, 256, 1, 2),
    (1_000_000, 384, 1, 1),
    (1_000_000, 384, 1, 2),
    (100_000, 256, 1000, 2),
] + ([(1_000_000, d, 1000, t) for d in (256, 384) for t in (1, 2)] if FULL else [])

CASES = [
    ("unit", 100_000, 256, 1, 1),
    ("unit", 100_000, 256, 1, 2),
    ("count", 100_000, 256, 1, 2),
    ("unit", 100_000, 384, 1, 2),
    ("unit", 100_000, 256, 1000, 2),
    ("count", 100_000, 256, 1000, 2),
    ("unit", 1_000_000, 256, 1, 1),
    ("unit", 1_000_000, 256, 1, 2),
    ("count", 1_000_000, 256, 1, 2),
] + ([("unit", 1_000_000, 256, 1000, 2), ("unit", 1_000_000, 384, 1, 2)] if FULL else [])


@njit(parallel=True, fastmath=True)
def _one_pass(matrix: np.ndarray) -> float:
    """Read every element once (the memory-bandwidth floor of a scan)."""
    total = 0.0
    for r in prange(matrix.shape[0]):
        s = np.float32(0.0)
        for i in range(matrix.shape[1]):
            s += matrix[r, i]
        total += s
    return total


def _make(kind: str, n: int, d: int, seed: int) -> np.ndarray:
    """Random unit rows, or hashing-like token counts (Zipf tokens hashed into d buckets)."""
    rng = np.random.default_rng(seed)
    if kind == "unit":
        m = rng.standard_normal((n, d), dtype=np.float32)
        return m / np.linalg.norm(m, axis=1, keepdims=True)
    tokens = rng.zipf(1.3, size=(n, 8 if n <= 1000 else 40)) % 5000
    buckets = (tokens * 2654435761) % d
    flat = (np.arange(n)[:, None] * d + buckets).ravel()
    return np.bincount(flat, minlength=n * d).reshape(n, d).astype(np.float32)


def _matrix(kind: str, n: int, d: int) -> np.ndarray:
    path = CACHE / f"{kind}-{n}x{d}.npy"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        out = np.lib.format.open_memmap(
            path.with_suffix(".part"), mode="w+", dtype=np.float32, shape=(n, d)
        )
        for start in range(0, n, 100_000):
            out[start : start + 100_000] = _make(kind, min(100_000, n - start), d, seed=start)
        out.flush()
        del out
        path.with_suffix(".part").rename(path)
    return np.load(path, mmap_mode="r")


def _queries(kind: str, m: np.ndarray, nq: int) -> np.ndarray:
    rng = np.random.default_rng(1)
    if kind == "count":
        return _make("count", nq, m.shape[1], seed=99)
    q = np.asarray(m[rng.integers(0, m.shape[0], nq)]) + 0.5 * _make("unit", nq, m.shape[1], 7)
    return q.astype(np.float32)


def _median(fn: Callable[[], object], rounds: int) -> float:
    fn()
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _canonical_truth(m: np.ndarray, qs: np.ndarray) -> np.ndarray:
    """Reference ids ``(n, K)``: the NumPy twin's canonical scores, 100k rows at a time."""
    out = []
    for q in qs:
        scores = np.concatenate(
            [canonical_scores(m[s : s + 100_000], q) for s in range(0, m.shape[0], 100_000)]
        )
        out.append(topk_from_scores(scores, K).ids[0])
    return np.array(out)


def _numpy_ref(m: np.ndarray, qs: np.ndarray, partition: bool) -> np.ndarray:
    out = []
    for q in qs:
        s = m @ q
        if partition:
            top = np.argpartition(-s, K)[:K]
            out.append(top[np.argsort(-s[top])])
        else:
            out.append(np.argsort(-s, kind="stable")[:K])
    return np.array(out)


class _AnonPeak:
    """Peak growth of this process's anonymous resident memory (RssAnon) while active."""

    def __enter__(self) -> Self:
        self.base = self.peak = self._read()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _watch(self) -> None:
        while not self._stop.wait(0.002):
            self.peak = max(self.peak, self._read())

    @staticmethod
    def _read() -> int:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) * 1024
        return 0

    @property
    def mib(self) -> float:
        return (self.peak - self.base) / 2**20


@pytest.mark.parametrize(("kind", "n", "d", "nq", "threads"), CASES)
def test_search(benchmark, kind: str, n: int, d: int, nq: int, threads: int) -> None:
    m = _matrix(kind, n, d)
    qs = _queries(kind, m, nq)
    topk(m[:2000], qs, K, n_threads=threads)  # JIT warm-up outside the timed part
    topk(m[:2000], qs[0], K, n_threads=threads)
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    faiss.omp_set_num_threads(threads)
    try:
        row = _measure(benchmark, m, qs, threads)
    finally:
        numba.set_num_threads(before)
    row.update(case=f"{kind} {n // 1000}k x {d}", queries=nq, threads=threads)
    ROWS.append(row)


def _measure(benchmark, m: np.ndarray, qs: np.ndarray, threads: int) -> dict[str, object]:
    rounds = 1 if qs.shape[0] > 1 and m.shape[0] > 100_000 else (3 if qs.shape[0] > 1 else 7)
    sample = qs[:3]
    truth = _canonical_truth(m, sample)
    with _AnonPeak() as mem:
        res = benchmark.pedantic(
            lambda: topk(m, qs, K, n_threads=threads), rounds=rounds, iterations=1
        )
    assert np.array_equal(res.ids[:3], truth), "docqa differs from the canonical reference"
    for i in range(min(20, qs.shape[0])):
        assert np.array_equal(topk(m, qs[i], K, n_threads=threads).ids[0], res.ids[i])
    row: dict[str, object] = {"docqa": benchmark.stats.stats.median, "docqa_anon_mib": mem.mib}
    row["floor"] = _median(lambda: _one_pass(m), rounds) * qs.shape[0] if qs.shape[0] == 1 else None
    if qs.shape[0] == 1:
        row["reference"] = _median(lambda: _numpy_ref(m, qs, False), 3)
        row["argpartition"] = _median(lambda: _numpy_ref(m, qs, True), 3)
        row["argpartition_mismatch"] = int((_numpy_ref(m, sample, True) != truth).sum())
    with _AnonPeak() as fmem:
        index = faiss.IndexFlatIP(m.shape[1])
        index.add(m)
        row["faiss"] = _median(lambda: index.search(qs, K), rounds)
    _, fids = index.search(sample, K)
    row.update(faiss_mismatch=int((fids != truth).sum()), faiss_anon_mib=fmem.mib)
    return row


def test_paired_one_query_vs_floor() -> None:
    m = _matrix("unit", 1_000_000, 256)
    q = _queries("unit", m, 1)
    topk(m, q, K, n_threads=2)
    before = numba.get_num_threads()
    numba.set_num_threads(2)
    try:
        _one_pass(m)
        ratios = paired_ratios(lambda: topk(m, q, K, n_threads=2), lambda: _one_pass(m), 9)
    finally:
        numba.set_num_threads(before)
    PAIRED.append(paired_line("one query 1M x 256, 2 threads, docqa time over the floor", ratios))


@pytest.mark.parametrize("n", [100_000, 1_000_000] if FULL else [100_000])
def test_paired_batch_vs_faiss(n: int) -> None:
    m = _matrix("unit", n, 256)
    qs = _queries("unit", m, 1000)
    want = topk(m, qs, K, n_threads=2)
    faiss.omp_set_num_threads(2)
    index = faiss.IndexFlatIP(m.shape[1])
    index.add(m)
    index.search(qs[:50], K)

    def ours() -> None:
        assert np.array_equal(topk(m, qs, K, n_threads=2).ids, want.ids)

    ratios = paired_ratios(lambda: index.search(qs, K), ours, 5 if n <= 100_000 else 3)
    PAIRED.append(
        paired_line(f"batch 1000 x {n // 1000}k x 256, 2 threads, FAISS time over docqa", ratios)
    )


def _mapped_mib(path: Path) -> float:
    """Resident MiB of this process's mappings of ``path`` (pages touched since mapping)."""
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        if line[:1].isalnum() and "-" in line.split()[0]:
            inside = line.rstrip().endswith(str(path))
        elif inside and line.startswith("Rss:"):
            total += int(line.split()[1]) * 1024
    return total / 2**20


def _int8_files(m: np.ndarray, n: int, d: int) -> dict[str, Path]:
    """The float32 rows and the int8 arrays as .npy files (built once, cached)."""
    paths = {name: CACHE / f"int8-{n}x{d}-{name}.npy" for name in ("vectors", *INT8_ARRAYS)}
    if not all(p.exists() for p in paths.values()):
        np.save(paths["vectors"], m)
        for name, a in CompactMatrix.from_float32(m).to_arrays().items():
            np.save(paths[name], a)
    return paths


def _open_int8(paths: dict[str, Path]) -> tuple[np.ndarray, CompactMatrix]:
    """Fresh maps, the float32 rows first dropped from the page cache (as if cold on disk)."""
    fd = os.open(paths["vectors"], os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    maps = {name: np.load(p, mmap_mode="r") for name, p in paths.items()}
    vectors = maps.pop("vectors")
    return vectors, CompactMatrix.from_arrays(vectors, maps)


def _faiss_run(
    index: object, m: np.ndarray, qs: np.ndarray, rounds: int
) -> tuple[float, np.ndarray, float]:
    """(median seconds, ids of the first 3 queries, anonymous MiB held) of a FAISS index."""
    with _AnonPeak() as mem:
        if not index.is_trained:  # type: ignore[attr-defined]
            index.train(m[:: max(1, m.shape[0] // 100_000)])  # type: ignore[attr-defined]
        index.add(m)  # type: ignore[attr-defined]
    seconds = _median(lambda: index.search(qs, K), rounds)  # type: ignore[attr-defined]
    return seconds, index.search(qs[:3], K)[1], mem.mib  # type: ignore[attr-defined]


@pytest.mark.parametrize(("n", "d", "nq", "threads"), INT8_CASES)
def test_int8(n: int, d: int, nq: int, threads: int) -> None:
    m = _matrix("unit", n, d)
    qs = _queries("unit", m, nq)
    truth = _canonical_truth(m, qs[:3])
    paths = _int8_files(m, n, d)
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    faiss.omp_set_num_threads(threads)
    try:
        row = _int8_measure(m, qs, paths, threads, truth)
    finally:
        numba.set_num_threads(before)
    INT8_ROWS.append(
        f"{n // 1000}k x {d:<5}{nq:>5}{threads:>4}{1e3 * row['f32']:>9.1f}{1e3 * row['int8']:>9.1f}"
        f"{row['f32'] / row['int8']:>7.2f}{row['paired']:>8.2f}{row['floor']:>9}"
        f"{1e3 * row['flat']:>9.1f}{1e3 * row['sq8']:>9.1f}{row['mis_int8']:>6}{row['mis_sq8']:>6}"
        f"{row['rescored']:>9.0f}{row['mem_f32']:>8.0f}{row['mem_int8']:>7.0f}{row['mem_flat']:>7.0f}"
        f"{row['mem_sq8']:>7.0f}"
    )


def _int8_measure(
    m: np.ndarray, qs: np.ndarray, paths: dict[str, Path], threads: int, truth: np.ndarray
) -> dict[str, Any]:
    rounds = 7 if qs.shape[0] == 1 else 1
    vectors, cm = _open_int8(paths)
    cm.topk(qs[:2], K)  # JIT warm-up (both paths) outside the timed part
    cm.topk(qs[0], K)
    want = topk(vectors, qs, K)
    row: dict[str, Any] = {"mem_f32": _mapped_mib(paths["vectors"])}
    got, rescored = cm.topk_counted(qs, K)
    row["mis_int8"] = int((got.ids != want.ids).sum() + (got.scores != want.scores).sum())
    assert row["mis_int8"] == 0, "int8 search differs from float32 topk"
    assert np.array_equal(got.ids[:3], truth)
    row["rescored"] = float(np.median(rescored))
    del vectors, cm, got
    vectors, cm = _open_int8(paths)  # fresh maps: count only the pages the int8 search touches
    cm.topk(qs, K)
    row["mem_int8"] = sum(_mapped_mib(p) for p in paths.values())
    row["f32"] = _median(lambda: topk(vectors, qs, K), rounds)
    row["int8"] = _median(lambda: cm.topk(qs, K), rounds)
    pairs = 9 if qs.shape[0] == 1 else 3
    row["paired"] = statistics.median(
        paired_ratios(lambda: topk(vectors, qs, K), lambda: cm.topk(qs, K), pairs)
    )
    row["floor"] = f"{1e3 * _median(lambda: _one_pass(m), rounds):.1f}" if qs.shape[0] == 1 else "-"
    row["flat"], _, row["mem_flat"] = _faiss_run(faiss.IndexFlatIP(m.shape[1]), m, qs, rounds)
    sq8 = faiss.IndexScalarQuantizer(
        m.shape[1], faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT
    )
    row["sq8"], sq8_ids, row["mem_sq8"] = _faiss_run(sq8, m, qs, rounds)
    row["mis_sq8"] = int((sq8_ids != truth).sum())
    return row


def _int8_table() -> list[str]:
    if not INT8_ROWS:
        return []
    return [
        "",
        (
            f"{'case':<11}{'q':>5}{'thr':>4}{'f32':>9}{'int8':>9}{'f/i':>7}{'paired':>8}"
            f"{'floor':>9}{'flatIP':>9}{'SQ8':>9}{'mis8':>6}{'misSQ':>6}{'rescore':>9}"
            f"{'MiB f32':>8}{'int8':>7}{'flat':>7}{'SQ8':>7}"
        ),
        *INT8_ROWS,
        (
            "ms, medians; f/i = float32 docqa time / int8 docqa time; paired = the same, median "
            "of interleaved pairs; mis8 = int8 ids or scores differing from float32 topk (all "
            "queries); misSQ = FAISS SQ8 ids differing from the canonical top-10 (3 queries); "
            "rescore = rows rescored per query (median); MiB = resident memory of the searched data"
        ),
        "int8 batches ran on the "
        + ("native AVX2 kernel" if compact_batch.native_kernel() else "portable sgemm path"),
    ]


@pytest.fixture(scope="module", autouse=True)
def _print_table(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    if not ROWS and not PAIRED and not INT8_ROWS:
        return
    lines = _table() + PAIRED + _int8_table()
    CACHE.mkdir(parents=True, exist_ok=True)
    (CACHE / "bench_search.txt").write_text("\n".join(lines) + "\n")
    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print("\n" + "\n".join(lines))


def _table() -> list[str]:
    header = (
        f"{'case':<18}{'q':>5}{'thr':>4}{'floor':>9}{'ref':>9}{'argpart':>9}{'faiss':>9}{'docqa':>9}"
        f"{'/floor':>8}{'ref/':>7}{'faiss/':>8}{'mis ap/fa':>10}{'anon MiB d/f':>14}"
    )
    lines = [header]
    for r in ROWS:
        ms = {
            k: (f"{1e3 * r[k]:.1f}" if isinstance(r.get(k), float) else "-")
            for k in ("floor", "reference", "argpartition", "faiss", "docqa")
        }
        ratio = {
            k: (f"{r[k] / r['docqa']:.2f}" if isinstance(r.get(k), float) else "-")
            for k in ("reference", "faiss")
        }
        ratio["floor"] = (
            f"{r['docqa'] / r['floor']:.2f}" if isinstance(r.get("floor"), float) else "-"
        )
        mismatch = f"{r.get('argpartition_mismatch', '-')}/{r['faiss_mismatch']}"
        lines.append(
            f"{r['case']:<18}{r['queries']:>5}{r['threads']:>4}{ms['floor']:>9}{ms['reference']:>9}"
            f"{ms['argpartition']:>9}{ms['faiss']:>9}{ms['docqa']:>9}{ratio['floor']:>8}"
            f"{ratio['reference']:>7}{ratio['faiss']:>8}{mismatch:>10}"
            f"{r['docqa_anon_mib']:>7.1f}/{r['faiss_anon_mib']:<6.0f}"
        )
    lines.append(
        "ms, medians; /floor = docqa/floor; ref/ and faiss/ = their time / docqa (speed-up)"
    )
    return lines
