"""The evaluation collections, assembled in one place for every quality experiment.

A collection is a folder of documents and a questions file (``docqa eval``'s format):

- ``library``: ``examples/library`` with ``examples/questions.jsonl``;
- ``pydocs``: the Python docs of ``../shared/evalsets/pydocs``;
- every folder of ``benchmarks/data/``: its ``pages.txt`` names the pages, one a line, either
  ``SOURCE TARGET`` (SOURCE below ``/usr/share/doc``, or absolute; copied to TARGET, gzipped
  pages stay gzipped) or a bare page name resolved by ``SHIPPED`` (Node.js API pages, the
  Valgrind HTML manual, pip's docs). Each set's README or the docstrings of
  ``benchmarks/quality/guard_transfer.py`` say which Debian package ships the pages.

``build(name, embedder, scratch)`` copies the pages once and builds an index per embedder
under ``scratch`` (kept for the next run).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from docqa.build import IndexSettings, build_index

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "benchmarks" / "data"
PYDOCS = next(
    (p / "shared/evalsets/pydocs" for p in ROOT.parents if (p / "shared/evalsets").is_dir()),
    ROOT.parent / "shared/evalsets/pydocs",
)
SHIPPED = {
    "nodejs": (Path("/usr/share/doc/nodejs/api"), ".md"),
    "valgrind-guard": (Path("/usr/share/doc/valgrind/html"), ".html"),
    "pipdocs": (Path("/usr/share/doc/python3-pip/html"), ""),
}


def names() -> list[str]:
    """Every collection: ``library``, ``pydocs``, then ``benchmarks/data/*`` by name."""
    found = sorted(p.parent.name for p in DATA.glob("*/questions.jsonl"))
    return ["library", "pydocs", *found]


def paths(name: str, scratch: Path) -> tuple[Path, Path]:
    """The documents folder and the questions file of collection ``name``."""
    if name == "library":
        return ROOT / "examples" / "library", ROOT / "examples" / "questions.jsonl"
    if name == "pydocs":
        return PYDOCS / "corpus", PYDOCS / "questions.jsonl"
    folder = scratch / f"{name}-docs"
    if not folder.is_dir():
        tmp = scratch / f"{name}-docs.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        for origin, target in _pages(name):
            if not origin.is_file():
                raise SystemExit(f"{origin} not found: install the Debian package that ships it")
            (tmp / target).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(origin, tmp / target)
        tmp.rename(folder)
    return folder, DATA / name / "questions.jsonl"


def _pages(name: str) -> list[tuple[Path, str]]:
    out = []
    for line in (DATA / name / "pages.txt").read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) == 2:
            out.append((Path("/usr/share/doc") / parts[0], parts[1]))
        elif len(parts) == 1:
            source, suffix = SHIPPED[name]
            out.append((source / f"{parts[0]}{suffix}", f"{parts[0]}{suffix}"))
    return out


def build(name: str, embedder: str, scratch: Path, **settings: object) -> tuple[Path, Path]:
    """The index of collection ``name`` with ``embedder`` (built once under ``scratch``) and
    its questions file. ``settings`` are further ``IndexSettings`` fields; give each set of
    them its own ``scratch``."""
    scratch.mkdir(parents=True, exist_ok=True)
    docs, questions = paths(name, scratch)
    index = scratch / f"index-{name}-{embedder}"
    if not (index / "manifest.json").exists():
        build_index([docs], index, IndexSettings(embedder=embedder, **settings))  # type: ignore[arg-type]
    return index, questions
