"""The native tokenizer against its pure-Python reference and the plain regex line.

On >= 20 MB of real English, fed two ways: as the 200-word chunks an index is built from (the
realistic unit) and as one string (one non-ASCII character sends all of it through the wide
scanner). Rows of each group: the regex line ``re.findall(r"[^\\W_]+", text.lower())`` (the
baseline: no stop words, no folding), the reference (on a ~1 MB slice, its MB/s scaled), then
``tokenize_batch`` (one ``str`` per token) and ``hash_tokens`` (no object per token), both with
stop words and plural folding on. Targets: 3x and 8x the regex line.

Run: .venv/bin/python -m pytest benchmarks/bench_tokenize.py -o python_files='bench_*.py' -q
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np
import pytest
from corpus import MB, Corpus

from docqa.text import hash_tokens, tokenize_batch
from docqa.text import tokenize_reference as ref
from docqa.text.stopwords import ENGLISH_STOP_WORDS

WORD = re.compile(r"[^\W_]+")  # exactly the runs of str.isalnum() characters, underscore aside
REFERENCE_MB = 1.0


@dataclass(frozen=True)
class Feed:
    name: str
    texts: list[str]  # what the tokenizers get
    megabytes: float
    sample: list[str]  # a ~1 MB prefix of texts for the slow reference


def _utf8_mb(texts: list[str]) -> float:
    return sum(len(t.encode("utf-8")) for t in texts) / MB


def _prefix(texts: list[str], megabytes: float) -> list[str]:
    if len(texts) == 1:
        return [texts[0][: int(megabytes * MB)]]
    out: list[str] = []
    size = 0.0
    for t in texts:
        if size >= megabytes * MB:
            break
        out.append(t)
        size += len(t.encode("utf-8"))
    return out


@pytest.fixture(scope="module", params=["200-word chunks", "one 20 MB string"])
def feed(request: pytest.FixtureRequest, english: Corpus) -> Feed:
    texts = english.chunks if request.param.startswith("200") else [english.text]
    return Feed(request.param, texts, _utf8_mb(texts), _prefix(texts, REFERENCE_MB))


@pytest.fixture(scope="module")
def expected(english: Corpus) -> tuple[list[str], list[str], np.ndarray]:
    """(plain tokens, tokens with stop words and folding, their reference hashes) of the
    whole corpus, in order. Feeding chunks or the whole string gives the same sequence."""
    plain = WORD.findall(english.text.lower())
    head = english.text[: int(REFERENCE_MB * MB)]
    assert WORD.findall(head.lower()) == ref.tokenize(head), "the regex oracle is not the spec"
    full = [ref.fold_plural(t) for t in plain if t not in ENGLISH_STOP_WORDS]
    ids = {t: ref.hash64(t) for t in set(full)}
    return plain, full, np.fromiter((ids[t] for t in full), dtype=np.uint64, count=len(full))


def _regex(texts: list[str]) -> list[list[str]]:
    return [WORD.findall(t.lower()) for t in texts]


def _reference(texts: list[str]) -> list[list[str]]:
    return [ref.tokenize(t, stop_words=True, fold_plurals=True) for t in texts]


def _native_str(texts: list[str]) -> Callable[[], list[list[str]]]:
    return lambda: tokenize_batch(texts, stop_words=True, fold_plurals=True)


def test_regex_line(measure: Any, feed: Feed, expected: tuple[Any, ...]) -> None:
    got = measure(
        feed.name,
        "regex findall(lower) [no stops, no folding]",
        lambda: _regex(feed.texts),
        feed.megabytes,
        baseline=True,
    )
    assert list(chain.from_iterable(got)) == expected[0]


def test_reference(measure: Any, feed: Feed) -> None:
    sample_mb = _utf8_mb(feed.sample)
    got = measure(
        feed.name,
        f"reference (pure Python, {sample_mb:.1f} MB slice)",
        lambda: _reference(feed.sample),
        sample_mb,
        rounds=3,
    )
    assert got == tokenize_batch(feed.sample, stop_words=True, fold_plurals=True)


def test_tokenize_batch(measure: Any, feed: Feed, expected: tuple[Any, ...]) -> None:
    got = measure(
        feed.name,
        "docqa tokenize_batch -> str [stops, folding]",
        _native_str(feed.texts),
        feed.megabytes,
        target=3.0,
    )
    assert list(chain.from_iterable(got)) == expected[1]


def test_hash_tokens(measure: Any, feed: Feed, expected: tuple[Any, ...]) -> None:
    got = measure(
        feed.name,
        "docqa hash_tokens -> uint64 [stops, folding]",
        lambda: hash_tokens(feed.texts, stop_words=True, fold_plurals=True),
        feed.megabytes,
        target=8.0,
    )
    assert got.offsets[-1] == len(expected[2]) and np.array_equal(got.hashes, expected[2])
