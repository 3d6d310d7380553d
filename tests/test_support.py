"""Citations say what was checked: retrieved or not, and whether each cited passage holds the
claim citing it."""

from __future__ import annotations

from docqa.support import cited_ids, claims, not_retrieved, summary
from docqa.types import Chunk, Hit


def hit(chunk_id: str, text: str) -> Hit:
    chunk = Chunk(chunk_id, chunk_id, (), "doc.md", 0, 1, 1, text, "0" * 64)
    return Hit(0, chunk_id, chunk_id, 1.0, chunk=chunk)


HITS = [
    hit("loans#periods", "DVDs are lent for 7 days. Board games are lent for 14 days."),
    hit("fines#overdue", "Overdue DVDs cost $1.00 a day, up to $10.00 an item."),
]


def test_a_claim_its_passage_holds_is_supported() -> None:
    found = claims("DVDs are lent for 7 days. [loans#periods]", HITS)
    assert [(c.text, c.supported_by, c.unsupported_by) for c in found] == [
        ("DVDs are lent for 7 days.", ("loans#periods",), ())
    ]
    assert found[0].supported


def test_a_claim_pinned_on_a_passage_that_does_not_say_it_is_not_supported() -> None:
    text = "Overdue DVDs cost $1.00 a day. [loans#periods] Games last 14 days. [loans#periods]"
    found = claims(text, HITS)
    assert [c.supported for c in found] == [False, True]
    assert found[0].unsupported_by == ("loans#periods",)
    assert summary(cited_ids(text), (), found) == "1 cited, all retrieved; 1 of 2 claims supported"


def test_an_id_that_was_not_retrieved_supports_nothing() -> None:
    text = "DVDs are lent for 7 days. [loans#periods, made/up#nowhere]"
    found = claims(text, HITS)
    assert found[0].supported_by == ("loans#periods",)
    assert found[0].unsupported_by == ("made/up#nowhere",)
    missing = not_retrieved(cited_ids(text), HITS)
    assert missing == ("made/up#nowhere",)
    assert summary(cited_ids(text), missing, found) == (
        "2 cited, 1 not retrieved (made/up#nowhere); 0 of 1 claim supported"
    )


def test_a_citation_inside_a_markdown_link_is_still_a_citation() -> None:
    text = "DVDs are lent for 7 days [bogus#z](https://example.invalid/x)."
    assert cited_ids(text) == ("bogus#z",)
    assert not_retrieved(cited_ids(text), HITS) == ("bogus#z",)
    # a link whose text is not an id stays text
    assert cited_ids("See [the guide](guide.md#install).") == ()


def test_citations_side_by_side_belong_to_one_claim_and_trailing_text_is_no_claim() -> None:
    text = "DVDs are lent for 7 days and cost $1.00 a day. [loans#periods] [fines#overdue] Bye."
    found = claims(text, HITS)
    assert len(found) == 1
    assert found[0].cited == ("loans#periods", "fines#overdue")


def test_no_citation_says_none() -> None:
    assert summary((), (), ()) == "none"
    assert claims("Nothing cited here.", HITS) == ()


def test_a_claim_after_a_citation_does_not_start_with_the_previous_sentence_end() -> None:
    text = "DVDs are lent for 7 days [loans#periods]. Board games for 14 days [loans#periods]."
    assert [c.text for c in claims(text, HITS)] == [
        "DVDs are lent for 7 days",
        "Board games for 14 days",
    ]
