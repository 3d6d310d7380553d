"""What the guard measures about a question and its hits, from the collection's term statistics.

Every figure here comes from the BM25 index's vocabulary and document frequencies, never from
an embedder's absolute scores, so it means the same with any embedder, in any mode:

- **coverage**: the share of the question's IDF mass that the best hit holds. Each distinct
  question term (tokenized as the BM25 index tokenizes: stop words dropped, plurals folded)
  weighs its Lucene idf; a term the collection never uses weighs the idf of a term in no row
  (the largest there is). A hit's coverage is the summed weight of the question terms in its
  text (heading path + text, as indexed) over the question's total; the best hit's is kept.
- **names**: words of the question shaped like names (``Django``, ``JavaScript``,
  ``cProfile``, ``os.walk``, ``SO_REUSEADDR``, ``imap_unordered``; :func:`named_words`) and
  which hits hold them whole (:func:`name_holders`): passages that never mention a thing
  cannot answer a question about it, nor can a collection that never uses the word at all
  (:func:`unknown_terms`).

Pure functions over arrays; a verdict hashes its hits' texts once (:class:`Passages`) and asks
them about every term at once. The slow twins, one Python set per hit, are
:func:`coverages_reference` and :func:`name_holders_reference`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from docqa.keyword import BM25Index
from docqa.text import TokenHashes, hash_tokens
from docqa.text.sections import embed_text
from docqa.types import Hit

_WORD = re.compile(r"[\w][\w.'’-]*[\w]|\w")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|[\"(“]\s*)$")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2}")
_JOINED = re.compile(r"[A-Za-z0-9][._][A-Za-z0-9]")
_NOT_NAMES = frozenset({"e.g", "i.e", "etc", "i'm", "i've", "i'd", "i'll", "ok"})


@dataclass(frozen=True, slots=True)
class QuestionTerms:
    """A question's distinct terms (BM25 token hashes) and the idf weight of each."""

    hashes: np.ndarray  # (t,) uint64, ascending
    weights: np.ndarray  # (t,) float64, idf (a term in no row weighs the largest idf)

    @property
    def mass(self) -> float:
        return float(self.weights.sum())


def question_terms(bm25: BM25Index, question: str) -> QuestionTerms:
    """The distinct terms of ``question`` as ``bm25`` tokenizes them, with their idf."""
    hashes = np.unique(_hashes(bm25, [question]).hashes)
    df = document_frequencies(bm25, hashes)
    n = bm25.corpus_docs
    weights = np.log(1.0 + (n - df + 0.5) / (df + 0.5))
    return QuestionTerms(hashes, weights)


def unknown_share(bm25: BM25Index, terms: QuestionTerms) -> float:
    """The share of ``terms``' IDF mass in terms no row of ``bm25`` uses (0 for no terms)."""
    mass = terms.mass
    if mass <= 0:
        return 0.0
    return float(terms.weights[document_frequencies(bm25, terms.hashes) == 0].sum()) / mass


def without(bm25: BM25Index, terms: QuestionTerms, words: Sequence[str]) -> QuestionTerms:
    """``terms`` less every term of ``words`` (the rest of a question besides its names)."""
    if not words:
        return terms
    keep = ~np.isin(terms.hashes, _hashes(bm25, words).hashes)
    return QuestionTerms(terms.hashes[keep], terms.weights[keep])


def document_frequencies(bm25: BM25Index, hashes: np.ndarray) -> np.ndarray:
    """How many rows of the collection hold each term of ``hashes`` (int64, 0 when unknown):
    ``bm25``'s own rows, or the whole collection's for a shard or a sharded index's bounds."""
    pos = np.searchsorted(bm25.vocab, hashes)
    found = pos < bm25.vocab.size
    found[found] = bm25.vocab[pos[found]] == hashes[found]
    df = np.zeros(hashes.size, dtype=np.int64)
    df[found] = bm25.corpus_df[pos[found]]
    return df


@dataclass(frozen=True, slots=True)
class Passages:
    """The terms of some hits' texts (heading path + text, tokenized as ``bm25`` indexes
    them), hashed once and asked about many times by one verdict."""

    hashes: np.ndarray  # (m,) uint64, every hit's terms one after another
    hit_of: np.ndarray  # (m,) int64, which hit each term belongs to
    count: int

    @classmethod
    def of(cls, bm25: BM25Index, hits: Sequence[Hit]) -> Passages:
        th = _hashes(bm25, [_hit_text(h) for h in hits])
        hit_of = np.repeat(np.arange(len(hits), dtype=np.int64), np.diff(th.offsets))
        return cls(th.hashes, hit_of, len(hits))

    def holds(self, wanted: np.ndarray) -> np.ndarray:
        """Whether each hit holds each term of ``wanted`` (distinct uint64 hashes, any
        order): bool ``(count, wanted.size)``."""
        out = np.zeros((self.count, wanted.size), dtype=np.bool_)
        if wanted.size == 0 or self.hashes.size == 0:
            return out
        order = np.argsort(wanted, kind="stable")
        ranked = wanted[order]
        pos = np.minimum(np.searchsorted(ranked, self.hashes), ranked.size - 1)
        found = ranked[pos] == self.hashes
        out[self.hit_of[found], order[pos[found]]] = True
        return out


