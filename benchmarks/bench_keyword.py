"""BM25 indexing and retrieval: docqa against bm25s (numba backend) and rank_bm25.

Corpus: >= 20 MB of real English text in 200-word chunks (``corpus.py``); 1,000 queries of 3-6
words sampled from random chunks (seed 0); k = 10. Indexing is tokenize + index, in MB/s;
retrieval is queries/s on pre-tokenized queries for bm25s and from raw strings for docqa.
rank_bm25 runs on a 10% subset (it is pure Python). docqa's top-10 lists are checked equal to
the plain-Python reference on a subset (the reference scans every row per query), and bm25s's
lists are compared with docqa's on the whole corpus (they differ by design: bm25s keeps words
of 2+ characters, has its own stop words and no plural folding).

One question at a time (``test_single_question_vs_tantivy``): the pydocs evaluation chunks
(``../shared/evalsets/pydocs``, or $DOCQA_PYDOCS) repeated to ~151k rows, its 110 questions,
docqa and tantivy (block-max WAND, ``count=False`` so it may prune) timed question by question,
back to back, the order alternating, from the raw question string (tantivy's query parsing is
inside its timing, as docqa's tokenizing is inside docqa's). Batch with tokenizing included
(``test_batch_tokenising_included``): bm25s's ``tokenize`` of the queries is inside its timing;
three collections: the English chunks, 40k chunks of random words (30,000 of them, short
postings) and 40k chunks drawn from a 3,000-word vocabulary (long postings).

Run: .venv/bin/python -m pytest benchmarks/bench_keyword.py -o python_files='bench_*.py' -q
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

bm25s = pytest.importorskip("bm25s")
rank_bm25 = pytest.importorskip("rank_bm25")

from corpus import corpus
from paired import paired_line, paired_ratios

from docqa.keyword import BM25Index
from docqa.keyword.reference import ReferenceBM25

K = 10
N_QUERIES = 1_000
REFERENCE_ROWS = 1_500  # rows of the subset the plain-Python reference is compared on
ROUNDS = 3
PAIRED_ROUNDS = 9
RESULTS: dict[str, dict[str, float]] = {}
PAIRED: dict[str, list[float]] = {}  # what -> per-pair speed-ups of docqa over bm25s
LATENCY: list[str] = []  # lines of the one-question table
PYDOCS = Path(
    os.environ.get("DOCQA_PYDOCS")
    or next(  # ../shared/evalsets/pydocs from the checkout, or from a worktree below it
        (p / "shared/evalsets/pydocs" for p in Path(__file__).resolve().parents
         if (p / "shared/evalsets/pydocs").is_dir()),
        Path("shared/evalsets/pydocs"),
    )
)  # fmt: skip
SERVICE_ROWS = 150_000


def median_seconds(fn: Callable[[], Any], rounds: int = ROUNDS) -> tuple[float, Any]:
    """Median wall time of ``fn()`` over ``rounds`` runs, and the last result."""
    times, out = [], None
    for _ in range(rounds):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), out


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    c = corpus(20.0)
    rng = np.random.default_rng(0)
    queries = []
    for row in rng.integers(0, len(c.chunks), N_QUERIES):
        words = c.chunks[row].split()
        size = min(len(words), int(rng.integers(3, 7)))
        queries.append(" ".join(words[i] for i in sorted(rng.choice(len(words), size, False))))
    return {"chunks": c.chunks, "mb": c.megabytes, "queries": queries}


@pytest.fixture(scope="module", autouse=True)
def table(request: pytest.FixtureRequest) -> Iterator[None]:
    """Print the medians and ratios after the module's benchmarks (outside output capture)."""
    yield
    lines = ["", f"{'system':<24}{'index MB/s':>12}{'queries/s':>12}{'top-10 equal':>22}"]
    for name, r in RESULTS.items():
        mbps, qps = r.get("mbps", float("nan")), r.get("qps", float("nan"))
        lines.append(f"{name:<24}{mbps:>12.2f}{qps:>12.0f}{r.get('equal', ''):>22}")
    for threads in (1, 2):
        ours = RESULTS.get(f"docqa ({threads} thread)", {})
        theirs = RESULTS.get(f"bm25s ({threads} thread)", {})
        if "qps" in ours and "qps" in theirs:
            lines.append(
                f"retrieval docqa/bm25s, {threads} thread: {ours['qps'] / theirs['qps']:.2f}x"
            )
        if "mbps" in ours and "mbps" in RESULTS.get("bm25s (1 thread)", {}):
            ratio = ours["mbps"] / RESULTS["bm25s (1 thread)"]["mbps"]
            lines.append(f"indexing docqa ({threads} thread)/bm25s: {ratio:.1f}x")
    for what, ratios in PAIRED.items():
        lines.append(paired_line(f"{what}, docqa over bm25s", ratios))
    lines += LATENCY
    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print("\n".join(lines))


