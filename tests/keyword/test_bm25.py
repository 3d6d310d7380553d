"""BM25Index against its plain-Python twin (``docqa.keyword.reference``), plus its edges.

Corpora come from tiny vocabularies so equal scores (ties) are common; words include stop
words, plurals, punctuation-joined terms and non-ASCII so the tokenizer settings matter.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa.errors import IndexCorrupt, InputError
from docqa.keyword import BM25Config, BM25Index, bm25
from docqa.keyword.reference import ReferenceBM25

WORDS = ["cat", "cats", "dog", "the", "a", "policies", "policy", "pg_dump", "Fc", "40001", "naïve"]
SEPARATORS = [" ", "  ", ", ", "-", "\n", ". "]


PIECES = [w + s for w in [*WORDS, "zebra"] for s in SEPARATORS]


def texts(max_words: int = 7) -> st.SearchStrategy[str]:
    """Texts of up to ``max_words`` words (one draw per word: drawing is the slow part)."""
    pieces = st.lists(st.integers(0, len(PIECES) - 1), max_size=max_words)
    return pieces.map(lambda picks: "".join(PIECES[i] for i in picks))


@st.composite
def cases(draw: st.DrawFn) -> dict:
    corpus = draw(st.lists(texts(), min_size=1, max_size=12))
    n = len(corpus)
    mask_kind = draw(st.sampled_from(["none", "bool", "ids"]))
    allowed = draw(st.lists(st.integers(0, n - 1), max_size=n))
    mask = None
    if mask_kind == "bool":
        mask = np.zeros(n, dtype=bool)
        mask[allowed] = True
    elif mask_kind == "ids":
        mask = np.array(allowed, dtype=np.int64)
    return {
        "corpus": corpus,
        "queries": draw(st.lists(texts(max_words=4), max_size=4)),
        "k": draw(st.integers(0, n + 3)),
        "mask": mask,
        "allowed": None if mask is None else sorted(set(allowed)),
        "params": {
            "k1": draw(st.sampled_from([0.0, 1.2, 1.5])),
            "b": draw(st.sampled_from([0.0, 0.75, 1.0])),
            "stop_words": draw(st.booleans()),
            "fold_plurals": draw(st.booleans()),
        },
    }


# Every query scored by the row-tracking, pruning path (0), the default split, or densely.
PATHS = pytest.mark.parametrize("dense_share", [0, bm25.DENSE_SHARE, 1 << 40])


@contextmanager
def scoring_path(dense_share: int) -> Iterator[None]:
    before = bm25.DENSE_SHARE
    bm25.DENSE_SHARE = dense_share
    try:
        yield
    finally:
        bm25.DENSE_SHARE = before


def assert_same(got: tuple, want: tuple) -> None:
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5)
    assert got[0].dtype == np.float32 and got[1].dtype == np.int64


@PATHS
@given(case=cases())
def test_search_equals_reference(case: dict, dense_share: int) -> None:
    index = BM25Index.from_texts(case["corpus"], batch_size=3, **case["params"])
    ref = ReferenceBM25(case["corpus"], **case["params"])
    with scoring_path(dense_share):
        got = index.search(case["queries"], case["k"], mask=case["mask"])
    assert got.scores.shape == (len(case["queries"]), min(case["k"], len(case["corpus"])))
    assert_same(got, ref.search(case["queries"], case["k"], allowed=case["allowed"]))


@settings(max_examples=50)
@given(cases())
def test_batch_equals_one_by_one_and_threads_agree(case: dict) -> None:
    index = BM25Index.from_texts(case["corpus"], **case["params"])
    queries, k = case["queries"] + ["cat dog"], case["k"]
    batch = index.search(queries, k, mask=case["mask"], n_threads=2)
    single = [index.search([q], k, mask=case["mask"], n_threads=1) for q in queries]
    assert_same(batch, (np.vstack([s[0] for s in single]), np.vstack([s[1] for s in single])))


@settings(max_examples=50)
@given(cases())
def test_max_scores_equal_reference_and_bound_scores(case: dict) -> None:
    index = BM25Index.from_texts(case["corpus"], **case["params"])
    ref = ReferenceBM25(case["corpus"], **case["params"])
    bounds = index.max_scores(case["queries"])
    want = [ref.max_score(q) for q in case["queries"]]
    np.testing.assert_allclose(bounds, want, rtol=1e-12)
    best = index.search(case["queries"], 1).scores[:, 0]
    assert np.all(best < np.float32(bounds) * (1 + 1e-6))


@PATHS
@settings(max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), k=st.sampled_from([1, 3, 10]))
def test_pruned_search_equals_reference_on_skewed_corpora(
    seed: int, k: int, dense_share: int
) -> None:
    # Zipf-like word frequencies: a rare query term usually settles the top k early, so the
    # kernel stops taking new rows and adds the common terms to the surviving rows only
    # (by binary search or by a filtered scan); scores must not change.
    rng = np.random.default_rng(seed)
    corpus = [
        " ".join(f"w{z}" for z in rng.zipf(1.3, rng.integers(1, 30)) % 400) for _ in range(150)
    ]
    queries = [
        " ".join(f"w{z}" for z in rng.zipf(1.3, rng.integers(1, 6)) % 400) for _ in range(15)
    ]
    queries += ["w1 w2 w3 w397", "w0 w1"]
    mask = rng.random(150) < 0.7
    ref = ReferenceBM25(corpus)
    index = BM25Index.from_texts(corpus)
    with scoring_path(dense_share):
        assert_same(index.search(queries, k), ref.search(queries, k))
        assert_same(
            index.search(queries, k, mask=mask),
            ref.search(queries, k, allowed=np.flatnonzero(mask)),
        )


@scoring_path(0)  # the pruning needs the row-tracking path
def test_pruning_paths_by_construction() -> None:
    # "rare" alone outscores anything "common" can add: after it, no new row can enter.
    few = ["rare common", "rare", *["common filler"] * 100]  # 2 survivors: binary search
    queries = ["common rare", "rare"]
    assert_same(BM25Index.from_texts(few).search(queries, 1), ReferenceBM25(few).search(queries, 1))
    many = [f"rare common x{i}" for i in range(10)] + ["common"] * 30  # 10 survivors: scan
    assert_same(
        BM25Index.from_texts(many).search(queries, 4), ReferenceBM25(many).search(queries, 4)
    )


def test_growing_vocabulary_across_batches_equals_reference() -> None:
    # 3,000 distinct terms: the intern table (1,024 slots at first) grows several times.
    corpus = [" ".join(f"w{(i * 10 + j) % 3000}" for j in range(40)) for i in range(300)]
    queries = ["w1 w2 w2999", "w1500", "w0 w10 w20 w39", "nothing"]
    index = BM25Index.from_texts(iter(corpus), batch_size=17)
    assert index.n_terms == 3000
    assert_same(index.search(queries, 5), ReferenceBM25(corpus).search(queries, 5))
    whole = BM25Index.from_texts(corpus, batch_size=10_000).to_arrays()
    prefetched = BM25Index.from_texts((t for t in corpus), batch_size=7, n_threads=2).to_arrays()
    for name, array in index.to_arrays().items():
        np.testing.assert_array_equal(array, whole[name], err_msg=name)
        np.testing.assert_array_equal(array, prefetched[name], err_msg=name)


def test_padding_k_zero_and_queries_without_terms() -> None:
    index = BM25Index.from_texts(["cat dog", "dog", "the cat"])
    scores, ids = index.search(["dog", "the of and", "", "unknownword"], 5)
    assert ids.tolist() == [[1, 0, -1]] + [[-1] * 3] * 3  # k is clamped to the 3 rows
    assert np.isneginf(scores[0, 2:]).all() and np.isneginf(scores[1:]).all()
    assert scores[0, 0] > scores[0, 1] > 0
    empty = index.search(["dog"], 0)
    assert empty.scores.shape == (1, 0) and empty.ids.shape == (1, 0)
    none = index.search([], 3)
    assert none.scores.shape == (0, 3) and none.ids.dtype == np.int64


def test_repeated_query_term_counts_once() -> None:
    index = BM25Index.from_texts(["cat", "dog cat", "dog"])
    once, twice = index.search(["cat dog"], 3), index.search(["cat dog cat cats"], 3)
    assert_same(twice, once)


def test_mask_keeps_original_ids() -> None:
    index = BM25Index.from_texts(["cat", "cat cat", "dog", "cat dog"])
    by_ids = index.search(["cat"], 3, mask=np.array([3, 0, 3]))
    by_bool = index.search(["cat"], 3, mask=np.array([True, False, False, True]))
    assert by_ids.ids.tolist() == by_bool.ids.tolist()
    assert set(by_ids.ids[0, :2].tolist()) == {0, 3} and by_ids.ids[0, 2] == -1
    assert index.search(["cat"], 2, mask=np.array([], dtype=np.int64)).ids.tolist() == [[-1, -1]]


@pytest.mark.parametrize(
    ("term", "query"),
    [
        ("max_connections", "How do I raise max_connections?"),
        ("40001", "what does error 40001 mean"),
        ("pg_dump", "pg_dump"),
        ("-Fc", "what is the -Fc flag"),
    ],
)
def test_exact_terms_are_found(term: str, query: str) -> None:
    # The tokenizer splits on non-alphanumerics: max_connections -> max, connection;
    # pg_dump -> pg, dump; -Fc -> fc; 40001 stays. The chunk naming the term must still win
    # over chunks that share only part of it.
    distractors = [
        "The maximum number of connections is set in the configuration file.",
        "Use dump and restore tools to back up a database; a dump file is portable.",
        "Error codes are five characters; class 40 covers transaction rollback such as 40P01.",
        "Flags change the output format; the custom format is compressed.",
        "Connections are refused when the server is at full capacity; max out the pool.",
        "Run pg_restore to load an archive made by a dump program.",
    ]
    corpus = [*distractors, f"Reference: {term} is documented here in detail.", *distractors]
    ids = BM25Index.from_texts(corpus).search([query], 1).ids
    assert ids.tolist() == [[len(distractors)]]


def test_joined_terms_match_their_parts_in_prose() -> None:
    # Known limit of the tokenizer (it keeps only alphanumeric runs): `max_connections` and
    # "max connections" are the same terms, so BM25 cannot prefer the exact option name.
    index = BM25Index.from_texts(["set max connections high", "set max_connections high"])
    scores, ids = index.search(["max_connections"], 2)
    assert ids.tolist() == [[0, 1]] and scores[0, 0] == scores[0, 1]


def test_round_trip_through_read_only_memory_maps(tmp_path) -> None:
    corpus = ["cat dog", "the policies", "pg_dump -Fc", "dog dog dog", ""]
    config = BM25Config(k1=1.2, b=0.5, stop_words=False, fold_plurals=False)
    index = BM25Index.from_texts(corpus, **config.to_dict())
    maps = {}
    for name, array in index.to_arrays().items():
        np.save(tmp_path / f"{name}.npy", array)
        maps[name] = np.load(tmp_path / f"{name}.npy", mmap_mode="r")
        assert not maps[name].flags.writeable
    again = BM25Index.from_arrays(maps, config.to_dict())
    assert again.config == config
    queries = ["dog the", "policies", "pg_dump", "cat"]
    assert_same(
        again.search(queries, 4, mask=np.array([0, 2, 3])),
        index.search(queries, 4, mask=np.array([0, 2, 3])),
    )
    assert_same(
        again.search(queries, 4), ReferenceBM25(corpus, **config.to_dict()).search(queries, 4)
    )


def test_from_arrays_rejects_broken_arrays() -> None:
    arrays = BM25Index.from_texts(["cat dog", "dog"]).to_arrays()
    with pytest.raises(IndexCorrupt, match="bm25_tf"):
        BM25Index.from_arrays({n: a for n, a in arrays.items() if n != "bm25_tf"}, BM25Config())
    with pytest.raises(IndexCorrupt, match="bm25_rows"):
        BM25Index.from_arrays({**arrays, "bm25_rows": arrays["bm25_rows"].astype(np.int64)}, {})
    with pytest.raises(IndexCorrupt, match="inconsistent"):
        BM25Index.from_arrays({**arrays, "bm25_rows": arrays["bm25_rows"] + 5}, {})
    with pytest.raises(IndexCorrupt, match="unknown keys"):
        BM25Index.from_arrays(arrays, {"k1": 1.0, "stemmer": "porter"})


def test_bad_arguments_raise_input_errors() -> None:
    index = BM25Index.from_texts(["cat", "dog"])
    with pytest.raises(InputError, match="wrap it in a list"):
        index.search("cat", 1)
    with pytest.raises(InputError, match="k must be"):
        index.search(["cat"], -1)
    with pytest.raises(InputError, match=r"must have shape \(2,\) \(one per row\), got \(3,\)"):
        index.search(["cat"], 1, mask=np.ones(3, dtype=bool))
    with pytest.raises(InputError, match=r"mask row id 2 is outside 0..1"):
        index.search(["cat"], 1, mask=np.array([2]))
    with pytest.raises(InputError, match="n_threads"):
        index.search(["cat"], 1, n_threads=0)
    with pytest.raises(InputError, match="no texts"):
        BM25Index.from_texts([])
    with pytest.raises(InputError, match="must all be str"):
        BM25Index.from_texts(["cat", b"dog"])  # type: ignore[list-item]
    with pytest.raises(InputError, match="n_threads must be"):
        BM25Index.from_texts(["cat"], n_threads=0)
    with pytest.raises(InputError, match="must all be str"):
        BM25Index.from_texts(["cat", "dog", None], batch_size=2, n_threads=2)  # type: ignore[list-item]
    with pytest.raises(InputError, match="b must be"):
        BM25Index.from_texts(["cat"], b=1.5)
    with pytest.raises(InputError, match="k1 must be"):
        BM25Config(k1=-1.0)


def test_custom_stop_words_are_used_recorded_and_restored() -> None:
    texts = ["the library opens at nine", "library cards are free", "opens late on friday"]
    index = BM25Index.from_texts(texts, stop_words=["library", "the"])
    assert index.config.stop_words == frozenset({"library", "the"})
    # "library" is a stop word now: a query of it alone finds nothing, "opens" still does
    assert index.search(["library"], 3).ids.tolist() == [[-1, -1, -1]]
    assert index.search(["opens"], 3).ids[0, :2].tolist() == [0, 2]
    data = index.config.to_dict()
    assert data["stop_words"] == ["library", "the"]
    again = BM25Index.from_arrays(index.to_arrays(), data)
    assert again.config == index.config
    got, want = again.search(["library opens"], 3), index.search(["library opens"], 3)
    assert got.ids.tolist() == want.ids.tolist() == [[0, 2, -1]]
    assert got.scores.tolist() == want.scores.tolist()


def test_bad_stop_words_are_refused_with_the_shared_message() -> None:
    with pytest.raises(TypeError, match=r"wrap it in a list: \['the'\]"):
        BM25Index.from_texts(["a b"], stop_words="the")
    with pytest.raises(InputError, match="stop words must be non-empty str, got ''"):
        BM25Index.from_texts(["a b"], stop_words=["the", ""])


def test_search_with_the_queries_hashes_given_is_the_same_search() -> None:
    texts = ["loan periods are three weeks", "renew loans online", "fines for late books"]
    index = BM25Index.from_texts(texts, stop_words=True, fold_plurals=True)
    queries = ["How long are loans?", "late fines", "nothing known here"]
    plain = index.search(queries, 3)
    reused = index.search(queries, 3, hashed=index.query_hashes(queries))
    assert np.array_equal(plain.ids, reused.ids) and np.array_equal(plain.scores, reused.scores)
    one = index.search(queries[:1], 2, hashed=index.query_hashes(queries[:1]))
    assert np.array_equal(one.ids, plain.ids[:1, :2])
    with pytest.raises(InputError, match="wrap it in a list"):
        index.query_hashes("one str")


TERMS = ["ant", "bee", "cat", "dog", "eel", "fox"]


@settings(max_examples=100, deadline=None)
@given(
    texts=st.lists(st.lists(st.sampled_from(TERMS[:5])).map(" ".join), min_size=1, max_size=12),
    question=st.lists(st.sampled_from(TERMS)).map(" ".join),
)
def test_term_order_is_the_order_the_kernels_add_weights(texts: list[str], question: str) -> None:
    """``term_order`` (what a store sums in SQL) equals ``kernels._sorted_terms``."""
    from docqa.keyword import kernels

    index = BM25Index.from_texts(texts, stop_words=False, fold_plurals=False)
    _, ids, _ = index._query_terms([question])
    out = np.zeros(max(ids.size, 1), dtype=np.int64)
    n = kernels._sorted_terms(ids, 0, ids.size, index.indptr, out)
    assert index.term_order(question).tolist() == out[:n].tolist()
