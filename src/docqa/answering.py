"""The answer path: retrieve, refuse or prompt, stream, check the citations, price.

::

    question ──retriever.search──▶ hits ──none──▶ REFUSAL (refused=True, no model call)
                                     └──build_prompt──▶ model.stream ──▶ text ──▶ Answer
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

from docqa._checks import positive
from docqa._checks import question as check_question
from docqa.models.base import join_pieces
from docqa.models.history import current_first, holds_notes
from docqa.pricing import Price, cost
from docqa.prompt import REFUSAL, build_prompt, read_prompt
from docqa.support import cited_ids, claims, not_retrieved
from docqa.types import Answer, Hit, ModelClient, Retriever

Context = Callable[[Sequence[Hit]], Sequence[Hit]]
"""Turns the retrieved hits into the passages the model reads (e.g. ``SectionContext``)."""


def answer_hits(retriever: Retriever, question: str, k: int) -> list[Hit]:
    """The passages an answer of ``k`` reads: the retriever's best ``k`` (none: refused, the
    guard judging them as ``docqa search`` does), but when release notes are among them and
    the question does not ask about releases, the best ``2 k`` with the documentation first
    (:func:`docqa.models.history.current_first`): a changelog entry naming a feature gives way
    to the page that explains it."""
    hits = retriever.search(question, k)
    if not holds_notes(question, hits):
        return hits
    return current_first(question, retriever.search(question, 2 * k), k) or hits


def answer_stream(
    question: str,
    retriever: Retriever,
    model: ModelClient,
    k: int = 3,
    *,
    prices: Mapping[str, Price] | None = None,
    context: Context | None = None,
) -> Iterator[str | Answer]:
    """Yield the answer's text pieces as the model streams them, then the finished Answer.

    When the retriever returns no hits (its guard found nothing relevant) the only piece is
    :data:`~docqa.prompt.REFUSAL` and the Answer has ``refused=True``; the model is not called.
    ``refused`` is also True when the model itself replied with exactly the refusal sentence.
    ``prices`` (see :mod:`docqa.pricing`) is looked up by the model's ``name``; ``cost`` is None
    without a price. A model error propagates: pieces already yielded are not an Answer.
    ``context`` (e.g. :class:`docqa.context.SectionContext`) widens the hits into the passages
    the model reads; the Answer's ``hits`` are then those passages, and a citation of any
    retrieved hit's id still counts as retrieved. The hits are :func:`answer_hits`.
    """
    check_question(question)
    k = positive(k, "k")
    hits = tuple(answer_hits(retriever, question, k))
    if not hits:
        yield REFUSAL
        yield Answer(question, REFUSAL, (), (), (), refused=True)
        return
    passages = tuple(context(hits)) if context is not None else hits
    prompt = build_prompt(question, passages)
    # the prompt's token budget may leave the last passages out: citing one is not retrieved
    # (with a section context the passages are widened hits, and the hits' ids are the citations)
    shown = passages[: len(read_prompt(prompt)[0])] if context is None else hits
    done = yield from join_pieces(model.stream(prompt), prompt)
    cited = cited_ids(done.text)
    name = getattr(model, "name", None)
    checked = passages if context is not None else shown
    yield Answer(
        question=question,
        text=done.text,
        hits=passages,
        cited_ids=cited,
        not_retrieved=not_retrieved(cited, shown),
        claims=claims(done.text, checked),
        refused=done.text.strip() == REFUSAL,
        usage=done.usage,
        cost=cost(done.usage, name if isinstance(name, str) else None, prices or {}),
    )


def answer(
    question: str,
    retriever: Retriever,
    model: ModelClient,
    k: int = 3,
    *,
    prices: Mapping[str, Price] | None = None,
    context: Context | None = None,
) -> Answer:
    """Answer ``question`` from the top ``k`` passages (see :func:`answer_stream`)."""
    for item in answer_stream(question, retriever, model, k, prices=prices, context=context):
        if isinstance(item, Answer):
            return item
    raise AssertionError("answer_stream always ends with an Answer")