def test_docqa_equals_reference_on_subset(data: dict[str, Any]) -> None:
    chunks, queries = data["chunks"][:REFERENCE_ROWS], data["queries"][:200]
    got = BM25Index.from_texts(chunks).search(queries, K)
    want = ReferenceBM25(chunks).search(queries, K)
    equal = int((got.ids == want.ids).all(axis=1).sum())
    np.testing.assert_allclose(got.scores, want.scores, rtol=1e-5)
    RESULTS.setdefault("reference (subset)", {})["equal"] = f"{equal}/{len(queries)}"
    assert equal == len(queries)


def bm25s_index(chunks: list[str]) -> Any:
    tokens = bm25s.tokenize(chunks, stopwords="en", show_progress=False)
    retriever = bm25s.BM25(k1=1.5, b=0.75, method="lucene", backend="numba")
    retriever.index(tokens, show_progress=False)
    return retriever


@pytest.fixture(scope="module")
def bm25s_model(data: dict[str, Any]) -> Any:
    seconds, retriever = median_seconds(lambda: bm25s_index(data["chunks"]))
    RESULTS.setdefault("bm25s (1 thread)", {})["mbps"] = data["mb"] / seconds
    return retriever


@pytest.fixture(scope="module")
def docqa_index(data: dict[str, Any]) -> BM25Index:
    BM25Index.from_texts(data["chunks"][:100]).search(data["queries"][:10], K)  # JIT warm-up
    for threads in (1, 2):
        seconds, index = median_seconds(
            lambda: BM25Index.from_texts(data["chunks"], n_threads=threads)  # noqa: B023
        )
        RESULTS.setdefault(f"docqa ({threads} thread)", {})["mbps"] = data["mb"] / seconds
    return index


@pytest.mark.parametrize("threads", [1, 2])
def test_bm25s(
    benchmark: Any, data: dict[str, Any], bm25s_model: Any, docqa_index: BM25Index, threads: int
) -> None:
    query_tokens = bm25s.tokenize(
        data["queries"], stopwords="en", return_ids=False, show_progress=False
    )

    def run() -> np.ndarray:
        docs, _ = bm25s_model.retrieve(
            query_tokens, k=K, n_threads=threads, show_progress=False, backend_selection="numba"
        )
        return np.asarray(docs)

    run()  # JIT warm-up
    ids = benchmark.pedantic(run, rounds=ROUNDS, iterations=1)
    assert ids.shape == (N_QUERIES, K)
    ours = docqa_index.search(data["queries"], K).ids
    same = int((np.sort(ids, 1) == np.sort(ours, 1)).all(1).sum())
    RESULTS.setdefault(f"bm25s ({threads} thread)", {}).update(
        qps=N_QUERIES / benchmark.stats.stats.median, equal=f"{same}/{N_QUERIES} as sets"
    )


