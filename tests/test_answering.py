"""The answer path: refusal without a model call, citations checked, streaming, cost."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from docqa.answering import answer, answer_stream
from docqa.errors import InputError, ModelStreamBroken
from docqa.models import ExtractiveModel, FakeModel
from docqa.pricing import Price
from docqa.prompt import REFUSAL, read_prompt
from docqa.support import cited_ids, not_retrieved
from docqa.text.tokenize import tokenize
from docqa.types import Answer, Chunk, Hit, Prompt, Usage

DOCS = {
    "loans#periods": ("Borrowing", "Books may be borrowed for 21 days. DVDs for 7 days."),
    "loans#renewing": ("Renewing", "You can renew a loan twice. Renew online or at the desk."),
    "hours#desk": ("Opening hours", "The desk opens at 9 on weekdays."),
}


def chunk(chunk_id: str, heading: str, text: str) -> Chunk:
    return Chunk(
        id=chunk_id,
        section=chunk_id,
        heading_path=(heading,),
        source=chunk_id.split("#")[0] + ".md",
        position=0,
        start_line=1,
        end_line=1,
        text=text,
        content_hash=hashlib.sha256(text.encode()).hexdigest(),
    )


class KeywordRetriever:
    """Chunks sharing a content word with the question, most shared first (the guard: none)."""

    def __init__(self, docs: dict[str, tuple[str, str]]) -> None:
        self.chunks = [chunk(i, h, t) for i, (h, t) in docs.items()]
        self.calls = 0

    def search(self, question: str, k: int, *, mask: np.ndarray | None = None) -> list[Hit]:
        self.calls += 1
        wanted = set(tokenize(question, stop_words=True, fold_plurals=True))
        scored = []
        for row, c in enumerate(self.chunks):
            shared = len(wanted & set(tokenize(c.text, stop_words=True, fold_plurals=True)))
            if shared:
                scored.append((-shared, row, c))
        scored.sort(key=lambda item: (item[0], item[1]))
        return [Hit(row, c.id, c.section, float(-s), chunk=c) for s, row, c in scored[:k]]


@pytest.fixture
def retriever() -> KeywordRetriever:
    return KeywordRetriever(DOCS)


def test_no_hits_refuses_without_calling_the_model(retriever: KeywordRetriever) -> None:
    model = FakeModel(["must not be used"])
    result = answer("What colour is the sky?", retriever, model)
    assert model.prompts == []
    assert result == Answer("What colour is the sky?", REFUSAL, (), (), (), refused=True)
    assert retriever.calls == 1


def test_answer_carries_hits_citations_and_reported_usage(retriever: KeywordRetriever) -> None:
    reply = "Books: 21 days [loans#periods]. Renew twice [loans#renewing, web#faq]."
    model = FakeModel([reply], usage=Usage(120, 30))
    question = "How many days can books be borrowed, and can I renew a loan?"
    result = answer(question, retriever, model, k=2)
    assert result.text == reply
    assert [h.id for h in result.hits] == ["loans#periods", "loans#renewing"]
    assert result.cited_ids == ("loans#periods", "loans#renewing", "web#faq")
    assert result.not_retrieved == ("web#faq",)
    assert result.refused is False
    assert result.usage == Usage(120, 30)
    assert result.cost is None  # no price configured for "fake"
    passages, read_question = read_prompt(model.prompts[0])
    assert [p.id for p in passages] == ["loans#periods", "loans#renewing"]
    assert read_question == question


def test_cost_only_when_the_models_price_is_configured(retriever: KeywordRetriever) -> None:
    prices = {"fake": Price(input=3.0, output=15.0)}
    model = FakeModel(["21 days [loans#periods]."], usage=Usage(1_000_000, 2_000_000))
    result = answer("books borrowed?", retriever, model, prices=prices)
    assert result.cost == pytest.approx(3.0 + 30.0)
    other = FakeModel(["x"], name="unpriced")
    assert answer("books borrowed?", retriever, other, prices=prices).cost is None


def test_usage_is_estimated_when_the_model_reports_none(retriever: KeywordRetriever) -> None:
    model = FakeModel(["12345678"])
    result = answer("books borrowed?", retriever, model)
    prompt = model.prompts[0]
    assert result.usage is not None and result.usage.estimated
    assert result.usage.output_tokens == 2
    expected_in = -(-len(prompt.system) // 4) + -(-len(prompt.user) // 4)
    assert result.usage.input_tokens == expected_in


def test_stream_yields_pieces_then_the_answer(retriever: KeywordRetriever) -> None:
    model = FakeModel(["Renew twice [loans#renewing]."], piece_size=5)
    items = list(answer_stream("renew a loan?", retriever, model))
    pieces, final = [p for p in items[:-1] if isinstance(p, str)], items[-1]
    assert len(pieces) == len(items) - 1 == 6
    assert isinstance(final, Answer)
    assert "".join(pieces) == final.text == "Renew twice [loans#renewing]."


def test_refusal_stream_is_one_piece_then_the_refused_answer(retriever: KeywordRetriever) -> None:
    items = list(answer_stream("zebra?", retriever, FakeModel([])))
    assert items[0] == REFUSAL
    assert isinstance(items[1], Answer) and items[1].refused and len(items) == 2


def test_a_model_replying_the_refusal_sentence_is_a_refusal(retriever: KeywordRetriever) -> None:
    result = answer("books borrowed?", retriever, FakeModel([f" {REFUSAL}\n"]))
    assert result.refused and result.hits


def test_a_broken_stream_never_becomes_an_answer(retriever: KeywordRetriever) -> None:
    class Breaks:
        name = "breaks"

        def stream(self, prompt: Prompt) -> Iterator[str]:
            yield "Books may be "
            raise ModelStreamBroken("stand-in: the stream broke")

    seen: list[object] = []
    with pytest.raises(ModelStreamBroken):
        for item in answer_stream("books borrowed?", retriever, Breaks()):
            seen.append(item)  # noqa: PERF402 (collects until the stream breaks)
    assert seen == ["Books may be "]
    assert not any(isinstance(item, Answer) for item in seen)


def test_k_below_one_is_an_input_error(retriever: KeywordRetriever) -> None:
    with pytest.raises(InputError, match="k must be"):
        answer("books?", retriever, FakeModel([]), k=0)


def test_extractive_model_answers_offline_with_a_retrieved_citation(
    retriever: KeywordRetriever,
) -> None:
    result = answer("Can I renew at the desk?", retriever, ExtractiveModel())
    # each run opens with its section's heading, which it does not say itself
    assert result.text == (
        "Renewing: You can renew a loan twice. Renew online or at the desk. [loans#renewing] "
        "Opening hours: The desk opens at 9 on weekdays. [hours#desk]"
    )
    assert result.cited_ids == ("loans#renewing", "hours#desk")
    assert result.not_retrieved == ()


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        ("A [a#b].", ("a#b",)),
        ("A [a#b, c#d] and [ e#f ,a#b ].", ("a#b", "c#d", "e#f")),
        ("A [a#b][c#d].", ("a#b", "c#d")),
        ("No citations here.", ()),
        ("A [link](http://x) and [] and [ , ].", ()),
        ("Nested [[a#b]] is still read.", ("a#b",)),
    ],
)
def test_cited_ids(text: str, ids: tuple[str, ...]) -> None:
    assert cited_ids(text) == ids


_part = st.text(st.sampled_from("abc0"), min_size=1, max_size=3)
ids = st.builds(
    lambda path, slugs, page: f"{path}#{'-'.join(slugs)}{page}",
    st.lists(_part, min_size=1, max_size=2).map("/".join),
    st.lists(_part, min_size=1, max_size=2),
    st.sampled_from(["", "-p2"]),
)


@given(st.lists(st.lists(ids, min_size=1, max_size=3), max_size=4), st.sets(ids, max_size=3))
def test_citations_round_trip(groups: list[list[str]], retrieved: set[str]) -> None:
    text = " ".join("Fact [" + ", ".join(g) + "]." for g in groups)
    expected = tuple(dict.fromkeys(i for g in groups for i in g))
    assert cited_ids(text) == expected
    hits = [Hit(n, i, i, 1.0) for n, i in enumerate(sorted(retrieved))]
    assert not_retrieved(expected, hits) == tuple(i for i in expected if i not in retrieved)


class Ranked:
    """The same ranked hits for any question, cut at ``k``; records each ``k`` asked for."""

    def __init__(self, chunks: list[Chunk]) -> None:
        self.hits = [
            Hit(row, c.id, c.section, 1.0 - row / 10, chunk=c) for row, c in enumerate(chunks)
        ]
        self.asked: list[int] = []

    def search(self, question: str, k: int, *, mask: np.ndarray | None = None) -> list[Hit]:
        self.asked.append(k)
        return self.hits[:k]


def test_release_notes_give_way_to_the_documentation_unless_asked_about() -> None:
    # BIND's changelog ("Changelog > Changes prior to 9.18.29") ranked above the reference
    ranked = Ranked(
        [
            chunk("changelog#prior", "Changelog", "It is now possible to flush a name."),
            chunk("rndc#flush", "rndc", "flush: This command flushes the server's cache."),
            chunk("news#v2", "Version 2.0", "The cache is now flushed at start."),
            chunk("rndc#flushname", "rndc", "flushname: This command flushes one name."),
            chunk("options#cache", "Options", "max-cache-size sets the cache's size."),
        ]
    )
    model = FakeModel(["[rndc#flush]", "[changelog#prior]"])
    result = answer("How do I flush the cache?", ranked, model, k=2)
    # a release note among the best k: twice k asked for, the documentation first
    assert ranked.asked == [2, 4]
    assert [h.id for h in result.hits] == ["rndc#flush", "rndc#flushname"]
    # a question about releases reads the ranking as it is
    result = answer("What changed in version 2.0 about the cache?", ranked, model, k=2)
    assert ranked.asked == [2, 4, 2]
    assert [h.id for h in result.hits] == ["changelog#prior", "rndc#flush"]
    # release notes alone are still read, after the documentation found
    few = Ranked([chunk("news#v3", "News", "Flushing got faster."), chunk("a#b", "A", "Flush it.")])
    result = answer("How do I flush?", few, FakeModel(["[a#b]"]), k=2)
    assert [h.id for h in result.hits] == ["a#b", "news#v3"]
    assert few.asked == [2, 4]
    # no release note among the best k: the ranking as it is, one search
    docs = Ranked([chunk("rndc#flush", "rndc", "flush: Flushes."), chunk("news#v4", "News", "x")])
    result = answer("How do I flush?", docs, FakeModel(["[rndc#flush]"]), k=1)
    assert docs.asked == [1] and [h.id for h in result.hits] == ["rndc#flush"]
