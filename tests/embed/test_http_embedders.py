"""The HTTP embedders against a loopback stand-in that checks what they send."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from embed_standin import EmbedStandIn, vector_of

from docqa.embed import from_config
from docqa.embed.http import OllamaEmbedder, OpenAIEmbedder
from docqa.errors import ModelAuthError, ModelError, ModelRateLimited, ModelTimeout
from docqa.models.base import RetryPolicy


@pytest.fixture
def server() -> Iterator[EmbedStandIn]:
    standin = EmbedStandIn()
    yield standin
    standin.stop()


def _unit(text: str) -> np.ndarray:
    v = np.array(vector_of(text), dtype=np.float64)
    return (v / np.linalg.norm(v)).astype(np.float32)


def test_ollama_batches_prefixes_and_normalises(server: EmbedStandIn) -> None:
    emb = OllamaEmbedder(host=server.url, batch_size=3, concurrency=1)
    texts = [f"passage {i}" for i in range(7)]
    out = emb.embed(texts)
    assert out.shape == (7, 8) and out.dtype == np.float32
    assert [len(r.body["input"]) for r in server.requests] == [3, 3, 1]
    assert all(
        r.path == "/api/embed" and r.body["model"] == "nomic-embed-text" for r in server.requests
    )
    sent = [t for r in server.requests for t in r.body["input"]]
    assert sent == [f"search_document: passage {i}" for i in range(7)]
    np.testing.assert_allclose(
        out, np.stack([_unit("search_document: " + t) for t in texts]), rtol=1e-6
    )
    q = emb.embed(["how long is a loan?"], query=True)
    assert server.requests[-1].body["input"] == ["search_query: how long is a loan?"]
    assert np.linalg.norm(q[0]) == pytest.approx(1.0, abs=1e-6)


def test_ollama_model_from_env_without_nomic_prefixes(
    server: EmbedStandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", server.url)
    monkeypatch.setenv("OLLAMA_EMBED_MODEL", "mxbai-embed-large")
    emb = OllamaEmbedder()
    emb.embed(["a"], query=True)
    assert server.requests[0].body == {"model": "mxbai-embed-large", "input": ["a"]}
    assert emb.dim == 8 and emb.name == "ollama-mxbai-embed-large-v1"


def test_concurrency_never_above_the_bound(server: EmbedStandIn) -> None:
    server.delay = 0.05
    emb = OpenAIEmbedder("m", base_url=server.url, api_key="k", batch_size=2, concurrency=3)
    out = emb.embed([f"t{i}" for i in range(20)])
    assert len(server.requests) == 10
    assert 2 <= server.max_in_flight <= 3
    np.testing.assert_allclose(out, np.stack([_unit(f"t{i}") for i in range(20)]), rtol=1e-6)


def test_openai_request_shape_key_and_order(server: EmbedStandIn) -> None:
    emb = OpenAIEmbedder(
        "text-embedding-3-small", base_url=server.url + "/v1/", api_key="sk-test", dim=8
    )
    out = emb.embed(["first", "second", "third"])
    (req,) = server.requests
    assert req.path == "/v1/embeddings"
    assert req.headers["authorization"] == "Bearer sk-test"
    assert req.body == {
        "model": "text-embedding-3-small",
        "input": ["first", "second", "third"],
        "dimensions": 8,
    }
    np.testing.assert_allclose(
        out, np.stack([_unit(t) for t in ("first", "second", "third")]), rtol=1e-6
    )
    assert "sk-test" not in str(emb.config())


def test_retries_honour_retry_after(server: EmbedStandIn) -> None:
    slept: list[float] = []
    server.failures = [(429, "2"), (503, None)]
    policy = RetryPolicy(attempts=3, base_delay=0.25, sleep=slept.append)
    emb = OpenAIEmbedder("m", base_url=server.url, api_key="k", retry=policy)
    out = emb.embed(["x"])
    assert slept == [2.0, 0.5] and len(server.requests) == 3
    np.testing.assert_allclose(out[0], _unit("x"), rtol=1e-6)


def test_rate_limit_after_the_retries_is_a_clear_error(server: EmbedStandIn) -> None:
    server.failures = [(429, "1")] * 5
    policy = RetryPolicy(attempts=2, sleep=lambda s: None)
    emb = OpenAIEmbedder("m", base_url=server.url, api_key="k", retry=policy, dim=8)
    with pytest.raises(ModelRateLimited, match="rate limited"):
        emb.embed(["x"])
    assert len(server.requests) == 2


def test_auth_error_names_the_key_but_never_shows_it(server: EmbedStandIn) -> None:
    server.status, server.error_body = 401, "bad key sk-secret-123"
    emb = OpenAIEmbedder("m", base_url=server.url, api_key="sk-secret-123", dim=8)
    with pytest.raises(ModelAuthError) as info:
        emb.embed(["x"])
    assert "API key" in str(info.value) and "sk-secret-123" not in str(info.value)
    assert len(server.requests) == 1  # never retried


def test_unknown_model_is_reported(server: EmbedStandIn) -> None:
    server.status, server.error_body = (
        404,
        '{"error": "model \\"nope\\" not found, try pulling it first"}',
    )
    with pytest.raises(ModelError, match="does not know this model.*'nope'|'nope'.*does not know"):
        OllamaEmbedder("nope", host=server.url, dim=8).embed(["x"])


def test_timeout_is_a_model_timeout(server: EmbedStandIn) -> None:
    import httpx

    server.delay = 1.0
    emb = OpenAIEmbedder(
        "m", base_url=server.url, api_key="k", dim=8, http_client=httpx.Client(timeout=0.1)
    )
    with pytest.raises(ModelTimeout, match="no reply in time"):
        emb.embed(["x"])


def test_wrong_reply_shape_is_an_error(server: EmbedStandIn) -> None:
    emb = OpenAIEmbedder("m", base_url=server.url, api_key="k", dim=16)
    with pytest.raises(ModelError, match="width 8, expected 16"):
        emb.embed(["x"])


def test_unreachable_server_is_retried_then_reported() -> None:
    slept: list[float] = []
    emb = OllamaEmbedder(
        host="http://127.0.0.1:19001", dim=8, retry=RetryPolicy(attempts=2, sleep=slept.append)
    )
    with pytest.raises(ModelError, match="cannot reach"):
        emb.embed(["x"])
    assert len(slept) == 1


def test_config_round_trip_rebuilds_the_same_embedder(
    server: EmbedStandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", server.url)
    emb = OllamaEmbedder(dim=8)
    again = from_config(emb.config())
    assert isinstance(again, OllamaEmbedder) and again.config() == emb.config()
    np.testing.assert_array_equal(again.embed(["a"], query=True), emb.embed(["a"], query=True))


def test_empty_input_makes_no_request(server: EmbedStandIn) -> None:
    out = OllamaEmbedder(host=server.url, dim=8).embed([])
    assert out.shape == (0, 8) and not server.requests