def test_rank_bm25_on_subset(data: dict[str, Any]) -> None:
    chunks = data["chunks"][: len(data["chunks"]) // 10]
    mb = sum(len(c.encode()) for c in chunks) / 1e6
    seconds, model = median_seconds(
        lambda: rank_bm25.BM25Okapi([c.lower().split() for c in chunks]), 1
    )
    queries = [q.lower().split() for q in data["queries"][:100]]
    query_seconds, scores = median_seconds(lambda: [model.get_scores(q) for q in queries], 1)
    assert len(scores) == len(queries) and scores[0].shape == (len(chunks),)
    RESULTS["rank_bm25 (10% subset)"] = {"mbps": mb / seconds, "qps": len(queries) / query_seconds}


@pytest.mark.parametrize("threads", [1, 2])
def test_docqa(benchmark: Any, data: dict[str, Any], docqa_index: BM25Index, threads: int) -> None:
    result = benchmark.pedantic(
        lambda: docqa_index.search(data["queries"], K, n_threads=threads),
        rounds=ROUNDS,
        iterations=1,
    )
    one_thread = docqa_index.search(data["queries"], K, n_threads=1)
    np.testing.assert_array_equal(result.ids, one_thread.ids)
    np.testing.assert_array_equal(result.scores, one_thread.scores)
    RESULTS.setdefault(f"docqa ({threads} thread)", {})["qps"] = (
        N_QUERIES / benchmark.stats.stats.median
    )


@pytest.mark.parametrize("threads", [1, 2])
def test_paired_retrieval(
    data: dict[str, Any], bm25s_model: Any, docqa_index: BM25Index, threads: int
) -> None:
    query_tokens = bm25s.tokenize(
        data["queries"], stopwords="en", return_ids=False, show_progress=False
    )
    expected = docqa_index.search(data["queries"], K, n_threads=1)

    def theirs() -> None:
        bm25s_model.retrieve(
            query_tokens, k=K, n_threads=threads, show_progress=False, backend_selection="numba"
        )

    def ours() -> None:
        got = docqa_index.search(data["queries"], K, n_threads=threads)
        assert np.array_equal(got.ids, expected.ids)

    theirs()  # warm-up
    PAIRED[f"retrieval, {threads} thread"] = paired_ratios(theirs, ours, PAIRED_ROUNDS)


@pytest.mark.parametrize("threads", [1, 2])
def test_paired_indexing(data: dict[str, Any], docqa_index: BM25Index, threads: int) -> None:
    def ours() -> None:
        index = BM25Index.from_texts(data["chunks"], n_threads=threads)
        assert np.array_equal(index.indptr, docqa_index.indptr)

    PAIRED[f"indexing, docqa {threads} thread"] = paired_ratios(
        lambda: bm25s_index(data["chunks"]), ours, 5
    )


@pytest.fixture(scope="module")
def service() -> dict[str, Any]:
    """The pydocs chunks repeated to at least SERVICE_ROWS rows, and its questions."""
    from docqa.text import chunk_document, embed_text, load_paths

    if not (PYDOCS / "corpus").is_dir():
        pytest.skip(f"no pydocs evaluation set at {PYDOCS} (set DOCQA_PYDOCS)")
    docs, _ = load_paths([PYDOCS / "corpus"])
    base = [embed_text(c, headings=True) for d in docs for c in chunk_document(d)]
    chunks = base * -(-SERVICE_ROWS // len(base))
    lines = (PYDOCS / "questions.jsonl").read_text().splitlines()
    return {"chunks": chunks, "questions": [json.loads(line)["question"] for line in lines]}


def tantivy_index(chunks: list[str]) -> Any:
    tantivy = pytest.importorskip("tantivy")
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("body", stored=False)
    index = tantivy.Index(builder.build())
    writer = index.writer(heap_size=200_000_000, num_threads=1)
    for text in chunks:
        writer.add_document(tantivy.Document(body=text))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return index


@pytest.mark.parametrize("threads", [1, 2])
def test_single_question_vs_tantivy(service: dict[str, Any], threads: int) -> None:
    chunks, questions = service["chunks"], service["questions"]
    ours = BM25Index.from_texts(chunks)
    theirs = tantivy_index(chunks)
    searcher = theirs.searcher()
    words = [" ".join(re.findall(r"[A-Za-z0-9]+", q)) for q in questions]  # query syntax safe
    batch = ours.search(questions, K, n_threads=threads)
    times: dict[str, list[float]] = {"docqa": [], "tantivy": []}
    for rnd in range(5):
        for i, question in enumerate(questions):
            steps = [("docqa", i), ("tantivy", i)]
            for name, j in steps if (rnd + i) % 2 else steps[::-1]:
                start = time.perf_counter()
                if name == "docqa":
                    got = ours.search([question], K, n_threads=threads)
                else:
                    searcher.search(theirs.parse_query(words[j], ["body"]), K, count=False)
                times[name].append(time.perf_counter() - start)
                if name == "docqa":
                    assert np.array_equal(got.ids[0], batch.ids[i])
    p = {name: np.percentile(np.array(t) * 1e3, [50, 99]) for name, t in times.items()}
    LATENCY.append(
        f"one question, {len(chunks)} pydocs rows x {len(questions)} questions x 5 rounds, "
        f"docqa {threads} thread(s): docqa p50 {p['docqa'][0]:.2f} ms p99 {p['docqa'][1]:.2f} ms; "
        f"tantivy p50 {p['tantivy'][0]:.2f} ms p99 {p['tantivy'][1]:.2f} ms; tantivy/docqa "
        f"p50 {p['tantivy'][0] / p['docqa'][0]:.2f}x p99 {p['tantivy'][1] / p['docqa'][1]:.2f}x"
    )


def random_words(rows: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """Chunks of 100 words drawn uniformly from 30k random letter strings, and 1,000 queries."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    vocab = ["".join(rng.choice(letters, int(rng.integers(3, 10)))) for _ in range(30_000)]
    pick = np.array(vocab)
    chunks = [" ".join(pick[rng.integers(0, len(vocab), 100)]) for _ in range(rows)]
    queries = [
        " ".join(pick[rng.integers(0, len(vocab), int(rng.integers(3, 7)))])
        for _ in range(N_QUERIES)
    ]
    return chunks, queries


def small_vocabulary(rows: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """Chunks of 100 words drawn from 3,000 random letter strings by a Zipf law (the r-th most
    frequent word with probability proportional to 1/r), and 1,000 queries of 3-6 words drawn
    the same way: long postings, as on code-like or templated text."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    pick = np.array(["".join(rng.choice(letters, int(rng.integers(3, 10)))) for _ in range(3_000)])
    p = 1.0 / np.arange(1, pick.size + 1)
    p /= p.sum()
    chunks = [" ".join(words) for words in pick[rng.choice(pick.size, (rows, 100), p=p)]]
    queries = [" ".join(pick[rng.choice(pick.size, int(rng.integers(3, 7)), p=p)])
               for _ in range(N_QUERIES)]  # fmt: skip
    return chunks, queries


BATCHES = {"random words 40k": random_words, "small vocabulary 40k": small_vocabulary}


@pytest.mark.parametrize("kind", ["english", *BATCHES])
def test_batch_tokenising_included(data: dict[str, Any], kind: str) -> None:
    chunks, queries = (
        (data["chunks"], data["queries"]) if kind == "english" else BATCHES[kind](40_000)
    )
    if kind != "english":  # (test_docqa_equals_reference_on_subset checks the English chunks)
        subset = chunks[:REFERENCE_ROWS]
        got = BM25Index.from_texts(subset).search(queries[:100], K)
        assert np.array_equal(got.ids, ReferenceBM25(subset).search(queries[:100], K).ids)
    ours = BM25Index.from_texts(chunks)
    theirs = bm25s_index(chunks)
    want = ours.search(queries, K, n_threads=1)

    def run_theirs() -> None:
        tokens = bm25s.tokenize(queries, stopwords="en", return_ids=False, show_progress=False)
        theirs.retrieve(tokens, k=K, n_threads=1, show_progress=False, backend_selection="numba")

    def run_ours() -> None:
        assert np.array_equal(ours.search(queries, K, n_threads=1).ids, want.ids)

    run_theirs()  # JIT warm-up
    PAIRED[f"batch of {N_QUERIES} with tokenizing, {kind}, 1 thread"] = paired_ratios(
        run_theirs, run_ours, PAIRED_ROUNDS
    )
