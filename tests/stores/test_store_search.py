"""Searching a store: exact dense = docqa's exact top-k (ties and rounding included), HNSW
recall, keyword = the reference BM25 of the rows' keyword texts, tenants and masks."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from store_helpers import TableEmbedder, fill, fill_texts, row_ids

from docqa.errors import InputError
from docqa.keyword.reference import ReferenceBM25
from docqa.search import topk
from docqa.search.reference import canonical_scores
from docqa.stores import sql as q
from docqa.stores.pgvector import PgVectorStore
from docqa.stores.rows import upsert
from docqa.stores.search import dense_slack
from docqa.text import keyword_text

DB = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _search(store: PgVectorStore, emb: TableEmbedder, query: np.ndarray, k: int, **kw: Any) -> Any:
    emb.table["q"] = query
    return store.retriever("dense", embedder=emb, guard=False, **kw).search("q", k)


@DB
@given(
    data=st.data(),
    n=st.integers(0, 40),
    d=st.integers(1, 6),
)
def test_exact_dense_equals_docqa_exact_topk_ties_included(
    db_url: str, data: st.DataObject, n: int, d: int
) -> None:
    """Small integer components: every inner product is exact in float32, so scores must be
    equal and ties (plentiful) broken by row id ascending in both."""
    ints = st.integers(-2, 2)
    matrix = np.array(
        data.draw(st.lists(st.lists(ints, min_size=d, max_size=d), min_size=n, max_size=n)),
        dtype=np.float32,
    ).reshape(n, d)
    query = np.array(data.draw(st.lists(ints, min_size=d, max_size=d)), dtype=np.float32)
    tenants = data.draw(st.lists(st.sampled_from(["a", "b", None]), min_size=n, max_size=n))
    k = data.draw(st.integers(0, n + 3))
    store, record, _, emb = fill(db_url, matrix, tenants=tenants)
    with store:
        ids = np.array(row_ids(store, record), dtype=np.int64)
        for tenant in (None, "a"):
            allowed = None if tenant is None else np.array([t == tenant for t in tenants], bool)
            want = topk(matrix, query, k, mask=allowed)
            hits = _search(store, emb, query, k, tenant=tenant)
            real = want.ids[0] >= 0
            assert [h.row for h in hits] == ids[want.ids[0][real]].tolist()
            assert [h.score for h in hits] == want.scores[0][real].tolist()


def test_exact_dense_on_unit_vectors_matches_bit_for_bit(db_url: str) -> None:
    rng = np.random.default_rng(7)
    matrix = rng.standard_normal((500, 48)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    store, record, _, emb = fill(db_url, matrix)
    with store:
        ids = np.array(row_ids(store, record))
        for query in rng.standard_normal((10, 48)).astype(np.float32):
            want = topk(matrix, query, 10)
            hits = _search(store, emb, query, 10, tenant=None)
            assert [h.row for h in hits] == ids[want.ids[0]].tolist()
            assert [h.score for h in hits] == want.scores[0].tolist()


def test_exact_dense_breaks_rounding_ties_as_docqa_does(db_url: str) -> None:
    """Rows that are permutations of one vector and a constant query: every exact score is
    the same number, each float sum rounds it its own way. pgvector's own order differs from
    docqa's (checked, so the case is a real one); the store's hits are docqa's all the same."""
    rng = np.random.default_rng(11)
    base = rng.standard_normal(384).astype(np.float32)
    matrix = np.stack([rng.permutation(base) for _ in range(300)])
    query = np.full(384, 0.1, dtype=np.float32)
    store, record, _, emb = fill(db_url, matrix)
    with store:
        ids = np.array(row_ids(store, record))
        want = topk(matrix, query, 10)
        pg = store.conn.execute(
            "SELECT row_id FROM chunks WHERE collection_id = %s "
            "ORDER BY -(embedding <#> %s) DESC, row_id LIMIT 10",
            (record.collection_id, query),
        ).fetchall()
        assert [r for (r,) in pg] != ids[want.ids[0]].tolist()
        hits = _search(store, emb, query, 10, tenant=None)
        assert [h.row for h in hits] == ids[want.ids[0]].tolist()
        assert [h.score for h in hits] == want.scores[0].tolist()


