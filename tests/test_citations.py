"""Citations that are citations: only docqa-shaped ids in brackets count, on real technical text.

The extractive model quotes one sentence of the passages and cites its passage; on the sample
library, the Python docs (``pydocs``) and the Node.js API docs it must never report an id that
was not retrieved, because brackets in the quoted text (syntax synopses, arrays, ``[ RECORD 1 ]``)
are text. Made-up but well-formed ids must still be caught.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docqa.answering import answer
from docqa.keyword import BM25Index
from docqa.models import ExtractiveModel, FakeModel
from docqa.models.extractive import MAX_UNITS
from docqa.retrieve import KeywordRetriever
from docqa.support import cited_ids, is_docqa_id, without_citations
from docqa.text import embed_text, load_chunks

ROOT = Path(__file__).resolve().parent.parent
PYDOCS = ROOT.parent / "shared" / "evalsets" / "pydocs"  # shared/ lies beside the checkout
NODE_DOCS = Path("/usr/share/doc/nodejs/api")

SYNOPSES = [
    "backup [connection-option...] [option...] [filename]",
    "path.basename(path[, suffix])",
    "-[ RECORD 1 ]-+------",
    "x = [1, 2, 3]; y = a[i, j]; z = d['key#1']",
    "The regex [a-z#] matches; so does [#fragment] and [C#].",
    "See [the guide](guide.md#install) and [`util.inspect()`][].",
]


@pytest.mark.parametrize("text", SYNOPSES)
def test_brackets_that_are_text_are_not_citations(text: str) -> None:
    assert cited_ids(text) == ()


@pytest.mark.parametrize(
    "item",
    ["loans#loan-periods", "guide/loans#loan-periods-p2", "library/sqlite3#cursor-objects",
     "child_process#child-process-exec-command", "my notes/übung#einführung"],
)  # fmt: skip
def test_docqa_shaped_ids(item: str) -> None:
    assert is_docqa_id(item)
    assert cited_ids(f"Quoted [option...] text [{item}].") == (item,)


def test_without_citations_keeps_the_answers_own_words() -> None:
    text = "Cancels a timeout [timers#cleartimeout-timeout]. See [a#b](https://x.org/a) and [option...] [c#d, e#f-p2]."
    assert without_citations(text) == "Cancels a timeout . See  and [option...] ."
    assert without_citations("No citations [a-z#] here.") == "No citations [a-z#] here."


@pytest.mark.parametrize("item", ["#slug", "path#", "path#-x", "a#b_c", "a b#c d", "path#sl ug"])
def test_not_docqa_shaped(item: str) -> None:
    assert not is_docqa_id(item)


@given(st.text(st.characters(blacklist_characters="#"), max_size=40))
def test_brackets_without_a_hash_are_never_citations(inside: str) -> None:
    assert cited_ids(f"text [{inside}] more") == ()


def _corpora() -> list[tuple[str, list[Path], Path]]:
    found = [("library", [ROOT / "examples" / "library"], ROOT / "examples" / "questions.jsonl")]
    if PYDOCS.is_dir():
        found.append(("pydocs", [PYDOCS / "corpus"], PYDOCS / "questions.jsonl"))
    pages = ROOT / "benchmarks" / "data" / "nodejs" / "pages.txt"
    if NODE_DOCS.is_dir():
        docs = [NODE_DOCS / f"{p}.md" for p in pages.read_text().split()]
        found.append(("nodejs", docs, pages.parent / "questions.jsonl"))
    return found


@pytest.fixture(scope="module", params=_corpora(), ids=lambda c: c[0])
def corpus(request: pytest.FixtureRequest) -> tuple[KeywordRetriever, list[str]]:
    """A keyword retriever over the corpus, and questions: the labelled ones, then every
    heading of a passage holding brackets (the passages quoted then hold the most)."""
    _, docs, questions = request.param
    chunks, _ = load_chunks(docs)
    bm25 = BM25Index.from_texts([embed_text(c) for c in chunks])
    lines = questions.read_text(encoding="utf-8").splitlines()
    asked = [json.loads(line).get("question") or json.loads(line)["q"] for line in lines if line]
    headings = sorted({c.heading_path[-1] for c in chunks if "[" in c.text and c.heading_path})
    asked += headings[:: max(1, len(headings) // 150)]
    return KeywordRetriever(bm25, chunks), asked


def test_extractive_answers_on_real_text_raise_no_false_flags(
    corpus: tuple[KeywordRetriever, list[str]],
) -> None:
    retriever, questions = corpus
    model = ExtractiveModel()
    quoted_brackets = 0
    for question in questions:
        a = answer(question, retriever, model, k=3)
        assert a.not_retrieved == (), (question, a.text)
        assert a.refused or 1 <= len(a.cited_ids) <= MAX_UNITS
        quoted_brackets += a.text.count("[") - len(a.cited_ids)
    bracketed = any("[" in c.text for c in retriever.chunks)
    assert quoted_brackets > 0 or not bracketed  # where the text has brackets, some were quoted


def test_made_up_ids_are_still_caught(corpus: tuple[KeywordRetriever, list[str]]) -> None:
    retriever, questions = corpus
    hits = retriever.search(questions[0], 3)
    real = hits[0].id
    replies = [
        f"Quoted backup [option...] [filename] text [{real}].",
        f"Made up [{real}, made/up#not-a-section].",
        "Made up [library/nowhere#gone-p9] and arrays [1, 2].",
    ]
    model = FakeModel(list(replies))
    results = [answer(questions[0], retriever, model, k=3) for _ in replies]
    assert [r.not_retrieved for r in results] == [
        (),
        ("made/up#not-a-section",),
        ("library/nowhere#gone-p9",),
    ]
