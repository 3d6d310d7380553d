"""Class 5 and 7, unbounded inputs: k clamped to the rows before allocating, k of the wrong
type refused, the prompt's token budget, and the rule for non-finite matrices."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from helpers import chunk
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from docqa.errors import InputError
from docqa.keyword import BM25Index
from docqa.prompt import CHARS_PER_TOKEN, CUT_NOTE, build_prompt, read_prompt
from docqa.search import topk
from docqa.search.reference import topk_reference
from docqa.types import Hit

MATRIX = np.random.default_rng(0).standard_normal((294, 16)).astype(np.float32)


@pytest.mark.parametrize("k", [295, 10**9, 10**30])
def test_a_huge_k_costs_what_k_equal_to_the_rows_costs(k: int) -> None:
    topk(MATRIX, MATRIX[:3], 294)  # compile outside the measured part
    tracemalloc.start()
    try:
        result = topk(MATRIX, MATRIX[:3], k)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.ids.shape == (3, 294) and peak < 1 << 20
    np.testing.assert_array_equal(result.ids, topk(MATRIX, MATRIX[:3], 294).ids)
    bm25 = BM25Index.from_texts([f"row {i} text" for i in range(294)])
    assert bm25.search(["row text"], k).ids.shape == (1, 294)


@pytest.mark.parametrize("k", ["3", 3.0, None, True, -1, [3]])
def test_k_of_the_wrong_type_or_sign_is_an_input_error(k: object) -> None:
    with pytest.raises(InputError, match="k must be"):
        topk(MATRIX, MATRIX[0], k)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="k must be"):
        BM25Index.from_texts(["a b"]).search(["a"], k)  # type: ignore[arg-type]


def test_numpy_integer_k_works() -> None:
    assert topk(MATRIX, MATRIX[0], np.int64(5)).ids.shape == (1, 5)


finite_or_not = st.floats(width=32, allow_nan=True, allow_infinity=True)


@given(
    matrix=arrays(np.float32, st.tuples(st.integers(1, 40), st.just(4)), elements=finite_or_not),
    k=st.integers(0, 50),
    block=st.integers(1, 8),
)
def test_non_finite_rows_follow_one_rule_in_every_path(
    matrix: np.ndarray, k: int, block: int
) -> None:
    query = np.ones(4, np.float32)
    want = topk_reference(matrix, query, k)
    for got in (topk(matrix, query, k), topk(matrix, query, k, block_rows=block)):
        np.testing.assert_array_equal(got.ids, want.ids)
        assert not np.isnan(got.scores).any()
    batch = topk(matrix, np.tile(query, (9, 1)), k)  # the sgemm-filter path
    np.testing.assert_array_equal(batch.ids, np.tile(want.ids, (9, 1)))


def hit(i: int, text: str) -> Hit:
    c = chunk(i, text)
    return Hit(row=i, id=c.id, section=c.section, score=1.0, chunk=c)


@given(
    sizes=st.lists(st.integers(0, 30_000), min_size=1, max_size=6),
    budget=st.integers(600, 6000),
)
def test_the_prompt_stays_within_its_budget(sizes: list[int], budget: int) -> None:
    hits = [hit(i, "w" * n) for i, n in enumerate(sizes)]
    prompt = build_prompt("How long?", hits, budget_tokens=budget)
    assert len(prompt.system) + len(prompt.user) <= budget * CHARS_PER_TOKEN
    passages, question = read_prompt(prompt)
    assert question == "How long?" and passages
    assert [p.id for p in passages] == [h.id for h in hits[: len(passages)]]
    for p, h in zip(passages, hits, strict=False):
        assert (
            p.text == h.chunk.text
            or (  # type: ignore[union-attr]
                p.text.endswith(CUT_NOTE) and h.chunk.text.startswith(p.text[: -len(CUT_NOTE)])  # type: ignore[union-attr]
            )
        )


def test_a_four_megabyte_line_becomes_a_bounded_prompt() -> None:
    prompt = build_prompt("What does it do?", [hit(0, "x" * (4 << 20))])
    assert len(prompt.user) < 70_000 and CUT_NOTE in prompt.user


def test_a_question_too_long_for_the_budget_is_refused() -> None:
    with pytest.raises(InputError, match="question is too long for the prompt budget"):
        build_prompt("q" * 10_000, [hit(0, "text")], budget_tokens=1000)


class FixedRetriever:
    def __init__(self, hits: list[Hit]) -> None:
        self.hits = hits

    def search(self, question: str, k: int, *, mask: object = None) -> list[Hit]:
        return self.hits[:k]


def test_a_citation_of_a_passage_left_out_by_the_budget_is_not_retrieved() -> None:
    from docqa.answering import answer
    from docqa.models import FakeModel

    hits = [hit(0, "w " * 40_000), hit(1, "short passage")]
    hits[1] = Hit(row=1, id="doc#other", section="doc#s", score=0.5, chunk=hits[1].chunk)
    model = FakeModel(["From the first [doc#p0] and the second [doc#other]."])
    result = answer("q", FixedRetriever(hits), model, k=2)
    assert "doc#other" not in model.prompts[0].user
    assert result.cited_ids == ("doc#p0", "doc#other") and result.not_retrieved == ("doc#other",)
