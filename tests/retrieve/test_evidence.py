"""The guard's evidence: IDF coverage (fast path against its slow twin), names, unknown terms."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from docqa.keyword import BM25Index
from docqa.retrieve import evidence
from docqa.types import Chunk, Hit

WORDS = ["loan", "books", "fines", "pg_dump", "archive", "renew", "desk", "hours", "zebra", "ß"]
DOCS = [
    "Books may be borrowed for three weeks; renew at the desk.",
    "Fines for books: ten cents a day.",
    "pg_dump writes an archive; pg_dump -Fc compresses it.",
    "Opening hours of the desk.",
]


def chunk(i: int, text: str) -> Chunk:
    digest = hashlib.sha256(text.encode()).hexdigest()
    return Chunk(f"d#s{i}", f"d#s{i}", ("Doc", f"S{i}"), "d.md", i, 1, 1, text, digest)


CHUNKS = [chunk(i, t) for i, t in enumerate(DOCS)]
BM25 = BM25Index.from_texts([f"Doc > S{i}\n\n{t}" for i, t in enumerate(DOCS)])
HITS = [Hit(i, c.id, c.section, 1.0, chunk=c) for i, c in enumerate(CHUNKS)]


@given(st.lists(st.sampled_from(WORDS + ["the", "of"]), max_size=8),
       st.lists(st.integers(0, 3), max_size=4))  # fmt: skip
def test_coverages_match_the_slow_twin(words: list[str], rows: list[int]) -> None:
    question = " ".join(words)
    hits = [HITS[r] for r in rows]
    fast = evidence.coverages(BM25, evidence.question_terms(BM25, question), hits)
    slow = evidence.coverages_reference(BM25, question, hits)
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=0)
    assert ((fast >= 0) & (fast <= 1 + 1e-12)).all()


NAMES = ["pg_dump", "Fines", "Nowhere", "pg_dump -Fc", "books desk", "the", "ß", "loan zebra"]


@given(st.lists(st.sampled_from(NAMES), max_size=5), st.lists(st.integers(0, 3), max_size=5))
def test_name_holders_match_the_slow_twin(words: list[str], rows: list[int]) -> None:
    hits = [HITS[r] for r in rows]  # repeats allowed: the same passage twice
    fast = evidence.name_holders(BM25, words, hits)
    assert fast.dtype == np.bool_ and fast.shape == (len(words), len(hits))
    np.testing.assert_array_equal(fast, evidence.name_holders_reference(BM25, words, hits))
    shared = evidence.Passages.of(BM25, hits)  # one hashing, asked twice: same answers
    np.testing.assert_array_equal(evidence.name_holders(BM25, words, hits, shared), fast)


def test_passages_hold() -> None:
    passages = evidence.Passages.of(BM25, [HITS[2], HITS[3]])
    wanted = evidence.question_terms(BM25, "desk pg_dump zebra").hashes[::-1].copy()
    held = passages.holds(wanted)  # any order of wanted, one column each
    column = {int(h): col for col, h in enumerate(wanted)}
    expected = {"desk": [False, True], "pg_dump": [True, False], "zebra": [False, False]}
    for word, expect in expected.items():
        for h in evidence.question_terms(BM25, word).hashes.tolist():
            assert held[:, column[h]].tolist() == expect
    assert passages.holds(np.array([], dtype=np.uint64)).shape == (2, 0)
    assert evidence.Passages.of(BM25, []).holds(wanted).shape == (0, wanted.size)


def test_unknown_terms_weigh_the_most() -> None:
    terms = evidence.question_terms(BM25, "books zebra")
    df = evidence.document_frequencies(BM25, terms.hashes)
    assert sorted(df.tolist()) == [0, 2]
    assert terms.weights[df == 0][0] > terms.weights[df == 2][0]
    [cover] = evidence.coverages(BM25, terms, [HITS[0]])
    assert 0 < cover < 0.5  # books is held, the heavier zebra is not


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("How do I read an .xlsx file into a pandas DataFrame?", ["DataFrame"]),
        ("In Django, what's the difference?", ["Django"]),
        ("Use Python's os.walk and SO_REUSEADDR", ["Python", "os.walk", "SO_REUSEADDR"]),
        ("Profile with cProfile, e.g. on a PC.", ["cProfile", "PC"]),
        ("What time is it? Tomorrow I go.", []),
        ('I\'m told: "Hello" is a greeting', []),
        ("", []),
    ],
)
def test_named_words(question: str, names: list[str]) -> None:
    assert evidence.named_words(question) == names


def test_name_holders_and_unknown_terms() -> None:
    held = evidence.name_holders(BM25, ["pg_dump", "Fines", "Nowhere"], HITS[:3])
    assert held.tolist() == [[False, False, True], [False, True, False], [False, False, False]]
    assert evidence.name_holders(BM25, [], HITS).shape == (0, 4)
    assert evidence.unknown_terms(BM25, ["pg_dump", "Nowhere", "desk"]) == ("Nowhere",)
