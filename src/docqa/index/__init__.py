"""The index directory: on-disk format, atomic writer, memory-mapped reader."""

from docqa.index.format import FORMAT_VERSION, Manifest
from docqa.index.reader import ChunkView, Index, open_index
from docqa.index.writer import write_index

__all__ = ["FORMAT_VERSION", "ChunkView", "Index", "Manifest", "open_index", "write_index"]
