"""docqa: fast, exact, grounded question answering over your own documents.

The main entry points, each documented in its module::

    from docqa import build_index, Collection, answer, ExtractiveModel
    build_index(["docs/"], ".docqa/index")
    retriever = Collection.open(".docqa/index").retriever("hybrid")
    print(answer("How long can I keep a book?", retriever, ExtractiveModel()).text)

Importing docqa loads no model, compiles nothing and touches no file. The names below are
loaded on first use (module ``__getattr__``, PEP 562), so ``import docqa`` and ``docqa --help``
do not import NumPy's JIT (Numba), the Markdown parser or the HTTP client.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# Public name -> the module that defines it.
_EXPORTS: dict[str, str] = {
    "REFUSAL": "docqa.prompt",
    "Answer": "docqa.types",
    "BM25Index": "docqa.keyword",
    "Chunk": "docqa.types",
    "Collection": "docqa.collection",
    "DenseRetriever": "docqa.retrieve",
    "DocqaError": "docqa.errors",
    "Embedder": "docqa.embed",
    "ExtractiveModel": "docqa.models",
    "FakeModel": "docqa.models",
    "HashingEmbedder": "docqa.embed",
    "Hit": "docqa.types",
    "HybridRetriever": "docqa.retrieve",
    "IndexSettings": "docqa.build",
    "KeywordRetriever": "docqa.retrieve",
    "Prompt": "docqa.types",
    "TfidfEmbedder": "docqa.embed",
    "TopK": "docqa.types",
    "answer": "docqa.answering",
    "answer_stream": "docqa.answering",
    "build_index": "docqa.build",
    "build_prompt": "docqa.prompt",
    "open_index": "docqa.index",
    "topk": "docqa.search",
    "write_index": "docqa.index",
}

__all__ = [
    "REFUSAL",
    "Answer",
    "BM25Index",
    "Chunk",
    "Collection",
    "DenseRetriever",
    "DocqaError",
    "Embedder",
    "ExtractiveModel",
    "FakeModel",
    "HashingEmbedder",
    "Hit",
    "HybridRetriever",
    "IndexSettings",
    "KeywordRetriever",
    "Prompt",
    "TfidfEmbedder",
    "TopK",
    "__version__",
    "answer",
    "answer_stream",
    "build_index",
    "build_prompt",
    "open_index",
    "topk",
    "write_index",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'docqa' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # the same names, eagerly, for type checkers and IDEs
    from docqa.answering import answer, answer_stream
    from docqa.build import IndexSettings, build_index
    from docqa.collection import Collection
    from docqa.embed import Embedder, HashingEmbedder, TfidfEmbedder
    from docqa.errors import DocqaError
    from docqa.index import open_index, write_index
    from docqa.keyword import BM25Index
    from docqa.models import ExtractiveModel, FakeModel
    from docqa.prompt import REFUSAL, build_prompt
    from docqa.retrieve import DenseRetriever, HybridRetriever, KeywordRetriever
    from docqa.search import topk
    from docqa.types import Answer, Chunk, Hit, Prompt, TopK
