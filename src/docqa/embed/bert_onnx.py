"""Build an ONNX graph of the BERT sentence encoder from its weights (``onnx`` + NumPy).

The graph computes exactly what ``docqa.embed.bert.forward`` computes: inputs ``ids`` and
``mask`` ``(B, L) int64``, output ``embedding (B, hidden) float32`` (mean-pooled over the
unmasked tokens, unit length). Token type 0 is folded into the position table.

``int8=True`` replaces the matrix products of the attention projections (query, key and value
fused into one) and of the FFN input by dynamic int8 ones: activations quantized per token
(uint8, each row by its own range, so a text's vector never depends on the texts batched with
it), weights quantized once per output channel (symmetric int8 in 7 bits, so the uint8 x int8
pair sums of AVX2 kernels cannot saturate). The FFN output
products, whose inputs are the widest-spread activations, stay in float32: quantizing them
costs most of the agreement with the float32 model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from docqa.embed.bert import BertShape, Weights

OPSET = 17
INT8_LEVELS = 63  # weights in [-63, 63]: 7 bits


@dataclass
class _Graph:
    """Nodes and constants of the graph under construction, with fresh names."""

    nodes: list[object] = field(default_factory=list)
    inits: list[object] = field(default_factory=list)
    count: int = 0

    def name(self, hint: str) -> str:
        self.count += 1
        return f"{hint}_{self.count}"

    def const(self, array: np.ndarray, hint: str = "c") -> str:
        from onnx import numpy_helper

        name = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def op(self, op_type: str, inputs: list[str], n_out: int = 1, **attrs: Any) -> list[str]:
        from onnx import helper

        outs = [self.name(op_type.lower()) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, **attrs))
        return outs

    def op1(self, op_type: str, inputs: list[str], **attrs: Any) -> str:
        return self.op(op_type, inputs, **attrs)[0]


def _linear_fp32(g: _Graph, x: str, weight: np.ndarray, bias: np.ndarray) -> str:
    """``x @ weight.T + bias`` in float32 (``weight`` is (out, in) as stored)."""
    y = g.op1("MatMul", [x, g.const(weight.T.astype(np.float32), "w")])
    return g.op1("Add", [y, g.const(bias.astype(np.float32), "b")])


def quantize_per_channel(weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(codes (in, out) int8, scales (out,) float32)`` with ``weight.T ~ codes * scales``."""
    wt = weight.T.astype(np.float32)
    scales = np.maximum(np.abs(wt).max(axis=0), 1e-12) / INT8_LEVELS
    codes = np.clip(np.rint(wt / scales), -INT8_LEVELS, INT8_LEVELS).astype(np.int8)
    return codes, scales.astype(np.float32)


def _quantize_rows(g: _Graph, x: str) -> tuple[str, str, str]:
    """``x`` as uint8 codes, a token (a last-axis row) at a time: ``(codes, scale, zero)``,
    symmetric about the row's zero point 128 (``code = round(x / scale) + 128``, rounded half
    to even, ``scale = max |x| / 127`` of the row, ``(..., 1)`` float32). One range for the
    whole tensor (``DynamicQuantizeLinear``) would make a text's codes, and its vector, hang on
    the other texts of its batch."""
    levels = g.const(np.array(127.0, np.float32))
    tiny = g.const(np.array(1e-30, np.float32))  # a row of zeros: any scale, codes 128
    top = g.op1("ReduceMax", [g.op1("Abs", [x])], axes=[-1], keepdims=1)
    scale = g.op1("Max", [g.op1("Div", [top, levels]), tiny])
    point = g.const(np.array(128.0, np.float32))
    codes = g.op1("Add", [g.op1("Round", [g.op1("Div", [x, scale])]), point])
    return g.op1("Cast", [codes], to=2), scale, g.const(np.array(128, np.uint8), "z")