def coverages(
    bm25: BM25Index,
    terms: QuestionTerms,
    hits: Sequence[Hit],
    passages: Passages | None = None,
) -> np.ndarray:
    """Each hit's share of the question's IDF mass, float64 (len(hits),); 0 when no mass.
    ``passages``: the hits' terms if already hashed (:meth:`Passages.of`)."""
    mass = terms.mass
    if mass <= 0 or not hits:
        return np.zeros(len(hits), dtype=np.float64)
    held = (passages if passages is not None else Passages.of(bm25, hits)).holds(terms.hashes)
    return np.asarray(held @ terms.weights / mass, dtype=np.float64)


def coverages_reference(bm25: BM25Index, question: str, hits: Sequence[Hit]) -> list[float]:
    """The slow twin of :func:`coverages`: idf recomputed per term, Python sets per hit."""
    n = bm25.corpus_docs
    weight: dict[int, float] = {}
    for h in _hashes(bm25, [question]).hashes.tolist():
        df = int(document_frequencies(bm25, np.array([h], dtype=np.uint64))[0])
        weight[h] = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
    total = math.fsum(weight.values())
    out = []
    for hit in hits:
        seen = set(_hashes(bm25, [_hit_text(hit)]).hashes.tolist())
        out.append(math.fsum(w for h, w in weight.items() if h in seen) / total if total else 0.0)
    return out


def named_words(question: str) -> list[str]:
    """Words of ``question`` shaped like names: capitalised away from a sentence start, inner
    capitals (``cProfile``, ``DataFrame``, ``HTTP``), or letters joined by ``.`` / ``_``
    (``os.walk``, ``SO_REUSEADDR``). Surrounding punctuation and a possessive ``'s`` dropped.

    Linear in the question's length: whether a word starts a sentence is read from the gap
    since the previous word (words start and end with a word character, so the punctuation
    and spaces that end a sentence lie in that gap; ``^`` matches only when the gap starts
    the text), never from the whole text before it.
    """
    out = []
    gap = 0  # where the text between the previous word and the next one begins
    for m in _WORD.finditer(question):
        start = bool(_SENTENCE_START.search(question, gap, m.start()))
        gap = m.end()
        word = re.sub(r"['’]s$", "", m.group().strip(".'’-"))
        if len(word) < 2 or word.lower() in _NOT_NAMES:
            continue
        capitalised = word[0].isupper() and not start
        if capitalised or _CAMEL.search(word) or _JOINED.search(word):
            out.append(word)
    return out


def named_words_reference(question: str) -> list[str]:
    """The slow twin of :func:`named_words`: each word's sentence start is read from the whole
    text before it (quadratic in the question's length)."""
    out = []
    for m in _WORD.finditer(question):
        word = re.sub(r"['’]s$", "", m.group().strip(".'’-"))
        if len(word) < 2 or word.lower() in _NOT_NAMES:
            continue
        start = bool(_SENTENCE_START.search(question[: m.start()]))
        capitalised = word[0].isupper() and not start
        if capitalised or _CAMEL.search(word) or _JOINED.search(word):
            out.append(word)
    return out


def name_holders(
    bm25: BM25Index,
    words: Sequence[str],
    hits: Sequence[Hit],
    passages: Passages | None = None,
) -> np.ndarray:
    """Whether each hit holds each word whole (every term of the word in the hit's text):
    ``bool (len(words), len(hits))``; a word with no terms counts as held."""
    out = np.ones((len(words), len(hits)), dtype=np.bool_)
    if not words or not hits:
        return out
    th = _hashes(bm25, words)
    distinct, which = np.unique(th.hashes, return_inverse=True)
    held = (passages if passages is not None else Passages.of(bm25, hits)).holds(distinct)
    for i in range(len(words)):
        out[i] = held[:, which[th.offsets[i] : th.offsets[i + 1]]].all(axis=1)
    return out


def name_holders_reference(
    bm25: BM25Index, words: Sequence[str], hits: Sequence[Hit]
) -> np.ndarray:
    """The slow twin of :func:`name_holders`: one Python set per word and per hit."""
    out = np.ones((len(words), len(hits)), dtype=np.bool_)
    if not words or not hits:
        return out
    th = _hashes(bm25, words)
    wanted = [set(th.of(i).tolist()) for i in range(len(words))]
    for j, row in enumerate(_rows(_hashes(bm25, [_hit_text(h) for h in hits]))):
        seen = set(row.tolist())
        out[:, j] = [terms <= seen for terms in wanted]
    return out


def plain_words(question: str) -> list[str]:
    """The words of ``question`` (split as :func:`named_words` splits), possessives dropped."""
    words = (re.sub(r"['’]s$", "", m.group().strip(".'’-")) for m in _WORD.finditer(question))
    return [w for w in words if w]


def unknown_terms(bm25: BM25Index, words: Sequence[str]) -> tuple[str, ...]:
    """The ``words`` holding a term no row of ``bm25`` uses."""
    if not words:
        return ()
    th = _hashes(bm25, words)
    return tuple(
        w for i, w in enumerate(words) if (document_frequencies(bm25, th.of(i)) == 0).any()
    )


def _rows(th: TokenHashes) -> list[np.ndarray]:
    return [th.of(i) for i in range(th.offsets.size - 1)]


def _hashes(bm25: BM25Index, texts: Sequence[str]) -> TokenHashes:
    """``texts`` tokenized and hashed as ``bm25`` was built."""
    config = bm25.config
    return hash_tokens(texts, stop_words=config.stop_words, fold_plurals=config.fold_plurals)


def _hit_text(hit: Hit) -> str:
    """The terms of ``hit``'s BM25 row (heading path + text): the guard asks which terms a
    row holds, never how often, so the heading's extra copies in the row are left out."""
    if hit.chunk is None:
        return ""
    return embed_text(hit.chunk, headings=True)
