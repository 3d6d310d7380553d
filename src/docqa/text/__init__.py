"""Text in, tokens and chunks out: loaders, section and window chunkers, the tokenizer."""

from docqa.text.documents import Block, Document, Heading, Line, LoadReport, Section, SkippedFile
from docqa.text.loaders import SkippedFileWarning, load_path, load_paths
from docqa.text.reading import parse_document
from docqa.text.sections import (
    chunk_document,
    embed_text,
    heading_paths,
    keyword_text,
    load_chunks,
    section_ids,
    slugify,
)
from docqa.text.tokenize import (
    TermCounter,
    TermIds,
    TokenHashes,
    TokenSettings,
    hash_tokens,
    tokenize,
    tokenize_batch,
)
from docqa.text.windows import chunk_words

__all__ = [
    "Block",
    "Document",
    "Heading",
    "Line",
    "LoadReport",
    "Section",
    "SkippedFile",
    "SkippedFileWarning",
    "TermCounter",
    "TermIds",
    "TokenHashes",
    "TokenSettings",
    "chunk_document",
    "chunk_words",
    "embed_text",
    "hash_tokens",
    "heading_paths",
    "keyword_text",
    "load_chunks",
    "load_path",
    "load_paths",
    "parse_document",
    "section_ids",
    "slugify",
    "tokenize",
    "tokenize_batch",
]
