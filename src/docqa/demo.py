"""Interim demo: load and chunk a folder of documents and show what was found.

``python -m docqa.demo examples/library [--max-words N] [--overlap N]`` prints a table of
documents (source, title, sections, chunks), the skipped files with reasons, and a few example
chunk ids with their heading paths. Bad input exits 2 with one line on stderr.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections import Counter
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from docqa.errors import DocqaError
from docqa.text.documents import Document
from docqa.text.loaders import SkippedFileWarning, load_paths
from docqa.text.sections import chunk_document
from docqa.types import Chunk

_EXAMPLES = 6


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m docqa.demo", description="Load and chunk documents; show what was found."
    )
    parser.add_argument("paths", nargs="+", help="folders or .md/.txt/.html files")
    parser.add_argument("--max-words", type=int, default=120, help="words per chunk (120)")
    parser.add_argument("--overlap", type=int, default=0, help="words shared by windows (0)")
    return parser.parse_args(argv)


def _examples(chunks: Sequence[Chunk]) -> list[Chunk]:
    """Up to ``_EXAMPLES`` chunks: two windowed (``-p2``) ones, then one sub-section chunk
    per document."""
    windowed = [chunk for chunk in chunks if chunk.id != chunk.section][:2]
    per_source: dict[str, Chunk] = {}
    for chunk in chunks:
        if len(chunk.heading_path) > 1:
            per_source.setdefault(chunk.source, chunk)
    return [*windowed, *per_source.values()][:_EXAMPLES]


def _documents_table(
    title: str, documents: Sequence[Document], per_doc: Sequence[Sequence[Chunk]]
) -> Table:
    """One row per document: source, title, number of sections and of chunks."""
    table = Table(title=title)
    for column in ("source", "title", "sections", "chunks"):
        table.add_column(column, justify="right" if column in ("sections", "chunks") else "left")
    for document, doc_chunks in zip(documents, per_doc, strict=True):
        table.add_row(
            document.source, document.title, str(len(document.sections)), str(len(doc_chunks))
        )
    return table


def run(argv: Sequence[str] | None = None, console: Console | None = None) -> int:
    """Run the demo; returns the exit code (0 ok, 2 bad input)."""
    args = _arguments(argv)
    out = console or Console()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SkippedFileWarning)
            documents, report = load_paths(args.paths)
        per_doc = [
            chunk_document(d, max_words=args.max_words, overlap=args.overlap) for d in documents
        ]
    except DocqaError as exc:
        print(f"docqa.demo: error: {exc}", file=sys.stderr)
        return 2
    chunks = [chunk for doc_chunks in per_doc for chunk in doc_chunks]
    table = _documents_table(f"Documents in {', '.join(args.paths)}", documents, per_doc)
    out.print(table)
    kinds = Counter(str(d.metadata.get("format")) for d in documents)
    sections = sum(len(d.sections) for d in documents)
    out.print(
        f"{len(documents)} documents ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))}), "
        f"{sections} sections, {len(chunks)} chunks (max {args.max_words} words, "
        f"overlap {args.overlap}); {len(report.skipped)} files skipped"
    )
    for skipped in report.skipped:
        out.print(f"  skipped {skipped.path}: {skipped.reason}", markup=False)
    out.print("Example chunks:")
    for chunk in _examples(chunks):
        out.print(
            f"  {chunk.id}  [{chunk.title}]  lines {chunk.start_line}-{chunk.end_line}",
            markup=False,
        )
    return 0


def main() -> None:
    """Entry point for ``python -m docqa.demo``."""
    sys.exit(run())


if __name__ == "__main__":
    main()
