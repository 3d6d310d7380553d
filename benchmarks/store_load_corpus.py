"""A Markdown corpus of a given size for ``store_load.py``, written from real documentation.

The base is the pydocs evaluation pages (``shared/evalsets/pydocs/corpus``, Sphinx HTML) and
the Node.js API manual (``/usr/share/doc/nodejs/api/*.md``, when installed), read by docqa's own
loaders. Each document is written back as Markdown (its title as ``#`` unless its first
section is a level-1 heading, each section's heading at its level, prose as paragraphs, code
and table lines in ``~~~`` fences) in copies until the
size asked for is reached. Copy ``c`` lives in ``copy-NNNN/`` with ``-NNNN`` in every file
name, adds the token ``vNNNN`` to every heading, and replaces about one prose word in twenty by
a word drawn (seeded) from the base's own words: no two files are byte-identical, and the
chunks of different copies differ in their words, lengths and vectors, so scores seldom tie.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from docqa.text import Document, load_paths

_ROOT = Path(__file__).resolve().parents[1]
PYDOCS = next(
    (
        p / "shared/evalsets/pydocs/corpus"
        for p in _ROOT.parents
        if (p / "shared/evalsets").is_dir()
    ),
    _ROOT.parent / "shared/evalsets/pydocs/corpus",
)
NODEJS = Path("/usr/share/doc/nodejs/api")
REPLACE = 0.05  # share of prose words replaced in each copy
MB = 1_000_000


@dataclass(frozen=True)
class Written:
    """What ``write_corpus`` wrote: files, bytes, copies of the base."""

    files: int
    bytes: int
    copies: int

    @property
    def megabytes(self) -> float:
        return self.bytes / MB


def base_documents() -> list[Document]:
    """The base documents, in a fixed order (pydocs, then the Node.js manual if installed)."""
    roots = [PYDOCS]
    if NODEJS.is_dir():
        roots += sorted(NODEJS.glob("*.md"))
    if not PYDOCS.is_dir():
        raise SystemExit(f"the pydocs corpus is missing at {PYDOCS}; give a docqa checkout")
    documents, _ = load_paths(roots)
    return documents


def _vocabulary(documents: list[Document]) -> list[str]:
    """Every prose word of the base, with repeats (a draw follows the words' frequencies)."""
    return [
        word
        for d in documents
        for s in d.sections
        for b in s.blocks
        if b.kind == "text"
        for word in b.text.split()
    ]


def _prose(text: str, vocab: list[str], rng: np.random.Generator) -> str:
    words = text.split()
    for i in np.flatnonzero(rng.random(len(words)) < REPLACE):
        words[i] = vocab[int(rng.integers(len(vocab)))]
    return " ".join(words)


def _markdown(document: Document, tag: str, vocab: list[str], rng: np.random.Generator) -> str:
    """``document`` as Markdown, ``tag`` added to its headings, some prose words replaced."""
    parts = []
    if not document.sections or document.sections[0].level != 1:
        parts.append(f"# {' '.join(document.title.split())} {tag}")
    for section in document.sections:
        if section.heading:
            level = min(section.level, 6)
            parts.append(f"{'#' * level} {' '.join(section.heading.split())} {tag}")
        for block in section.blocks:
            if block.kind == "text":
                parts.append(_prose(block.text, vocab, rng))
            else:
                lines = [line.text.replace("~~~", "~ ~ ~") for line in block.lines]
                parts.append("~~~\n" + "\n".join(lines) + "\n~~~")
    return "\n\n".join(parts) + "\n"


def _files(documents: list[Document], seed: int) -> Iterator[tuple[str, str]]:
    """(relative path, Markdown text) of copy 0, 1, 2, ... of every base document, forever."""
    vocab = _vocabulary(documents)
    copy = 0
    while True:
        rng = np.random.default_rng([seed, copy])
        for document in documents:
            stem = document.source.rsplit(".", 1)[0]
            path = f"copy-{copy:04d}/{stem}-{copy:04d}.md"
            yield path, _markdown(document, f"v{copy:04d}", vocab, rng)
        copy += 1


def write_corpus(folder: Path, megabytes: float, seed: int = 0) -> Written:
    """Write Markdown files under ``folder`` until they hold at least ``megabytes`` MB."""
    target = int(megabytes * MB)
    files = size = 0
    last = ""
    for path, text in _files(base_documents(), seed):
        if size >= target:
            break
        out = folder / path
        out.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        out.write_bytes(data)
        files, size, last = files + 1, size + len(data), path
    return Written(files=files, bytes=size, copies=int(last[5:9]) + 1)
