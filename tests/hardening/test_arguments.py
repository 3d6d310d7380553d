"""Class 6 and 7: every public entry point checks k, the question and the mode through
``docqa._checks``, and a question's work is bounded (a length limit, linear work below it)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import assert_one_line_error, docqa
from hypothesis import given
from hypothesis import strategies as st

from docqa import (
    Collection,
    DenseRetriever,
    ExtractiveModel,
    HashingEmbedder,
    HybridRetriever,
    KeywordRetriever,
    answer,
    answer_stream,
    build_index,
    build_prompt,
    topk,
)
from docqa._checks import MAX_QUESTION_CHARS
from docqa.errors import InputError, InputTypeError
from docqa.retrieve import evidence

QUESTION = "How long can I keep a book?"
TOO_LONG = "book " * (MAX_QUESTION_CHARS // 5 + 1)


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("args")
    (root / "docs").mkdir()
    (root / "docs" / "loans.md").write_text(
        "# Loans\n\n## Loan periods\n\nBooks go out for three weeks. DVDs for one week.\n"
    )
    build_index([root / "docs"], root / "ix")
    return Collection.open(root / "ix")


def entry_points(c: Any) -> dict[str, Callable[..., object]]:
    """Each public entry point that takes a question and k, as ``f(question, k, mode)``."""
    chunks, bm25 = c.chunks, c.bm25
    dense = DenseRetriever(c.embedder, np.asarray(c.index.vectors), chunks)
    keyword = KeywordRetriever(bm25, chunks)
    return {
        "answer": lambda q, k, m: answer(q, c.retriever(m), ExtractiveModel(), k),
        "answer_stream": lambda q, k, m: list(
            answer_stream(q, c.retriever(m), ExtractiveModel(), k)
        ),
        "Collection.retriever.search": lambda q, k, m: c.retriever(m).search(q, k),
        "Collection.retriever(guard=False).search": lambda q, k, m: c.retriever(
            m, guard=False
        ).search(q, k),
        "Collection.search_batch": lambda q, k, m: c.search_batch([q], k, mode=m),
        "DenseRetriever.search": lambda q, k, m: dense.search(q, k),
        "KeywordRetriever.search": lambda q, k, m: keyword.search(q, k),
        "HybridRetriever.search": lambda q, k, m: HybridRetriever(dense, keyword).search(q, k),
        "BM25Index.search": lambda q, k, m: bm25.search([q], k),
        "topk": lambda q, k, m: topk(
            np.asarray(c.index.vectors), HashingEmbedder().embed([q], query=True), k
        ),
    }


NAMES = [
    "answer",
    "answer_stream",
    "Collection.retriever.search",
    "Collection.retriever(guard=False).search",
    "Collection.search_batch",
    "DenseRetriever.search",
    "KeywordRetriever.search",
    "HybridRetriever.search",
    "BM25Index.search",
    "topk",
]
BAD_K: list[tuple[object, type[Exception]]] = [
    (1e30, InputTypeError),
    ("3", InputTypeError),
    (3.0, InputTypeError),
    (True, InputTypeError),
    (None, InputTypeError),
    ([3], InputTypeError),
    (float("nan"), InputTypeError),
    (-1, InputError),
]
BAD_QUESTIONS: list[tuple[object, type[Exception], str]] = [
    (None, InputTypeError, "must be a str, got NoneType"),
    (3, InputTypeError, "must be a str, got int"),
    (b"book", InputTypeError, "must be a str, got bytes"),
    (TOO_LONG, InputError, f"more than the limit of {MAX_QUESTION_CHARS:,}"),
]
QUESTION_TAKERS = [n for n in NAMES if n != "topk"]  # topk takes vectors, not a question
MODE_TAKERS = [n for n in NAMES if n.startswith(("answer", "Collection"))]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(("k", "error"), BAD_K)
def test_a_bad_k_is_an_input_error_everywhere(
    collection: Any, name: str, k: object, error: type[Exception]
) -> None:
    with pytest.raises(error, match="k must be an int"):
        entry_points(collection)[name](QUESTION, k, "hybrid")


@pytest.mark.parametrize("name", NAMES)
def test_a_huge_whole_k_means_every_row(collection: Any, name: str) -> None:
    entry_points(collection)[name](QUESTION, 10**30, "hybrid")


@pytest.mark.parametrize("name", QUESTION_TAKERS)
@pytest.mark.parametrize(("question", "error", "says"), BAD_QUESTIONS)
def test_a_bad_question_is_an_input_error_everywhere(
    collection: Any, name: str, question: object, error: type[Exception], says: str
) -> None:
    with pytest.raises(error, match=says):
        entry_points(collection)[name](question, 3, "hybrid")


@pytest.mark.parametrize("name", MODE_TAKERS)
@pytest.mark.parametrize("mode", ["fuzzy", None, 3, ["dense"], "Dense"])
def test_a_bad_mode_is_an_input_error_everywhere(collection: Any, name: str, mode: object) -> None:
    with pytest.raises(InputError, match="unknown mode .*; choose one of dense, keyword, hybrid"):
        entry_points(collection)[name](QUESTION, 3, mode)


def test_answer_needs_at_least_one_passage(collection: Any) -> None:
    with pytest.raises(InputError, match="k must be an int >= 1, got 0"):
        answer(QUESTION, collection.retriever(), ExtractiveModel(), 0)


def test_build_prompt_checks_its_question_and_budget(collection: Any) -> None:
    hits = collection.retriever(guard=False).search(QUESTION, 1)
    with pytest.raises(InputTypeError, match="question must be a str"):
        build_prompt(None, hits)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="more than the limit"):
        build_prompt(TOO_LONG, hits)
    with pytest.raises(InputTypeError, match="budget_tokens must be an int"):
        build_prompt(QUESTION, hits, budget_tokens="16000")  # type: ignore[arg-type]


def test_a_question_at_the_limit_is_taken(collection: Any) -> None:
    at_limit = ("book " * MAX_QUESTION_CHARS)[:MAX_QUESTION_CHARS]
    assert collection.retriever(guard=False).search(at_limit, 3)
    assert collection.search_batch([at_limit], 3)


class CountingSlices(str):
    """A str that counts the characters its slices copy."""

    copied = 0

    def __getitem__(self, key: Any) -> str:
        part = str.__getitem__(self, key)
        if isinstance(key, slice):
            CountingSlices.copied += len(part)
        return part


def test_named_words_reads_the_question_a_bounded_number_of_times() -> None:
    text = "See Django docs. Then the os.walk call; " * 2_500  # 100 KB, 22,500 words
    CountingSlices.copied = 0
    found = evidence.named_words(CountingSlices(text))
    assert found == evidence.named_words_reference(text[:4000]) * 25  # 4 KB is 100 sentences
    assert CountingSlices.copied <= 2 * len(text)  # the slow twin copies ~10**9 characters


def test_named_words_of_100_kb_takes_well_under_a_second() -> None:
    text = "Parking Oak room members with Library free Eastbank " * 2_000
    start = time.perf_counter()
    evidence.named_words(text)
    assert time.perf_counter() - start < 5  # 18 s before it was linear; ~0.03 s now


alphabet = st.sampled_from(list("aZ._-'’ \n\t.!?:;\"(“é1Ωx") + ["os.walk", "Django", "e.g"])


@given(st.lists(alphabet, max_size=40).map("".join))
def test_named_words_equals_its_slow_twin(text: str) -> None:
    assert evidence.named_words(text) == evidence.named_words_reference(text)


def test_cli_refuses_a_100_kb_question_at_once(tmp_path: Path) -> None:
    question = "book " * 20_000
    for command in ("search", "ask"):
        start = time.perf_counter()
        result = docqa(command, question, "--index", str(tmp_path / "none"), cwd=tmp_path)
        line = assert_one_line_error(result)
        assert "100,000 characters, more than the limit of 10,000; shorten it" in line
        assert time.perf_counter() - start < 30  # over 60 s before; ~0.1 s now


def test_serve_refuses_a_limit_above_the_library_s(tmp_path: Path) -> None:
    result = docqa("serve", "--index", str(tmp_path), "--max-question", "10001", cwd=tmp_path)
    assert "must be at most 10000" in assert_one_line_error(result)
