"""The offline default model: answers with the passages' own whole sentences.

No network; no model weights unless it judges meaning. It reads the passages and question back
out of the prompt (the same ``stream(prompt)`` protocol as every other client) and cuts each
passage into *units*: whole sentences, a table row as one sentence naming its columns (``Item
type: DVDs; Loan period: 7 days.``), and a sentence that ends in ``:`` ("To install it, run:")
together with the block that follows it (the command or code it introduces, kept intact),
a sentence written around a block ("the command" / ``ls 2>&1 > dirlist`` / "directs only
the standard output ...") as one unit, and a block of code standing alone, its lines kept. A
retrieved window can begin or end inside a sentence; such a fragment is never quoted
(:func:`docqa.models.units.units`).

Each question word (stop words dropped, plurals folded) weighs its inverse frequency among the
units of the prompt, so a word every unit holds says little. Only units of passages holding
at least :data:`MIN_PASSAGE_COVERAGE` of the question's weight in their title and text (the
guard's coverage rule, per passage, each word weighing its inverse frequency among the
passages) are quoted, a release note ("Changes > Version 2.4") only when the question asks
about releases or no other passage may be quoted (:mod:`docqa.models.history`); by words
alone, only those holding a question word (with a meaning model, a unit that says the answer
in other words, "A standard adult card may hold up to 50 items" for "The kiosk shows
LIM-050", is judged by its meaning); never a label of fewer than
:data:`~docqa.models.units.MIN_WORDS` words ("See also", "6."), nor a question (a FAQ's
"Where does the name come from?" asks; the answer follows it). Each is described by a few
:data:`FEATURES` (the share of the question's weight it holds, the question's word pairs it
holds in a row, its passage's rank and title, its place and length, its neighbours' share,
and with a ``meaning`` model, MiniLM when installed, see :meth:`ExtractiveModel.auto`, its
cosine to the question, the unit read after its passage's heading) and scored by fixed
:data:`WEIGHTS`, fitted on labelled collections to make the unit holding the key fact the
likeliest pick. The reply (:func:`pick`) is

1. the best unit (ties: the earlier one);
2. by words alone, the unit after it in the same passage (unless the best is a table row,
   or that unit a label such as "See also", :data:`~docqa.models.units.MIN_WORDS`), which
   often carries what the first introduces without the question's words ("If all you want
   is a unique ID, call uuid1() or uuid4()." / "uuid4() creates a random UUID."); judged by
   meaning, that unit is a candidate like any other;
3. then the next best, up to :data:`MAX_UNITS`.

The chosen units are printed in the order of the prompt (passage rank, then place in the
passage), each run from one passage opened by the passage's heading when the run does not say
it (:func:`heading`: a reference page names its function only there) and followed by its
``[passage id]``; a sentence of a definition that does not say its term (``HideCursor`` over
"The sprite stays hidden until ShowCursor.", :attr:`~docqa.models.units.Unit.under`) is
said after the term instead. When no unit may be quoted (no passage holds enough of the
question, or by words alone no unit holds a question word) the reply is
:data:`docqa.prompt.REFUSAL`.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from docqa.embed.protocol import Embedder
from docqa.errors import InputError
from docqa.models.base import PieceStream
from docqa.models.history import current
from docqa.models.units import Unit, is_label, units
from docqa.prompt import REFUSAL, Passage, read_prompt
from docqa.text.documents import NO_COLON
from docqa.text.tokenize import tokenize_batch
from docqa.types import Prompt

# a question the passages ask (a FAQ's entry, or its list of entries) says what is asked, not
# the answer: it is no unit to quote
_QUESTION = re.compile(r"\?[\"')\]]*$")
MAX_UNITS = 3
"""At most this many units (sentences, or a sentence with its block) in a reply."""
MIN_PASSAGE_COVERAGE = 0.15
"""A passage quoted from must hold this share of the question's weight in its title and text,
each word weighing ``log(1 + n / (1 + passages holding it))`` over the prompt's ``n``
passages (the guard's ``min_coverage`` default, applied to each passage)."""


def _weights(question: set[str], words: Sequence[set[str]]) -> dict[str, float]:
    """Each question word's weight: ``log(1 + n / (1 + pieces holding it))`` over the ``n``
    pieces (units, or passages) whose question words ``words`` are."""
    n = len(words)
    return {w: math.log1p(n / (1 + sum(w in u for u in words))) for w in sorted(question)}


# a heading's section number: "2.2 ", "8. ", "XI. " (not "1.0.11: Feb 8 2002", a release)
_SECTION_NUMBER = re.compile(r"\A(?:(?:\d+\.)+\d*|[IVXLC]+\.)\s+(?=\S)")
# one plain word such as "Description", "Examples" or a manual page's "OPTIONS" names a part of
# what its parent names
_PLAIN_WORD = re.compile(r"[A-Z][a-z]+|[A-Z]{2,}")
MAX_HEADING_CHARS = 100
"""A longer heading (a paragraph read as one) is not said in a reply."""
NAME_WORDS = 6
"""A parent heading of more words describes rather than names (``libpng-manual.txt - A
description on how to use and modify libpng``): a plain word under it is said alone."""


def heading(title: str) -> str:
    """What a passage's ``title`` (its heading path, ``"Path > path.sep"``) names: its last
    heading (``"path.sep"``), section numbers left out (``"8.6. Export to CSV"``: ``"Export to
    CSV"``), after its parent's when it is one plain word under a name (``"borg mount >
    Description"``: ``"borg mount › Description"``; :data:`NAME_WORDS`); ``""`` for a
    heading with no letter or digit or longer than :data:`MAX_HEADING_CHARS`."""
    parts = [_SECTION_NUMBER.sub("", p.strip(), count=1) for p in title.split(" > ")]
    name = parts[-1]
    if _PLAIN_WORD.fullmatch(name) and len(parts) > 1 and len(parts[-2].split()) <= NAME_WORDS:
        name = f"{parts[-2]} › {name}"
    if len(name) > MAX_HEADING_CHARS or not any(c.isalnum() for c in name):
        return ""
    return name


FEATURES = (
    "coverage", "meaning", "first_passage", "second_passage", "opens_passage", "place",
    "length", "density", "pairs", "title", "before", "after", "block", "row",
)  # fmt: skip
"""What a unit is scored on (:func:`candidates`), in the order of :data:`WEIGHTS`' rows:

- ``coverage``: the share of the question's weight among the unit's words;
- ``meaning``: its cosine to the question under the meaning model, the unit read after its
  passage's :func:`heading` or the term it stands under, as a reply says it (0 without a
  model);
- ``first_passage``, ``second_passage``: 1 when its passage is the prompt's first, second;
- ``opens_passage``: 1 for a passage's first unit; ``place``: ``log(1 + place in passage)``;
- ``length``: ``log(1 + words)``; ``density``: question words held / (1 + content words);
- ``pairs``: the share of the question's adjacent content-word pairs it holds in a row;
- ``title``: the share of the question's weight in its passage's title;
- ``before``, ``after``: the coverage of the unit before, after it in the same passage;
- ``block``: 1 when it carries a block it introduces; ``row``: 1 for a table row."""

WEIGHTS = {
    False: (2.96, 0.0, 0.72, 0.14, -0.11, -0.08, 0.37, -0.11, 1.13, 1.71, 0.41, 0.47, 0.29, -0.20),
    True: (1.76, 4.15, 0.58, 0.18, -0.06, -0.08, 0.32, -0.37, 0.92, 1.14, 0.19, 0.09, 0.68, 0.10),
}
"""A unit's score is the dot product of its :data:`FEATURES` with these weights, by words
alone (``False``) or with a meaning model (``True``): a conditional logit fitted on the
labelled evaluation collections, the likelihood that quoting a unit says the answer's key
fact (``benchmarks/quality/sentences.py`` fits them and reports each collection with weights
fitted without it). The weights by words alone were fitted before a reply named its
headings; fitted again, they move the fact rate by less than a question a collection, so they
stay."""


@dataclass(frozen=True, slots=True)
class Candidates:
    """The units of a prompt (``found``, in prompt order), the indices of those that may be
    quoted (``order``: in an eligible passage, and by words alone holding a question word),
    their :data:`FEATURES` (``features[j]`` is ``found[order[j]]``'s) and whether a meaning
    model judged them (``by_meaning``)."""

    found: list[Unit]
    order: list[int]
    features: np.ndarray
    by_meaning: bool = False


def candidates(
    question: str, passages: Sequence[Passage], meaning: Embedder | None = None
) -> Candidates | None:
    """The quotable units of ``passages`` and their features; None when there are none (by
    words alone: none holds a question word)."""
    found = [u for i, p in enumerate(passages) for u in units(p, i)]
    texts = [question, *(u.text for u in found), *(p.title for p in passages)]
    texts += [p.text for p in passages]
    # one native call for every text of the prompt (a call per text costs more than its scan)
    tokens = tokenize_batch(texts, stop_words=True, fold_plurals=True)
    n = len(found)
    wanted, own = set(tokens[0]), tokens[1 : n + 1]
    titles, bodies = tokens[n + 1 : n + 1 + len(passages)], tokens[n + 1 + len(passages) :]
    words = [set(t) & wanted for t in own]
    weight = _weights(wanted, words)
    total = math.fsum(weight.values())
    if total <= 0:
        return None

    def share(held: Iterable[str]) -> float:
        return math.fsum(weight[w] for w in set(held) & wanted) / total

    eligible = _eligible(wanted, titles, bodies)
    eligible = current(question, [p.title for p in passages], eligible)
    order = [
        i
        for i, (unit, held) in enumerate(zip(found, words, strict=True))
        if unit.passage in eligible
        and (held or meaning is not None)
        and not is_label(unit)
        and not _QUESTION.search(unit.text)
    ]
    if not order:
        return None
    shares = [share(held) for held in words]
    asked = set(itertools.pairwise(tokens[0]))
    # the meaning model reads a unit under its heading (or its term), as a reply says it
    # ("borg mount › Description: This command mounts an archive as a FUSE filesystem.")
    names = [heading(p.title) for p in passages]
    said = [
        _under_heading(found[i].text, _name_of(found[i], names[found[i].passage])) for i in order
    ]
    close = _cosines(meaning, question, said)
    rows = []
    for i, cos in zip(order, close, strict=True):
        u = found[i]
        before = shares[i - 1] if i > 0 and found[i - 1].passage == u.passage else 0.0
        after = shares[i + 1] if i + 1 < n and found[i + 1].passage == u.passage else 0.0
        pairs = len(asked & set(itertools.pairwise(own[i]))) / len(asked) if asked else 0.0
        rows.append((
            shares[i], cos, u.passage == 0, u.passage == 1, u.place == 0, math.log1p(u.place),
            math.log1p(len(u.text.split())), len(words[i]) / (1 + len(set(own[i]))),
            pairs, share(titles[u.passage]), before, after, "\n" in u.text, u.row,
        ))  # fmt: skip
    features = np.array(rows, dtype=np.float64).reshape(-1, len(FEATURES))
    return Candidates(found, order, features, by_meaning=meaning is not None)


def _eligible(
    wanted: set[str], titles: Sequence[Sequence[str]], bodies: Sequence[Sequence[str]]
) -> set[int]:
    """The passages that may be quoted from (:data:`MIN_PASSAGE_COVERAGE`), by their titles'
    and texts' tokens. A passage is judged as the guard judges a row: with its title, each word
    weighing its inverse frequency among the passages (not the units: "plot", which every unit
    of R's "The plot() function" holds, would weigh next to nothing beside "scatter", which
    none holds, and the passage saying "plot(x, y) produces a scatterplot" would go
    unquoted)."""
    held = [(set(t) | set(b)) & wanted for t, b in zip(titles, bodies, strict=True)]
    by_passage = _weights(wanted, held)
    mass = math.fsum(by_passage.values())
    return {
        i
        for i, words_held in enumerate(held)
        if math.fsum(by_passage[w] for w in words_held) / mass >= MIN_PASSAGE_COVERAGE
    }


def choose(
    question: str, passages: Sequence[Passage], meaning: Embedder | None = None
) -> list[Unit]:
    """The units to quote, in prompt order (see the module docstring); ``[]``: none may be
    quoted. With ``meaning`` (a semantic embedder such as MiniLM) each unit's cosine to
    the question is one of its features."""
    found = candidates(question, passages, meaning)
    if found is None:
        return []
    return pick(found, found.features @ np.array(WEIGHTS[meaning is not None]))


def pick(found: Candidates, scores: np.ndarray) -> list[Unit]:
    """Up to :data:`MAX_UNITS` units by ``scores`` (one per quotable unit), in prompt order: the
    best (ties: the earlier); by words alone the unit after it in its passage (unless the best
    is a table row or the unit after a label), which often says in other words what the best
    introduces; then the next best; never a sentence already chosen (two passages, or a
    heading and its text, can hold the same one). Judged by meaning, the unit after the best
    is a candidate scored like the others, so it is quoted only when it scores among them."""
    units_ = found.found
    ranked = sorted(zip(found.order, scores.tolist(), strict=True), key=lambda p: (-p[1], p[0]))
    first = ranked[0][0]
    chosen = [first]
    said = {units_[first].text}
    after = first + 1
    if (
        not found.by_meaning
        and after < len(units_)
        and units_[after].passage == units_[first].passage
        and not units_[first].row
        and units_[after].text not in said
        and not is_label(units_[after])
    ):
        chosen.append(after)
        said.add(units_[after].text)
    for i, _ in ranked:
        if len(chosen) == MAX_UNITS:
            break
        if units_[i].text not in said:
            chosen.append(i)
            said.add(units_[i].text)
    return [units_[i] for i in sorted(chosen)]


def _cosines(meaning: Embedder | None, question: str, texts: list[str]) -> list[float]:
    """Each text's cosine to the question under ``meaning`` (all 0.0 without one)."""
    if meaning is None or not texts:
        return [0.0] * len(texts)
    query = meaning.embed([question], query=True)[0]
    return [float(c) for c in meaning.embed(texts) @ query]


def reply(question: str, passages: Sequence[Passage], meaning: Embedder | None = None) -> str:
    """The extractive reply: the chosen units, each run from one passage followed by
    ``[its id]``; :data:`~docqa.prompt.REFUSAL` when nothing was chosen."""
    return quote(choose(question, passages, meaning), passages)


def _name_of(unit: Unit, name: str) -> str:
    """What a reply says before ``unit`` opening a run: the term it stands under and does not
    say, else its passage's heading ``name``."""
    return unit.under if _unsaid(unit) else name


def _under_heading(text: str, name: str) -> str:
    """``text`` (a unit) after its passage's :func:`heading` ``name``, if any."""
    return f"{name}: {text}" if name else text


def _named(unit: Unit, run: Sequence[Unit], passage: Passage) -> str:
    """What opens a run of ``passage``'s units in a reply: its heading and a colon (none after a
    heading ending in ``?``, ``:`` ...), unless the run already says it (case aside). A
    reference page names what a section describes in its heading alone (``os.tmpdir()`` over
    "Returns the operating system's default directory for temporary files"), so a quote
    without it would not say which function, command or option it is about."""
    said = " ".join(u.text for u in run).lower()
    name = _name_of(unit, heading(passage.title))
    if not name or name.lower() in said:
        return ""
    mark = "" if name.endswith(NO_COLON) else ":"
    return f"{name}{mark}\n" if unit.block or unit.row else f"{name}{mark} "


def _unsaid(unit: Unit) -> bool:
    """Whether ``unit`` stands under a term it does not say (a definition's later sentence)."""
    return bool(unit.under) and unit.under.lower() not in unit.text.lower()


def quote(chosen: Sequence[Unit], passages: Sequence[Passage]) -> str:
    """``chosen`` (units of ``passages``, in prompt order) as a reply, each run from one passage
    opened by its passage's heading when the run does not say it (:func:`heading`, on a line
    of its own over a table row or a block of code) and followed by ``[its id]``;
    :data:`~docqa.prompt.REFUSAL` for none. A unit that quotes a block with its line breaks (a
    command after "run:") ends its line, so that no sentence reads as the command's last
    words, and a block of code standing alone begins one, as does a table row and what
    follows it (rows run together read as one sentence). Where a run leaves out units of its
    passage between two it quotes, an ellipsis says so (``… ``, on a line of its own before a
    block of code), so that no sentence reads as introducing what did not follow it in the
    passage."""
    if not chosen:
        return REFUSAL
    out: list[str] = []
    for j, unit in enumerate(chosen):
        if j:
            before = chosen[j - 1]
            new_line = "\n" in before.text or unit.block or unit.row or before.row
            out.append("\n" if new_line else " ")
            if unit.passage == before.passage and unit.place != before.place + 1:
                out.append("…\n" if unit.block else "… ")
        if not j or chosen[j - 1].passage != unit.passage:
            run = [u for u in chosen[j:] if u.passage == unit.passage]
            out.append(_named(unit, run, passages[unit.passage]))
        elif unit.under != chosen[j - 1].under and _unsaid(unit):
            out.append(f"{unit.under}: ")
        out.append(unit.text)
        if j + 1 == len(chosen) or chosen[j + 1].passage != unit.passage:
            out.append(f" [{passages[unit.passage].id}]")
    return "".join(out)


class ExtractiveModel:
    """A :class:`~docqa.types.ModelClient` that quotes whole sentences of the passages;
    ``meaning`` (e.g. MiniLM, see :meth:`auto`) adds each sentence's closeness in meaning to
    the question to its score."""

    name = "extractive"

    def __init__(self, *, piece_size: int = 16, meaning: Embedder | None = None) -> None:
        if piece_size < 1:
            raise InputError(f"ExtractiveModel piece_size must be at least 1, got {piece_size}")
        self._piece_size = piece_size
        self.meaning = meaning

    @property
    def in_process(self) -> bool:
        """By words alone its reply is worked out here from the prompt in bounded CPU time
        with no I/O, so the service runs it where it searched; judging meaning runs a model,
        so the service gives it a thread of its own, as it gives any other model."""
        return self.meaning is None

    @classmethod
    def auto(cls) -> ExtractiveModel:
        """The model ``docqa ask`` uses: judging meaning with MiniLM when it is installed (the
        process's one shared instance), by words alone otherwise."""
        from docqa.embed import minilm

        return cls(meaning=minilm.shared() if minilm.available() else None)

    def __repr__(self) -> str:
        by = "" if self.meaning is None else f"meaning={self.meaning.name!r}"
        return f"ExtractiveModel({by})"

    def stream(self, prompt: Prompt) -> PieceStream:
        """Yield the reply in pieces; return None (no token counts: callers estimate)."""
        passages, question = read_prompt(prompt)
        text = reply(question, passages, self.meaning)
        for start in range(0, len(text), self._piece_size):
            yield text[start : start + self._piece_size]
        return None
