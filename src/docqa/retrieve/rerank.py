"""Reranking: the ``Reranker`` protocol and a cross-encoder read from a folder the user names.

``RerankingRetriever(inner, reranker, top_n)`` asks ``inner`` for ``max(k, top_n)`` hits and
returns the best ``k`` by the reranker's score (ties keep ``inner``'s order); each hit keeps
its components and gains ``"rerank"`` (score, 1-based rank).

``CrossEncoderReranker(path)`` loads a BERT cross-encoder (a Hugging Face
``BertForSequenceClassification`` folder: ``config.json``, ``model.safetensors``,
``tokenizer.json``) and scores each (question, passage) pair with onnxruntime over a graph
built from the weights (``docqa.embed.bert_onnx``; ``docqa.embed.bert.cross_encoder_scores``
is its NumPy twin). No cross-encoder ships in a registry package, so there is no default
model: quality is whatever the supplied model gives, and cost grows with its depth (a
MiniLM-L6-shaped one scores roughly 8 pairs/s on 2 cores, a 2-layer one roughly 100).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from docqa.embed.bert import BertShape, load_weights
from docqa.errors import InputError
from docqa.types import Component, Hit, Retriever

RERANK = "rerank"
DEFAULT_TOP_N = 30


@runtime_checkable
class Reranker(Protocol):
    def rerank(self, question: str, hits: Sequence[Hit]) -> list[Hit]: ...


def reorder(hits: Sequence[Hit], scores: Sequence[float]) -> list[Hit]:
    """``hits`` by ``scores`` descending (ties: the given order), tagged with ``"rerank"``."""
    if len(scores) != len(hits):
        raise ValueError(f"{len(scores)} scores for {len(hits)} hits")
    order = sorted(range(len(hits)), key=lambda i: (-scores[i], i))
    out = []
    for rank, i in enumerate(order, start=1):
        h, s = hits[i], float(scores[i])
        components = {**h.components, RERANK: Component(s, rank)}
        out.append(Hit(h.row, h.id, h.section, s, components, chunk=h.chunk))
    return out


def _shape(directory: Path) -> BertShape:
    try:
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
        return BertShape(
            layers=int(config["num_hidden_layers"]),
            hidden=int(config["hidden_size"]),
            heads=int(config["num_attention_heads"]),
            eps=float(config.get("layer_norm_eps", 1e-12)),
            max_positions=int(config.get("max_position_embeddings", 512)),
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(
            f"cannot read the cross-encoder config {directory / 'config.json'} ({exc}); "
            "--rerank-model needs a BERT cross-encoder folder with config.json, "
            "model.safetensors and tokenizer.json"
        ) from exc


class CrossEncoderReranker:
    """Scores (question, passage) pairs with the cross-encoder in ``directory``."""

    def __init__(
        self,
        directory: str | Path,
        *,
        max_tokens: int = 256,
        batch_size: int = 16,
        n_threads: int | None = None,
    ) -> None:
        self.directory = Path(directory)
        if not self.directory.is_dir():
            raise InputError(f"--rerank-model {self.directory} is not a folder")
        for name in ("model.safetensors", "tokenizer.json"):
            if not (self.directory / name).is_file():
                raise InputError(f"the cross-encoder folder {self.directory} has no {name}")
        self.shape = _shape(self.directory)
        self.max_tokens = min(max_tokens, self.shape.max_positions)
        self.batch_size = batch_size
        self.n_threads = n_threads

    @cached_property
    def tokenizer(self) -> Any:
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(self.directory / "tokenizer.json"))
        tok.enable_truncation(self.max_tokens, strategy="only_second")
        tok.enable_padding()
        return tok

    @cached_property
    def session(self) -> Any:
        """The onnxruntime session over the cross-encoder's graph, kept on disk after the first
        build (``docqa.embed.onnx_cache``)."""
        from docqa.embed import bert, bert_onnx
        from docqa.embed.onnx_cache import session, source_digest, weights_sha256
        from docqa.threads import cores

        weights_file = self.directory / "model.safetensors"

        def build() -> bytes:
            try:
                weights = load_weights(weights_file)
                return bert_onnx.build_graph(weights, self.shape, int8=False, cross_encoder=True)
            except KeyError as exc:
                raise InputError(
                    f"{weights_file} lacks {exc}; it is not a BERT cross-encoder "
                    "(BertForSequenceClassification)"
                ) from exc

        shape = hashlib.sha256(repr(self.shape).encode()).hexdigest()[:8]
        source = source_digest(bert, bert_onnx)
        key = f"cross-encoder-{weights_sha256(weights_file)[:16]}-{shape}-{source}"
        return session(key, build, self.n_threads or cores())

    def encode(self, question: str, passages: Sequence[str]) -> tuple[np.ndarray, ...]:
        """``(ids, types, mask)`` ``(n, L) int64`` of the pairs, padded to the longest."""
        encs = self.tokenizer.encode_batch([(question, p) for p in passages])
        return tuple(
            np.array([getattr(e, f) for e in encs], dtype=np.int64).reshape(len(encs), -1)
            for f in ("ids", "type_ids", "attention_mask")
        )

    def scores(self, question: str, passages: Sequence[str]) -> np.ndarray:
        """``(len(passages),) float32`` relevance logits."""
        out = np.zeros(len(passages), dtype=np.float32)
        for start in range(0, len(passages), self.batch_size):
            ids, types, mask = self.encode(question, passages[start : start + self.batch_size])
            feeds = {"ids": ids, "types": types, "mask": mask}
            out[start : start + len(ids)] = self.session.run(None, feeds)[0]
        return out

    def rerank(self, question: str, hits: Sequence[Hit]) -> list[Hit]:
        texts = [h.chunk.text if h.chunk is not None else "" for h in hits]
        return reorder(hits, self.scores(question, texts).tolist()) if hits else []


class RerankingRetriever:
    """``inner``'s best ``top_n`` hits reordered by ``reranker`` (see the module docstring)."""

    def __init__(self, inner: Retriever, reranker: Reranker, *, top_n: int = DEFAULT_TOP_N):
        if isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 1:
            raise InputError(f"top_n must be an int >= 1, got {top_n!r}")
        self.inner = inner
        self.reranker = reranker
        self.top_n = top_n
        self.components = (*getattr(inner, "components", ()), RERANK)

    def search(self, question: str, k: int, *, mask: np.ndarray | None = None) -> list[Hit]:
        hits = self.inner.search(question, max(k, self.top_n), mask=mask)
        return self.reranker.rerank(question, hits)[:k]

    def max_keyword_score(self, question: str) -> float:
        bound = getattr(self.inner, "max_keyword_score", None)
        if bound is None:
            raise InputError("the inner retriever has no max_keyword_score")
        return float(bound(question))
