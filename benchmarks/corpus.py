"""Real English text for the benchmarks, built at run time from documentation on the machine.

No data is committed: the text is the docstrings of the Python standard library and of the
installed packages (plus pydoc's topic help), deduplicated, in a fixed order so every run on
one machine measures the same bytes. If they fall short of the size asked for, the text is
repeated (and the caller is told via ``Corpus.repeats``).
"""

from __future__ import annotations

import ast
import sys
import sysconfig
import warnings
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

MB = 1_000_000
# Built once per machine, then read back (kept out of git by .gitignore).
CACHE_DIR = Path(__file__).resolve().parent.parent / ".benchmarks" / "corpus"


@dataclass(frozen=True)
class Corpus:
    text: str
    chunks: list[str]
    repeats: int

    @property
    def megabytes(self) -> float:
        return len(self.text.encode("utf-8")) / MB


def _docstrings(path: Path) -> list[str]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError, OSError, RecursionError):
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node)
            if doc and len(doc.split()) >= 8:
                found.append(doc)
    return found


def _sources() -> list[Path]:
    # The standard library first (present everywhere), then installed packages.
    roots = [sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"]]
    roots += sorted(p for p in sys.path if p.endswith("site-packages") and p not in roots)
    files: dict[Path, None] = {}
    for root in roots:
        files.update(dict.fromkeys(sorted(Path(root).rglob("*.py"))))
    return list(files)


@lru_cache(maxsize=4)
def english_text(min_mb: float = 20.0) -> tuple[str, int]:
    """At least ``min_mb`` megabytes of English prose and the number of times it was repeated."""
    seen: set[str] = set()
    parts: list[str] = []
    try:
        from pydoc_data.topics import topics

        parts.extend(topics[k] for k in sorted(topics))
    except ImportError:
        pass
    cache = CACHE_DIR / f"english-{min_mb:g}mb.txt"
    if cache.exists():
        return cache.read_text(encoding="utf-8"), 1
    size = 0
    for path in _sources():
        for doc in _docstrings(path):
            if doc not in seen:
                seen.add(doc)
                parts.append(doc)
                size += len(doc.encode("utf-8")) + 2
        if size >= min_mb * MB:
            break
    base = "\n\n".join(parts)
    size = len(base.encode("utf-8"))
    if size == 0:
        raise RuntimeError("no documentation found on this machine to build a corpus from")
    repeats = max(1, -(-int(min_mb * MB) // size))
    text = "\n\n".join([base] * repeats)
    if repeats == 1:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(cache)
    return text, repeats


def chunk_200(text: str, size: int = 200) -> list[str]:
    """Consecutive ``size``-word chunks (the benchmarks' unit of indexing)."""
    words = text.split()
    return [" ".join(words[i : i + size]) for i in range(0, len(words), size)]


@lru_cache(maxsize=4)
def corpus(min_mb: float = 20.0) -> Corpus:
    text, repeats = english_text(min_mb)
    return Corpus(text=text, chunks=chunk_200(text), repeats=repeats)


if __name__ == "__main__":
    c = corpus()
    print(f"{c.megabytes:.1f} MB, {len(c.chunks)} chunks of 200 words, repeated {c.repeats}x")
