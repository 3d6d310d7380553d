"""What a citation check can say: which ids an answer cites, whether they were retrieved, and
whether each cited passage holds the sentence citing it.

An answer is read as *claims*: the text before each citation (back to the previous one) is a
claim, supported or not by each id it cites. A citation is square brackets holding one
docqa-shaped id or a comma-separated list of them (``[a#b]``, ``[a#b-p2, c#d]``), also when
the brackets are a Markdown link's text (``[a#b](https://...)``: the link is dropped, the id
stays a citation). Other brackets are text: syntax synopses (``[option...]``), arrays,
``[ RECORD 1 ]``, links whose text is not an id.

**Support** is lexical and says so: a claim is supported by a cited passage when the passage
(its title and text) holds at least :data:`MIN_SUPPORT` of the claim's distinct content words
(stop words dropped, plurals folded, the ids themselves left out). A claim with no content
words is supported. It catches a citation pinned on a passage that does not say what the
sentence says; it does not prove that the passage *means* it (a negation holds the same
words).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docqa.text.tokenize import content_words
from docqa.types import Chunk, Claim, Hit

MIN_SUPPORT = 0.5
"""Share of a claim's content words its cited passage must hold to support it."""

_BRACKETS = re.compile(r"\[([^\[\]\n]+)\](\([^()\s]*\))?")
_SLUG = r"[^\W_]+(?:-[^\W_]+)*"  # what slugify makes, plus a chunk's -pN
_PATH = r"[^\s\[\](),#`'\"]+(?: [^\s\[\](),#`'\"]+)*"  # a source path without its suffix
DOCQA_ID = re.compile(rf"{_PATH}#{_SLUG}")
"""The shape of the ids docqa gives passages: ``path#slug`` or ``path#slug-p2``."""


def is_docqa_id(text: str) -> bool:
    """Whether ``text`` is shaped like a passage id docqa hands a model (``guide/loans#fees``)."""
    return DOCQA_ID.fullmatch(text) is not None


def _citations(text: str) -> list[tuple[int, int, tuple[str, ...]]]:
    """``(start, end, ids)`` of each citation in ``text``, in order."""
    out = []
    for m in _BRACKETS.finditer(text):
        items = tuple(item.strip() for item in m[1].split(","))
        if all(is_docqa_id(item) for item in items):
            out.append((m.start(), m.end(), items))
    return out


def without_citations(text: str) -> str:
    """``text`` with every citation taken out: what the answer says in its own words (a key
    fact found only inside a cited id, ``[timers#cleartimeout]``, is not said)."""
    kept, start = [], 0
    for begin, end, _ in _citations(text):
        kept.append(text[start:begin])
        start = end
    kept.append(text[start:])
    return "".join(kept)


def cited_ids(text: str) -> tuple[str, ...]:
    """Every id cited in ``text``, first-seen order, no repeats."""
    found: dict[str, None] = {}
    for _, _, items in _citations(text):
        found.update(dict.fromkeys(items))
    return tuple(found)


def not_retrieved(cited: Sequence[str], hits: Sequence[Hit]) -> tuple[str, ...]:
    """The cited ids that are not among ``hits``' ids."""
    retrieved = {hit.id for hit in hits}
    return tuple(cid for cid in cited if cid not in retrieved)


def said(chunk: Chunk) -> str:
    """What a passage says, as the model reads it: its title (the heading path, which the
    extractive reply names a quote by) over its text."""
    return f"{chunk.title}\n{chunk.text}"


def holds(passage: str, claim: str) -> bool:
    """Whether ``passage`` holds at least :data:`MIN_SUPPORT` of ``claim``'s content words."""
    wanted = content_words(claim)
    return not wanted or len(wanted & content_words(passage)) >= MIN_SUPPORT * len(wanted)


def claims(text: str, passages: Sequence[Hit]) -> tuple[Claim, ...]:
    """The cited claims of answer ``text`` judged against ``passages`` (the hits the model
    read, by id). Text after the last citation cites nothing and is not a claim; citations
    that follow each other without text between them belong to the same claim."""
    by_id = {h.id: said(h.chunk) for h in passages if h.chunk is not None}
    out: list[tuple[str, list[str]]] = []
    start = 0
    for begin, end, ids in _citations(text):
        # what ends the previous claim's sentence (". " after its citation) is not this claim's
        stretch = " ".join(text[start:begin].split()).lstrip(".,;:!? ")
        if stretch or not out:
            out.append((stretch, list(ids)))
        else:
            out[-1][1].extend(i for i in ids if i not in out[-1][1])
        start = end
    result = []
    for stretch, listed in out:
        good = tuple(i for i in listed if i in by_id and holds(by_id[i], stretch))
        bad = tuple(i for i in listed if i not in good)
        result.append(Claim(stretch, tuple(listed), good, bad))
    return tuple(result)


def summary(cited: Sequence[str], missing: Sequence[str], found: Sequence[Claim]) -> str:
    """One line saying what was checked: ``2 cited, all retrieved; 3 of 3 claims supported``,
    ``2 cited, 1 not retrieved (x#y); ...``, or ``none``."""
    if not cited:
        return "none"
    n = len(cited)
    head = (
        f"{n} cited, all retrieved"
        if not missing
        else (f"{n} cited, {len(missing)} not retrieved ({', '.join(missing)})")
    )
    held = sum(c.supported for c in found)
    return f"{head}; {held} of {len(found)} {'claim' if len(found) == 1 else 'claims'} supported"
