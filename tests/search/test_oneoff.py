"""The one-off question's NumPy twins equal the Numba kernels bit for bit, and the command line's
one-question path really skips Numba over a small index."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from docqa_cli import clean_env
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa.keyword import BM25Index
from docqa.search import oneoff, topk
from docqa.search.masks import mask_rows


def _matrix(rng: np.random.Generator, n: int, d: int, ties: bool) -> np.ndarray:
    m = rng.standard_normal((n, d)).astype(np.float32)
    if ties and n > 3:  # repeated rows and exact zeros tie with each other
        m[1::3] = m[0]
        m[2::5] = 0.0
    return m


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 90),
    d=st.integers(1, 40),
    k=st.integers(1, 100),
    ties=st.booleans(),
    masked=st.sampled_from(["none", "bools", "ids"]),
    block=st.integers(1, 100),
)
def test_dense_twin_equals_the_kernel(
    seed: int, n: int, d: int, k: int, ties: bool, masked: str, block: int
) -> None:
    """Over any matrix, mask and block size (the twin scores ``BLOCK_ROWS`` rows at a time)."""
    rng = np.random.default_rng(seed)
    m = _matrix(rng, n, d, ties)
    q = rng.standard_normal(d).astype(np.float32)
    mask = None
    if masked == "bools":
        mask = rng.random(n) < 0.6
    elif masked == "ids":
        mask = rng.choice(n, size=max(1, n // 2), replace=False)
    want = topk(m, q, k, mask=mask)
    with mock.patch.object(oneoff, "BLOCK_ROWS", block):
        got = oneoff.dense_one(m, q, min(k, n), mask_rows(mask, n))
    np.testing.assert_array_equal(got.ids, want.ids)
    np.testing.assert_array_equal(got.scores, want.scores)


def test_dense_twin_ranks_damaged_rows_like_the_kernel() -> None:
    rng = np.random.default_rng(3)
    m = rng.standard_normal((40, 24)).astype(np.float32)
    m[5, 3], m[9, 0], m[12, 1] = np.nan, np.inf, -np.inf
    q = rng.standard_normal(24).astype(np.float32)
    for k in (1, 3, 40):
        want = topk(m, q, k)
        got = oneoff.dense_one(m, q, k, None)
        np.testing.assert_array_equal(got.ids, want.ids)
        np.testing.assert_array_equal(got.scores, want.scores)


WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
]


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 60),
    k=st.integers(1, 70),
    masked=st.booleans(),
)
def test_bm25_twin_equals_the_kernel(seed: int, n: int, k: int, masked: bool) -> None:
    rng = np.random.default_rng(seed)
    vocab = WORDS[: int(rng.integers(2, len(WORDS) + 1))]  # few words: many equal scores
    texts = [" ".join(rng.choice(vocab, int(rng.integers(1, 9)))) for _ in range(n)]
    index = BM25Index.from_texts(texts)
    words = list(rng.choice([*vocab, "unknownword"], int(rng.integers(1, 6))))
    question = " ".join(words + words[:1])  # a repeated word counts once
    mask = rng.random(n) < 0.5 if masked else None
    want = index.search([question], k, mask=mask)
    _, q_terms, _ = index._query_terms([question], None)
    got = oneoff.bm25_one(
        index.indptr, index.rows, index.weights, index.n_docs, q_terms, min(k, n), mask
    )
    np.testing.assert_array_equal(got.ids, want.ids)
    np.testing.assert_array_equal(got.scores, want.scores)


def test_twins_are_off_unless_asked_and_before_numba_only(monkeypatch: pytest.MonkeyPatch) -> None:
    def never() -> int:
        raise AssertionError("the work was counted though no twin can be used")

    monkeypatch.setattr(oneoff, "_prefer", False)
    assert not oneoff.use_twin(never, oneoff.DENSE_TWIN_WORK)
    monkeypatch.setattr(oneoff, "_prefer", True)
    assert "numba" in sys.modules  # this test process has run the kernels
    assert not oneoff.use_twin(never, oneoff.DENSE_TWIN_WORK)
    monkeypatch.delitem(sys.modules, "numba")
    for most in (oneoff.DENSE_TWIN_WORK, oneoff.BM25_TWIN_WORK):
        assert oneoff.use_twin(lambda: 10, most)
        assert oneoff.use_twin(lambda m=most: m, most)
        assert not oneoff.use_twin(lambda m=most: m + 1, most)


def test_a_one_off_process_answers_without_loading_numba(tmp_path: Path) -> None:
    """``docqa search`` on a small index, in a fresh process: same hits as this process's
    kernels, and Numba never imported there."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for i, topic in enumerate(["alpha beta", "beta gamma", "gamma delta", "delta alpha"]):
        (docs / f"d{i}.md").write_text(f"# Part {i}\n\n{topic} words about {topic}.\n")
    env = clean_env({"DOCQA_MINILM_DIR": str(tmp_path / "none")})  # docqa as installed
    index = tmp_path / "index"
    run = [sys.executable, "-m", "docqa"]
    subprocess.run(
        [*run, "index", str(docs), "--index", str(index), "--embedder", "hashing", "--quiet"],
        check=True,
        env=env,
        capture_output=True,
    )
    probe = (
        "import runpy, sys\n"
        "sys.argv = ['docqa', 'search', 'beta gamma', '--index', sys.argv[1], '--json']\n"
        "try:\n    runpy.run_module('docqa', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print('NUMBA', 'numba' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, str(index)], check=True, env=env, capture_output=True
    ).stdout.decode()
    body, _, flag = out.rpartition("NUMBA")
    assert flag.strip() == "False"
    from docqa import Collection

    want = Collection.open(index).retriever("hybrid").search("beta gamma", 5)
    got = json.loads(body)["hits"]
    assert len(got) >= 2
    assert [(h["id"], h["components"]) for h in got] == [
        (h.id, {n: {"score": c.score, "rank": c.rank} for n, c in h.components.items()})
        for h in want
    ]
