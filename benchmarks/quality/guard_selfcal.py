"""Index-time self-calibration of the guard, measured: does fitting ``min_coverage`` to
pseudo-questions drawn from a collection's own passages beat the fixed default?

No labels are used. For each collection, ``N_PASSAGES`` passages are drawn (seeded) and each
gives one answerable and one unanswerable pseudo-question, built from its longest sentence's
first ``WORDS`` words (stop words included, as a user writes them):

- **answerable** (a paraphrase): every word is replaced, with probability ``PARAPHRASE``, by a
  made-up word the collection never uses (a user asking in words the documents do not use);
- **unanswerable**, two kinds in turn:
  - **topic swap**: the sentence's ``SWAPPED`` heaviest words (by idf) are replaced by made-up
    words: the question keeps the collection's everyday words but asks about something it
    never mentions ("Can I bring my dog to the library?");
  - **off-topic**: a sentence of another corpus (the other corpora of this benchmark), as is.

Then ``docqa.eval.calibrate`` fits the guard to them exactly as ``docqa calibrate`` fits it to
labelled questions (the most refusing setting keeping ``min_kept`` 0.9; the unknown-word
check on or off), and the chosen setting is reported on the corpus's real labelled questions
beside the defaults. The constants (``PARAPHRASE``, ``SWAPPED``, ``WORDS``) were set once, before
any result was seen, and not changed after. Run:

    .venv/bin/python benchmarks/quality/guard_selfcal.py \\
        [--corpora library,pydocs,nodejs,valgrind-guard]
"""

from __future__ import annotations

import argparse
import random
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from guard_transfer import CORPORA, K, gather, open_corpus, rates

from docqa.collection import MODES, Collection
from docqa.eval import Question
from docqa.eval.calibrate import choose, trade_off
from docqa.retrieve import evidence
from docqa.retrieve.guard import GuardConfig
from docqa.types import Chunk

N_PASSAGES = 60
WORDS = 10
PARAPHRASE = 1 / 3
SWAPPED = 2
SEED = 19
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def sentences(chunks: Sequence[Chunk], rng: random.Random, n: int) -> list[list[str]]:
    """The first ``WORDS`` words of the longest sentence of ``n`` passages drawn by ``rng``."""
    picked = rng.sample(range(len(chunks)), min(n, len(chunks)))
    out = []
    for i in picked:
        best = max(_SENTENCE.split(chunks[i].text), key=len, default="")
        words = evidence.plain_words(best)[:WORDS]
        if len(words) >= 4:
            out.append(words)
    return out


def made_up(rng: random.Random) -> str:
    return "q" + "".join(rng.choice("bcdfghjklmnpvwxz") for _ in range(6))


def paraphrase(words: Sequence[str], rng: random.Random) -> str:
    return " ".join(made_up(rng) if rng.random() < PARAPHRASE else w for w in words) + "?"


def topic_swap(collection: Collection, words: Sequence[str], rng: random.Random) -> str:
    """``words`` with their ``SWAPPED`` heaviest (by idf) replaced by made-up words."""
    weight = []
    for w in words:
        terms = evidence.question_terms(collection.bm25, w)
        weight.append(float(terms.weights.max()) if terms.hashes.size else 0.0)
    heavy = set(np.argsort(weight)[::-1][:SWAPPED].tolist())
    return " ".join(made_up(rng) if i in heavy else w for i, w in enumerate(words)) + "?"


def pseudo_questions(
    collection: Collection, others: Sequence[Collection], seed: int = SEED
) -> list[Question]:
    """Answerable paraphrases and unanswerable topic swaps / off-topic sentences."""
    rng = random.Random(seed)
    own = sentences(collection.index.chunks, rng, N_PASSAGES)
    foreign = [s for o in others for s in sentences(o.index.chunks, rng, N_PASSAGES // 2)]
    rng.shuffle(foreign)
    out = [Question(f"a{i}", paraphrase(w, rng), ("pseudo",)) for i, w in enumerate(own)]
    for i, words in enumerate(own):
        text = topic_swap(collection, words, rng) if i % 2 or not foreign else None
        if text is None:
            text = " ".join(foreign.pop()) + "?"
        out.append(Question(f"u{i}", text, ()))
    return out


def self_calibrated(collection: Collection, qs: Sequence[Question], mode: str) -> GuardConfig:
    """The setting ``docqa calibrate`` would choose on ``qs`` (pseudo-questions) in ``mode``."""
    gathered, _ = gather(collection, mode, qs)
    hits = [gathered[q.id][1] for q in qs]
    chosen, _ = choose(trade_off(qs, hits, collection.bm25, GuardConfig()), 0.9)
    return chosen.config


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpora", default=CORPORA)
    corpora = parser.parse_args().corpora.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        opened = {name: open_corpus(name, Path(tmp)) for name in corpora}
        print(f"k={K}; cells: refused unanswerable / kept answerable, on the real questions")
        print("| corpus | mode | self-calibrated setting | self-calibrated | defaults |")
        print("|---|---|---|---|---|")
        for name, (collection, real) in opened.items():
            others = [c for n, (c, _) in opened.items() if n != name]
            pseudo = pseudo_questions(collection, others)
            for mode in MODES:
                cfg = self_calibrated(collection, pseudo, mode)
                gathered, _ = gather(collection, mode, real)
                mine = rates(collection, gathered, real, cfg)
                base = rates(collection, gathered, real, GuardConfig())
                what = f"min_coverage={cfg.min_coverage} unknown_from={cfg.unknown_from}"
                print(
                    f"| {name} | {mode} | {what} | {mine[0]:.2f} / {mine[1]:.2f} | "
                    f"{base[0]:.2f} / {base[1]:.2f} |"
                )


if __name__ == "__main__":
    main()
