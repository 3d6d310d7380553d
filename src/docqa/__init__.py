"""docqa: fast, exact, grounded question answering over your own documents.

The main entry points, each documented in its module::

    from docqa import build_index, Collection, answer, ExtractiveModel
    build_index(["docs/"], ".docqa/index")
    retriever = Collection.open(".docqa/index").retriever("hybrid")
    print(answer("How long can I keep a book?", retriever, ExtractiveModel()).text)

Importing docqa loads no model, compiles nothing and touches no file.
"""

from docqa.answer import answer, answer_stream
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

__version__ = "0.1.0"

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
