"""The MiniLM embedder against sentence-transformers' fp32 vectors (committed, produced once by
``tests/embed/data/minilm_reference.json``'s producer), its NumPy twin, and the tokenizer on
tricky Unicode against the pure-Python BertTokenizer's ids."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from docqa.embed import from_config
from docqa.embed.bert import forward, load_weights
from docqa.embed.minilm import MAX_TOKENS, WEIGHTS_SHA256, MiniLMEmbedder, length_batches
from docqa.errors import EmbedderMismatch, InputError

DATA = Path(__file__).parent / "data" / "minilm_reference.json"


@cache
def reference() -> dict[str, Any]:
    return json.loads(DATA.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@cache
def embedder(precision: str) -> MiniLMEmbedder:
    return MiniLMEmbedder(precision=precision, n_threads=1)


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)


def test_the_packaged_weights_are_the_pinned_upstream_file() -> None:
    emb = embedder("fp32")
    assert emb.weights_sha256 == WEIGHTS_SHA256
    config = emb.config()
    assert config["weights_sha256"] == WEIGHTS_SHA256 and config["max_tokens"] == 256
    assert emb.name == "minilm-l6-v2-fp32-v2" and emb.dim == 384


def test_fp32_graph_equals_sentence_transformers() -> None:
    ref = np.array(reference()["vectors"], dtype=np.float32)
    out = embedder("fp32").embed(reference()["texts"])
    assert out.shape == (6, 384) and out.dtype == np.float32 and out.flags.c_contiguous
    assert _cosines(out, ref).min() > 0.99999
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)


def test_int8_graph_stays_close_to_sentence_transformers() -> None:
    ref = np.array(reference()["vectors"], dtype=np.float32)
    out = embedder("int8").embed(reference()["texts"])
    assert _cosines(out, ref).min() >= 0.99


def test_numpy_twin_equals_the_graph() -> None:
    emb = embedder("fp32")
    texts = reference()["texts"][:4]
    ids = emb.encode(texts)
    width = max(map(len, ids))
    tokens = np.zeros((len(ids), width), np.int64)
    mask = np.zeros_like(tokens)
    for row, i in enumerate(ids):
        tokens[row, : len(i)], mask[row, : len(i)] = i, 1
    twin = forward(load_weights(emb.directory / "model.safetensors"), tokens, mask)
    ref = np.array(reference()["vectors"][:4], dtype=np.float32)
    assert _cosines(twin, ref).min() > 0.99999
    np.testing.assert_allclose(twin, emb.embed(texts), atol=2e-5)


@pytest.mark.parametrize("precision", ["int8", "fp32"])
def test_padding_and_batching_do_not_change_a_row(precision: str) -> None:
    """A text's vector is its own: embedded alone, padded in a batch of longer texts, or
    beside very different ones (int8 quantizes each token by its own range)."""
    emb = MiniLMEmbedder(precision=precision, n_threads=1, batch_tokens=64)
    texts = reference()["texts"]
    together = emb.embed(texts)
    alone = np.concatenate([emb.embed([t]) for t in texts])
    np.testing.assert_allclose(together, alone, atol=2e-5)
    loud = "ZZZZ 0xFFFFFFFF " * 30  # activations far wider than the others'
    beside = emb.embed([texts[0], loud])[0]
    np.testing.assert_allclose(beside, alone[0], atol=2e-5)
    assert emb.embed([]).shape == (0, 384)


def test_tokenizer_matches_the_reference_wordpiece_on_tricky_unicode() -> None:
    ids = embedder("fp32").encode(reference()["tricky"])
    assert ids == reference()["tricky_ids"]


def test_long_texts_are_cut_at_256_word_pieces() -> None:
    emb = embedder("fp32")
    (ids,) = emb.encode([" ".join(["library"] * 600)])
    assert len(ids) == MAX_TOKENS and ids[-1] == 102  # [SEP] kept at the end
    head = emb.embed([" ".join(["library"] * 300)])
    np.testing.assert_allclose(head, emb.embed([" ".join(["library"] * 600)]), atol=1e-6)


def test_length_batches_cover_every_text_once_within_the_budget() -> None:
    lengths = [5, 300, 2, 2, 40, 41, 7, 1]
    batches = list(length_batches(lengths, 80))
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for b in batches:
        widest = max(lengths[i] for i in b)
        assert len(b) == 1 or len(b) * widest <= 80
    flat = [lengths[i] for b in batches for i in b]
    assert flat == sorted(flat)


def test_length_batches_keep_padding_small_when_lengths_vary() -> None:
    lengths = [7, 7, 8, 10, 11, 13, 14, 16, 18, 19, 19, 24, 25, 30, 31, 37, 41, 114]
    batches = list(length_batches(lengths, 4096))
    padded = sum(len(b) * max(lengths[i] for i in b) for b in batches)
    assert padded <= 1.3 * sum(lengths)  # one batch padded to 114 would be 4.6x
    for b in batches:
        assert max(lengths[i] for i in b) <= 1.5 * min(lengths[i] for i in b) + 8
    assert [len(b) for b in length_batches([50] * 100, 4096)] == [81, 19]  # the budget


def test_config_round_trip_and_weights_mismatch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    emb = embedder("int8")
    again = from_config(emb.config())
    assert isinstance(again, MiniLMEmbedder) and again.config() == emb.config()
    changed = {**emb.config(), "weights_sha256": "0" * 64}
    with pytest.raises(EmbedderMismatch, match="0000.*" + WEIGHTS_SHA256[:12]):
        from_config(changed)
    monkeypatch.setenv("DOCQA_MINILM_DIR", str(tmp_path))
    with pytest.raises(InputError, match="model.safetensors is missing"):
        from_config(emb.config())


def test_bad_arguments_are_clear() -> None:
    with pytest.raises(InputError, match="precision"):
        MiniLMEmbedder(precision="fp16")
    with pytest.raises(TypeError, match="wrap it in a list"):
        embedder("int8").embed("one string")  # type: ignore[arg-type]


def test_a_cached_graph_embeds_exactly_as_a_fresh_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docqa.embed import minilm

    monkeypatch.setenv("DOCQA_CACHE_DIR", str(tmp_path))
    texts = reference()["texts"]
    minilm._session.cache_clear()  # a new process, as far as sessions go
    fresh = MiniLMEmbedder(precision="int8", n_threads=1).embed(texts)
    assert sorted(p.suffixes[-1] for p in (tmp_path / "models").glob("minilm-*")) == [
        ".onnx",
        ".onnx",
    ]
    from docqa.embed import bert_onnx

    def not_again(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("the graph was built again")

    monkeypatch.setattr(bert_onnx, "build_graph", not_again)
    minilm._session.cache_clear()
    again = MiniLMEmbedder(precision="int8", n_threads=1)
    np.testing.assert_array_equal(again.embed(texts), fresh)
    np.testing.assert_array_equal(fresh, embedder("int8").embed(texts))


def test_copies_of_the_embedder_share_one_session_per_process() -> None:
    import pickle

    emb = MiniLMEmbedder(precision="int8", n_threads=1)
    first = emb.embed(["one text"])
    copy = pickle.loads(pickle.dumps(emb))  # what a build's worker receives with each task
    assert "session" not in copy.__dict__
    np.testing.assert_array_equal(copy.embed(["one text"]), first)
    assert copy.session is emb.session
    assert MiniLMEmbedder(precision="int8", n_threads=2).session is not emb.session


@pytest.mark.parametrize("precision", ["int8", "fp32"])
def test_the_thread_count_never_changes_a_row(precision: str) -> None:
    """A build's workers run MiniLM on their share of the cores: the index must not depend on
    how many there are."""
    texts = reference()["texts"]
    one = MiniLMEmbedder(precision=precision, n_threads=1).embed(texts)
    np.testing.assert_array_equal(
        MiniLMEmbedder(precision=precision, n_threads=2).embed(texts), one
    )