def test_a_zero_query_fetches_only_the_first_k_rows(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every row ties at +0.0: the hits are the first k rows, and only they leave the server."""
    from docqa.stores.search import StoreRetriever

    matrix = np.random.default_rng(2).standard_normal((50, 8)).astype(np.float32)
    store, record, _, emb = fill(db_url, matrix)
    fetched: list[int] = []
    run = StoreRetriever._run

    def counting(self: StoreRetriever, query: Any, params: dict[str, Any]) -> list[Any]:
        found = run(self, query, params)
        fetched.append(len(found))
        return found

    monkeypatch.setattr(StoreRetriever, "_run", counting)
    with store:
        emb.table["q"] = np.zeros(8, np.float32)
        # the store's own search, under the layer that keeps each passage once (which asks
        # for more rows than k: docqa.retrieve.distinct.FETCH)
        hits = store.retriever("dense", embedder=emb, guard=False, tenant=None).inner.search("q", 5)
        assert [h.row for h in hits] == row_ids(store, record)[:5]
        assert [h.score for h in hits] == [0.0] * 5 and fetched == [5]


@pytest.mark.parametrize("dim", [1, 16, 384, 1536])
def test_dense_slack_bounds_pgvectors_distance_from_docqas_scores(db_url: str, dim: int) -> None:
    """Each row's pgvector score is within a quarter of the slack (times its norm) of the
    canonical score: the bound ``dense_slack`` is built from."""
    rng = np.random.default_rng(dim)
    matrix = (rng.standard_normal((200, dim)) * rng.uniform(0.1, 10, (200, 1))).astype(np.float32)
    query = rng.standard_normal(dim).astype(np.float32)
    store, record, _, _ = fill(db_url, matrix)
    with store:
        found = store.conn.execute(
            "SELECT -(embedding <#> %s) FROM chunks WHERE collection_id = %s ORDER BY row_id",
            (query, record.collection_id),
        ).fetchall()
    pg = np.array([s for (s,) in found])
    mine = canonical_scores(matrix, query).astype(np.float64)
    norms = np.linalg.norm(matrix.astype(np.float64), axis=1)
    assert (np.abs(pg - mine) <= dense_slack(dim, query) / 4 * norms).all()


@pytest.mark.parametrize("dim", [1, 16, 384])
def test_max_norm_bounds_every_rows_norm_through_writes_and_deletes(db_url: str, dim: int) -> None:
    """``collections.max_norm`` (exact dense search's M) is at least pgvector's norm of every
    row, tight to a part in 2^30, after each batch, and stays a bound when rows go."""
    rng = np.random.default_rng(dim)
    batches = [
        (rng.standard_normal((50, dim)) * rng.uniform(0.01, 100, (50, 1))).astype(np.float32)
        for _ in range(3)
    ]
    store, record, chunks, _ = fill(db_url, batches[0])
    with store:
        cid = record.collection_id
        for i, more in enumerate(batches[1:], start=1):
            extra = [replace(c, id=f"{c.id}-{i}") for c in chunks]
            upsert(store, record, extra, more)
        bound, largest = store.conn.execute(
            "SELECT max_norm, (SELECT max(vector_norm(embedding)) FROM chunks WHERE "
            "collection_id = %s) FROM collections WHERE collection_id = %s",
            (cid, cid),
        ).fetchone()
        assert largest <= bound <= largest * (1 + 2.0**-30)
        store.conn.execute(
            "DELETE FROM chunks WHERE row_id = (SELECT row_id FROM chunks WHERE "
            "collection_id = %s ORDER BY vector_norm(embedding) DESC LIMIT 1)",
            (cid,),
        )
        after = store.conn.execute(
            "SELECT max_norm, (SELECT max(vector_norm(embedding)) FROM chunks WHERE "
            "collection_id = %s) FROM collections WHERE collection_id = %s",
            (cid, cid),
        ).fetchone()
        assert after[0] == bound and after[1] < largest


def test_hnsw_recall_and_plans(db_url: str) -> None:
    """The HNSW query goes through the collection's index, the exact one never does; recall@10
    against docqa's exact search is high at ef_search 100."""
    from docqa.stores.load import create_hnsw

    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((3000, 32)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    store, record, _, emb = fill(db_url, matrix)
    with store:
        create_hnsw(store, record)
        ids = np.array(row_ids(store, record))
        where = q.filters(record.collection_id, tenant=False, rows=False)
        params = {"q": matrix[0], "k": 10}

        def plan(query: Any) -> str:
            explain = b"EXPLAIN " + query.as_bytes(store.conn)
            return " ".join(r for (r,) in store.conn.execute(explain, params))

        assert f"chunks_hnsw_{record.collection_id}" in plan(q.hnsw_query(where, record.dim))
        params.update(slack=0.0, limit=None)
        assert "hnsw" not in plan(q.dense_candidates(where, record.collection_id))
        found = 0
        queries = rng.standard_normal((30, 32)).astype(np.float32)
        for query in queries:
            want = set(ids[topk(matrix, query, 10).ids[0]].tolist())
            found += len(
                want & {h.row for h in _search(store, emb, query, 10, tenant=None, ef_search=100)}
            )
    assert found / (10 * len(queries)) >= 0.9


WORDS = ["loan", "fine", "renewal", "card", "garden", "rose", "room", "book", "late", "nine"]
TEXTS = [
    " ".join(WORDS[(i * 7 + j * 3) % len(WORDS)] for j in range(1 + i % 5)) + f" item{i}"
    for i in range(80)
]
question = st.lists(
    st.sampled_from([*WORDS, "the", "of", "zebra", "item3", "RNW-409"]), min_size=1, max_size=5
).map(" ".join)


@DB
@given(
    tenants=st.lists(
        st.sampled_from(["red", "blue", "green", None]), min_size=len(TEXTS), max_size=len(TEXTS)
    ),
    questions=st.lists(question, min_size=1, max_size=3),
    tenant=st.sampled_from(["red", "blue", "nobody"]),
    k=st.integers(1, 12),
)
def test_tenant_isolation_in_every_mode(
    db_url: str, tenants: list[str | None], questions: list[str], tenant: str, k: int
) -> None:
    """No hit ever comes from another tenant: dense exact and HNSW, keyword, hybrid (both)."""
    store, _, chunks = fill_texts(db_url, TEXTS, tenants)
    owner = {c.id: t for c, t in zip(chunks, tenants, strict=True)}
    mine = sum(t == tenant for t in tenants)
    with store:
        for mode in ("dense", "keyword", "hybrid"):
            for ef in (None, 40):
                retriever = store.retriever(mode, tenant=tenant, ef_search=ef, guard=False)
                for text in questions:
                    hits = retriever.search(text, k)
                    assert all(owner[h.id] == tenant for h in hits), (mode, ef, text)
                    assert all(
                        h.chunk is not None and h.chunk.metadata.get("tenant") == tenant
                        for h in hits
                    )
                    if mode == "dense":
                        assert len(hits) == min(k, mine)


@DB
@given(text=question, k=st.integers(1, 12), tenant=st.sampled_from([None, "red"]))
def test_keyword_equals_the_reference_bm25_of_the_keyword_rows(
    db_url: str, text: str, k: int, tenant: str | None
) -> None:
    """The store's BM25 against ``ReferenceBM25`` (plain Python, string tokens) over every
    row's ``keyword_text``: the same hits, scores equal as float32, canonical order; the
    statistics are the collection's whatever the tenant."""
    tenants = ["red" if i % 3 else None for i in range(len(TEXTS))]
    store, record, chunks = fill_texts(db_url, TEXTS, tenants)
    reference = ReferenceBM25([keyword_text(c) for c in chunks])
    allowed = [i for i, t in enumerate(tenants) if tenant is None or t == tenant]
    want = reference.search([text], k, allowed=allowed)
    with store:
        ids = row_ids(store, record)
        hits = store.retriever("keyword", tenant=tenant, guard=False).search(text, k)
    real = want.ids[0] >= 0
    assert [h.row for h in hits] == [ids[i] for i in want.ids[0][real]]
    assert [h.score for h in hits] == want.scores[0][real].tolist()


@DB
@given(text=st.text(max_size=40))
@example(text="a\x00b 'x' & y | !z :* \\ (")
def test_keyword_search_takes_any_question_text(db_url: str, text: str) -> None:
    """Quotes, operators, NUL and non-ASCII reach the SQL as a bound parameter, never as syntax."""
    store, _, _ = fill_texts(db_url, TEXTS, [None] * len(TEXTS))
    with store:
        for mode in ("keyword", "hybrid"):
            hits = store.retriever(mode, tenant=None, guard=False).search(text, 5)
            assert len(hits) <= 5


def test_keyword_takes_any_of_the_question_words(db_url: str) -> None:
    store, _, chunks = fill_texts(db_url, TEXTS, [None] * len(TEXTS))
    with store:
        kw = store.retriever("keyword", tenant=None, guard=False)
        assert kw.search("the of and", 5) == []
        assert kw.search("zebra", 5) == []
        hits = kw.search("zebra item3", 5)
        assert [h.id for h in hits] == [chunks[3].id]
        assert hits[0].score > 0


def test_masks_restrict_to_row_ids_and_bool_masks_are_refused(db_url: str) -> None:
    store, record, _, emb = fill(db_url, np.eye(6, dtype=np.float32))
    with store:
        ids = row_ids(store, record)
        hits = _search(store, emb, np.ones(6, np.float32), 6, tenant=None)
        assert sorted(h.row for h in hits) == ids
        emb.table["q"] = np.ones(6, np.float32)
        retriever = store.retriever("dense", tenant=None, embedder=emb, guard=False)
        assert sorted(h.row for h in retriever.search("q", 6, mask=np.array(ids[:2]))) == ids[:2]
        assert retriever.search("q", 6, mask=np.array([], dtype=np.int64)) == []
        with pytest.raises(InputError, match="row ids"):
            retriever.search("q", 6, mask=np.ones(6, dtype=bool))
        with pytest.raises(InputError, match="ef_search"):
            store.retriever("dense", tenant=None, embedder=emb, ef_search=0)
        with pytest.raises(InputError, match="tenant must be a non-empty str"):
            store.retriever("dense", tenant="", embedder=emb)
        with pytest.raises(InputError, match="unknown mode"):
            store.retriever("fuzzy", tenant=None)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_batch_with_a_vector_not_finite_is_refused_whole(db_url: str, bad: float) -> None:
    matrix = np.ones((4, 8), np.float32)
    store, record, chunks, _ = fill(db_url, matrix)
    with store:
        more = np.ones((3, 8), np.float32)
        more[1, 5] = bad
        extra = [replace(c, id=f"{c.id}-new") for c in chunks[:3]]
        with pytest.raises(InputError, match=f"chunk '{extra[1].id}' holds NaN or inf"):
            upsert(store, record, extra, more)
        (count,) = store.conn.execute(
            "SELECT count(*) FROM chunks WHERE collection_id = %s", (record.collection_id,)
        ).fetchone()
        assert count == 4  # nothing of the batch was written