def _linear_int8(g: _Graph, x: str, weight: np.ndarray, bias: np.ndarray) -> str:
    """``x @ weight.T + bias`` with uint8 activations, quantized per token
    (:func:`_quantize_rows`), and per-channel int8 weights."""
    codes, scales = quantize_per_channel(weight)
    xq, xs, xz = _quantize_rows(g, x)
    acc = g.op1("Cast", [g.op1("MatMulInteger", [xq, g.const(codes, "wq"), xz])], to=1)
    y = g.op1("Mul", [g.op1("Mul", [acc, g.const(scales, "ws")]), xs])
    return g.op1("Add", [y, g.const(bias.astype(np.float32), "b")])


def _layer_norm(g: _Graph, x: str, w: Weights, name: str, eps: float) -> str:
    gamma, beta = g.const(w[name + ".weight"], "ln_g"), g.const(w[name + ".bias"], "ln_b")
    return g.op1("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=eps)


def _gelu(g: _Graph, x: str) -> str:
    half = g.const(np.array(0.5, np.float32))
    one = g.const(np.array(1.0, np.float32))
    scaled = g.op1("Div", [x, g.const(np.array(math.sqrt(2.0), np.float32))])
    return g.op1("Mul", [g.op1("Mul", [x, half]), g.op1("Add", [g.op1("Erf", [scaled]), one])])


def _attention(g: _Graph, x: str, bias: str, w: Weights, p: str, s: BertShape, int8: bool) -> str:
    linear = _linear_int8 if int8 else _linear_fp32
    names = ("query", "key", "value")
    weight = np.concatenate([w[f"{p}attention.self.{n}.weight"] for n in names], axis=0)
    b = np.concatenate([w[f"{p}attention.self.{n}.bias"] for n in names])
    qkv = linear(g, x, weight, b)
    split = g.const(np.array([s.hidden] * 3, np.int64))
    q, k, v = g.op("Split", [qkv, split], n_out=3, axis=-1)
    head_shape = g.const(np.array([0, 0, s.heads, s.head_dim], np.int64))
    qh = g.op1("Transpose", [g.op1("Reshape", [q, head_shape])], perm=[0, 2, 1, 3])
    kh = g.op1("Transpose", [g.op1("Reshape", [k, head_shape])], perm=[0, 2, 3, 1])
    vh = g.op1("Transpose", [g.op1("Reshape", [v, head_shape])], perm=[0, 2, 1, 3])
    scale = g.const(np.array(1.0 / math.sqrt(s.head_dim), np.float32))
    scores = g.op1("Add", [g.op1("Mul", [g.op1("MatMul", [qh, kh]), scale]), bias])
    ctx = g.op1("MatMul", [g.op1("Softmax", [scores], axis=-1), vh])
    ctx = g.op1("Transpose", [ctx], perm=[0, 2, 1, 3])
    ctx = g.op1("Reshape", [ctx, g.const(np.array([0, 0, s.hidden], np.int64))])
    out = w[p + "attention.output.dense.weight"], w[p + "attention.output.dense.bias"]
    return linear(g, ctx, *out)


def _layer(g: _Graph, x: str, bias: str, w: Weights, i: int, s: BertShape, int8: bool) -> str:
    p = f"encoder.layer.{i}."
    x = g.op1("Add", [x, _attention(g, x, bias, w, p, s, int8)])
    x = _layer_norm(g, x, w, p + "attention.output.LayerNorm", s.eps)
    linear = _linear_int8 if int8 else _linear_fp32
    h = _gelu(g, linear(g, x, w[p + "intermediate.dense.weight"], w[p + "intermediate.dense.bias"]))
    y = _linear_fp32(g, h, w[p + "output.dense.weight"], w[p + "output.dense.bias"])
    return _layer_norm(g, g.op1("Add", [x, y]), w, p + "output.LayerNorm", s.eps)


def _embeddings(g: _Graph, w: Weights, p: str, pairs: bool) -> str:
    types = w[p + "embeddings.token_type_embeddings.weight"]
    positions = w[p + "embeddings.position_embeddings.weight"] + (0 if pairs else types[0])
    words = g.op1("Gather", [g.const(w[p + "embeddings.word_embeddings.weight"], "words"), "ids"])
    length = g.op1("Shape", ["ids"], start=1, end=2)
    zero, axis = g.const(np.array([0], np.int64)), g.const(np.array([0], np.int64))
    pos = g.op1("Slice", [g.const(positions.astype(np.float32), "positions"), zero, length, axis])
    x = g.op1("Add", [words, pos])
    if pairs:  # token types 0 (question) / 1 (passage) from the ``types`` input
        x = g.op1(
            "Add", [x, g.op1("Gather", [g.const(types.astype(np.float32), "types"), "types"])]
        )
    return x


def _pool(g: _Graph, x: str, maskf: str) -> str:
    axes1, axes2 = g.const(np.array([1], np.int64)), g.const(np.array([2], np.int64))
    summed = g.op1(
        "ReduceSum", [g.op1("Mul", [x, g.op1("Unsqueeze", [maskf, axes2])]), axes1], keepdims=0
    )
    count = g.op1("ReduceSum", [maskf, axes1], keepdims=1)
    count = g.op1("Max", [count, g.const(np.array(1e-9, np.float32))])
    pooled = g.op1("Div", [summed, count])
    norm = g.op1("ReduceL2", [pooled], axes=[1], keepdims=1)  # axes an attribute before 18
    norm = g.op1("Max", [norm, g.const(np.array(1e-12, np.float32))])
    return g.op1("Div", [pooled, norm])


def _classify(g: _Graph, x: str, w: Weights) -> str:
    """Cross-encoder head: ``classifier(tanh(pooler([CLS])))[:, 0]``, one score a pair."""
    cls = g.op1("Gather", [x, g.const(np.array(0, np.int64))], axis=1)
    pooled = g.op1(
        "Tanh", [_linear_fp32(g, cls, w["bert.pooler.dense.weight"], w["bert.pooler.dense.bias"])]
    )
    logits = _linear_fp32(g, pooled, w["classifier.weight"][:1], w["classifier.bias"][:1])
    return g.op1("Reshape", [logits, g.const(np.array([-1], np.int64))])


def build_graph(
    weights: Weights, shape: BertShape, *, int8: bool, cross_encoder: bool = False
) -> bytes:
    """The serialized ONNX model of the encoder (see the module docstring).

    ``cross_encoder=True``: the weights are a ``BertForSequenceClassification`` (names under
    ``bert.``, plus ``classifier``); inputs ``ids``, ``types`` and ``mask``, output ``score``
    ``(B,) float32``, the first logit of each (question, passage) pair.
    """
    from onnx import TensorProto, helper

    g = _Graph()
    p = "bert." if cross_encoder else ""
    weights = {k[len(p) :]: v for k, v in weights.items() if k.startswith(p)} | dict(weights)
    x = _embeddings(g, weights, "", cross_encoder)
    x = _layer_norm(g, x, weights, "embeddings.LayerNorm", shape.eps)
    maskf = g.op1("Cast", ["mask"], to=TensorProto.FLOAT)
    one = g.const(np.array(1.0, np.float32))
    neg = g.const(np.array(-1e9, np.float32))
    bias = g.op1("Mul", [g.op1("Sub", [one, maskf]), neg])
    bias = g.op1("Unsqueeze", [bias, g.const(np.array([1, 2], np.int64))])
    for i in range(shape.layers):
        x = _layer(g, x, bias, weights, i, shape, int8)
    names = ("ids", "types", "mask") if cross_encoder else ("ids", "mask")
    inputs = [
        helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "length"]) for n in names
    ]
    if cross_encoder:
        g.nodes.append(helper.make_node("Identity", [_classify(g, x, weights)], ["score"]))
        output = helper.make_tensor_value_info("score", TensorProto.FLOAT, ["batch"])
    else:
        g.nodes.append(helper.make_node("Identity", [_pool(g, x, maskf)], ["embedding"]))
        output = helper.make_tensor_value_info(
            "embedding", TensorProto.FLOAT, ["batch", shape.hidden]
        )
    graph = helper.make_graph(g.nodes, "bert_sentence_encoder", inputs, [output], g.inits)  # type: ignore[arg-type]
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    return bytes(model.SerializeToString())
