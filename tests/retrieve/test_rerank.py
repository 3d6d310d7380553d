"""Reranking: a tiny BERT cross-encoder built here (weights, config, tokenizer) loaded by the
real loading code, its onnxruntime scores against the NumPy twin, and the retriever wrapper."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from docqa_cli import docqa as run_docqa

from docqa.embed.bert import BertShape, cross_encoder_scores, load_weights
from docqa.errors import InputError
from docqa.retrieve.rerank import CrossEncoderReranker, RerankingRetriever, reorder
from docqa.types import Chunk, Component, Hit

WORDS = [
    "the",
    "a",
    "how",
    "long",
    "can",
    "i",
    "keep",
    "book",
    "books",
    "loan",
    "loans",
    "fine",
    "fines",
    "renew",
    "hold",
    "holds",
    "day",
    "days",
    "week",
    "weeks",
    "printer",
    "card",
]
SHAPE = BertShape(layers=2, hidden=32, heads=4, max_positions=64)


def tiny_cross_encoder(folder: Path, seed: int = 0) -> Path:
    """A 2-layer, 32-wide BertForSequenceClassification with random weights, saved as a
    Hugging Face folder (config.json, model.safetensors, tokenizer.json)."""
    from safetensors.numpy import save_file
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece

    rng = np.random.default_rng(seed)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS, "##s"]
    h, f = SHAPE.hidden, 4 * SHAPE.hidden

    def r(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.2).astype(np.float32)

    w = {
        "bert.embeddings.word_embeddings.weight": r(len(vocab), h),
        "bert.embeddings.position_embeddings.weight": r(SHAPE.max_positions, h),
        "bert.embeddings.token_type_embeddings.weight": r(2, h),
        "bert.embeddings.LayerNorm.weight": 1 + r(h), "bert.embeddings.LayerNorm.bias": r(h),
        "bert.pooler.dense.weight": r(h, h), "bert.pooler.dense.bias": r(h),
        "classifier.weight": r(1, h), "classifier.bias": r(1),
    }  # fmt: skip
    for i in range(SHAPE.layers):
        p = f"bert.encoder.layer.{i}."
        for name, (o, n) in {
            "attention.self.query": (h, h), "attention.self.key": (h, h),
            "attention.self.value": (h, h), "attention.output.dense": (h, h),
            "intermediate.dense": (f, h), "output.dense": (h, f),
        }.items():  # fmt: skip
            w[p + name + ".weight"], w[p + name + ".bias"] = r(o, n), r(o)
        for ln in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[p + ln + ".weight"], w[p + ln + ".bias"] = 1 + r(h), r(h)
    folder.mkdir(parents=True, exist_ok=True)
    save_file(w, str(folder / "model.safetensors"))
    config = {"architectures": ["BertForSequenceClassification"], "hidden_size": h,
              "num_hidden_layers": SHAPE.layers, "num_attention_heads": SHAPE.heads,
              "intermediate_size": f, "max_position_embeddings": SHAPE.max_positions,
              "layer_norm_eps": 1e-12, "vocab_size": len(vocab)}  # fmt: skip
    (folder / "config.json").write_text(json.dumps(config))
    tok = Tokenizer(WordPiece({t: i for i, t in enumerate(vocab)}, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", 2), ("[SEP]", 3)],
    )  # fmt: skip
    tok.save(str(folder / "tokenizer.json"))
    return folder


PASSAGES = [
    "Books can be kept for three weeks.",
    "The printer needs a card.",
    "Fines are charged per day for late books.",
    "You can renew a loan twice unless there is a hold.",
    "Zebra xylophone",  # unknown words only
]


def _hits(texts: list[str]) -> list[Hit]:
    out = []
    for i, t in enumerate(texts):
        chunk = Chunk(id=f"doc#s{i}-p0", section=f"doc#s{i}", heading_path=("Doc",), source="doc.md",
                      position=i, start_line=1, end_line=1, text=t, content_hash="")  # fmt: skip
        out.append(
            Hit(
                i,
                chunk.id,
                chunk.section,
                1.0 / (i + 1),
                {"keyword": Component(1.0 / (i + 1), i + 1)},
                chunk,
            )
        )
    return out


def test_onnx_scores_equal_the_numpy_twin(tmp_path: Path) -> None:
    folder = tiny_cross_encoder(tmp_path / "ce")
    ce = CrossEncoderReranker(folder, n_threads=1, batch_size=2)
    question = "How long can I keep a book?"
    got = ce.scores(question, PASSAGES)
    ids, types, mask = ce.encode(question, PASSAGES)
    assert (types[:, 0] == 0).all() and types.max() == 1  # question then passage
    want = cross_encoder_scores(load_weights(folder / "model.safetensors"), ids, types, mask, SHAPE)
    np.testing.assert_allclose(got, want, atol=1e-4)
    assert len(set(np.round(got, 5))) == len(PASSAGES)  # random weights still tell them apart
    alone = [ce.scores(question, [p])[0] for p in PASSAGES]
    np.testing.assert_allclose(got, alone, atol=1e-4)  # padding changes nothing


def test_reranking_retriever_orders_by_the_model(tmp_path: Path) -> None:
    ce = CrossEncoderReranker(tiny_cross_encoder(tmp_path / "ce"), n_threads=1)

    class Fixed:
        components = ("keyword",)

        def __init__(self) -> None:
            self.asked: list[int] = []

        def search(self, question: str, k: int, *, mask: np.ndarray | None = None) -> list[Hit]:
            self.asked.append(k)
            return _hits(PASSAGES)[:k]

    inner = Fixed()
    hits = RerankingRetriever(inner, ce, top_n=4).search("renew a loan", 2)
    assert inner.asked == [4] and len(hits) == 2
    scores = ce.scores("renew a loan", PASSAGES[:4])
    best = list(np.argsort(-scores, kind="stable")[:2])
    assert [h.row for h in hits] == best
    assert [h.components["rerank"].rank for h in hits] == [1, 2]
    assert hits[0].components["keyword"].rank == best[0] + 1  # earlier components kept
    assert hits[0].score == pytest.approx(float(scores[best[0]]), abs=1e-6)


def test_reorder_ties_keep_the_given_order() -> None:
    hits = _hits(["a", "b", "c"])
    assert [h.row for h in reorder(hits, [0.5, 0.9, 0.5])] == [1, 0, 2]
    with pytest.raises(ValueError, match="2 scores for 3 hits"):
        reorder(hits, [1.0, 2.0])


def test_bad_folders_are_clear(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is not a folder"):
        CrossEncoderReranker(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="has no model.safetensors"):
        CrossEncoderReranker(tmp_path / "empty")
    folder = tiny_cross_encoder(tmp_path / "ce")
    (folder / "config.json").write_text("{}")
    with pytest.raises(InputError, match="config.json"):
        CrossEncoderReranker(folder)
    with pytest.raises(InputError, match="top_n"):
        RerankingRetriever(object(), object(), top_n=0)  # type: ignore[arg-type]


def test_cli_search_with_a_reranker_folder(tmp_path: Path) -> None:
    import subprocess

    library = Path(__file__).resolve().parents[2] / "examples" / "library"
    folder = tiny_cross_encoder(tmp_path / "ce")
    index = str(tmp_path / "index")

    def docqa(*args: str) -> subprocess.CompletedProcess[str]:
        return run_docqa(*args, cwd=tmp_path, timeout=300)

    assert docqa("index", str(library), "--index", index).returncode == 0
    plain = json.loads(
        docqa("search", "renew a loan", "--index", index, "--no-guard", "-k", "8", "--json").stdout
    )
    result = docqa("search", "renew a loan", "--index", index, "--no-guard", "-k", "3", "--json",
                   "--rerank", "--rerank-model", str(folder), "--rerank-top", "8")  # fmt: skip
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)["hits"]
    assert len(hits) == 3
    # the reranked three come from the plain top 8, scored and ordered by the tiny model
    assert {h["id"] for h in hits} <= {h["id"] for h in plain["hits"]}
    assert [h["components"]["rerank"]["rank"] for h in hits] == [1, 2, 3]
    got = [h["score"] for h in hits]
    assert got == sorted(got, reverse=True)
    want = CrossEncoderReranker(folder, n_threads=1).scores(
        "renew a loan", [h["text"] for h in hits]
    )
    np.testing.assert_allclose(got, want, atol=1e-4)
