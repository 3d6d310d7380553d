"""A BERT sentence encoder written out plainly in NumPy: the slow twin of the ONNX graph.

``forward(weights, ids, mask)`` runs the encoder described by ``BertShape`` (all-MiniLM-L6-v2:
6 layers, hidden 384, 12 heads, erf GELU, LayerNorm eps 1e-12) over ``ids`` / ``mask``
``(B, L) int64`` (token type 0 everywhere), mean-pools the last hidden states over the
unmasked tokens and scales each row to unit length: ``(B, hidden) float32``. The weights are
the ``model.safetensors`` tensors of a Hugging Face ``BertModel``, by their names.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from docqa.errors import InputError

Weights = Mapping[str, np.ndarray]


@dataclass(frozen=True, slots=True)
class BertShape:
    layers: int = 6
    hidden: int = 384
    heads: int = 12
    eps: float = 1e-12
    max_positions: int = 512

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads


MINILM_L6 = BertShape()


def load_weights(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a ``model.safetensors`` file as float32 NumPy arrays (``safetensors``)."""
    from safetensors.numpy import load_file

    try:
        tensors = load_file(str(path))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read model weights {path}: {exc}; reinstall the model") from exc
    return {k: v for k, v in tensors.items() if v.dtype == np.float32}


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    out: np.ndarray = (x - mean) / np.sqrt(var + eps) * gamma + beta
    return out


def gelu(x: np.ndarray) -> np.ndarray:
    """The exact (erf) GELU that BERT uses."""
    from math import erf

    erf_v = np.vectorize(erf, otypes=[np.float64])
    out: np.ndarray = (0.5 * x * (1.0 + erf_v(x / math.sqrt(2.0)))).astype(x.dtype)
    return out


def _linear(w: Weights, name: str, x: np.ndarray) -> np.ndarray:
    out: np.ndarray = x @ w[name + ".weight"].T + w[name + ".bias"]
    return out


def _attention(w: Weights, p: str, x: np.ndarray, bias: np.ndarray, s: BertShape) -> np.ndarray:
    b, n, _ = x.shape

    def heads(name: str) -> np.ndarray:
        return _linear(w, p + name, x).reshape(b, n, s.heads, s.head_dim).transpose(0, 2, 1, 3)

    q, k, v = (
        heads("attention.self.query"),
        heads("attention.self.key"),
        heads("attention.self.value"),
    )
    scores = q @ k.transpose(0, 1, 3, 2) / np.float32(math.sqrt(s.head_dim)) + bias
    scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
    probs = scores / scores.sum(axis=-1, keepdims=True)
    ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(b, n, s.hidden)
    return _linear(w, p + "attention.output.dense", ctx)


def hidden_states(
    w: Weights, ids: np.ndarray, types: np.ndarray, mask: np.ndarray, s: BertShape
) -> np.ndarray:
    """``(B, L, hidden)`` last hidden states of ``ids`` with token ``types`` under ``mask``."""
    n = ids.shape[1]
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n]
    x = x + w["embeddings.token_type_embeddings.weight"][types]
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], s.eps)
    maskf = mask.astype(np.float32)
    bias = ((1.0 - maskf) * np.float32(-1e9))[:, None, None, :]
    for i in range(s.layers):
        p = f"encoder.layer.{i}."
        a = _attention(w, p, x, bias, s)
        ln = p + "attention.output.LayerNorm"
        x = layer_norm(x + a, w[ln + ".weight"], w[ln + ".bias"], s.eps)
        h = gelu(_linear(w, p + "intermediate.dense", x))
        ln = p + "output.LayerNorm"
        x = layer_norm(
            x + _linear(w, p + "output.dense", h), w[ln + ".weight"], w[ln + ".bias"], s.eps
        )
    return x


def forward(
    weights: Weights, ids: np.ndarray, mask: np.ndarray, shape: BertShape = MINILM_L6
) -> np.ndarray:
    """``(B, hidden) float32`` unit-length mean-pooled embeddings of ``ids`` under ``mask``."""
    x = hidden_states(weights, ids, np.zeros_like(ids), mask, shape)
    maskf = mask.astype(np.float32)
    pooled = (x * maskf[:, :, None]).sum(axis=1) / np.maximum(maskf.sum(axis=1), 1e-9)[:, None]
    norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    return np.ascontiguousarray(pooled / norms, dtype=np.float32)


def cross_encoder_scores(
    weights: Weights, ids: np.ndarray, types: np.ndarray, mask: np.ndarray, shape: BertShape
) -> np.ndarray:
    """``(B,) float32`` first logit of a ``BertForSequenceClassification`` on each pair:
    ``classifier(tanh(pooler(h[:, 0])))``; weight names under ``bert.`` and ``classifier.``."""
    w = {k.removeprefix("bert."): v for k, v in weights.items()}
    x = hidden_states(w, ids, types, mask, shape)[:, 0]
    pooled = np.tanh(_linear(w, "pooler.dense", x))
    logits = pooled @ w["classifier.weight"][:1].T + w["classifier.bias"][:1]
    return np.ascontiguousarray(logits[:, 0], dtype=np.float32)
