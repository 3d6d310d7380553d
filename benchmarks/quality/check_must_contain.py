"""Check the evaluation sets' labels against the documents, with no retrieval and no embedder.

For each collection it loads the pages with docqa's own loaders, cuts them with docqa's
chunker (the index's defaults: 120-word windows, no overlap), and checks every question:

- each ``relevant`` id names a section of the loaded documents;
- each ``must_contain`` string occurs, case-insensitively and with whitespace runs collapsed,
  in at least one passage of one of the question's relevant sections, a passage being what an
  answer prompt shows of a chunk (``docqa.prompt``): its heading path (the passage's title) and
  its text.

It prints one line per failure and a count per collection, and exits 1 when anything failed.
``--show`` instead prints each answerable question that has no ``must_contain`` with the text
of its relevant sections (what a labeller reads). Collections: the folders of
``benchmarks/data`` (their ``pages.txt`` read as ``benchmarks/quality/guard_transfer.py`` reads it),
``library`` (``examples/``) and ``pydocs`` (``shared/evalsets/pydocs``). Run:

    PYTHONPATH=src .venv/bin/python benchmarks/quality/check_must_contain.py [NAME ...] [--show]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from docqa.text import Document, chunk_document, load_path, section_ids
from docqa.text.loaders import load_file

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "benchmarks" / "data"
DOC = Path("/usr/share/doc")
SHIPPED = {  # collections whose pages.txt lines are bare page names
    "nodejs": (DOC / "nodejs/api", ".md"),
    "valgrind-guard": (DOC / "valgrind/html", ".html"),
    "pipdocs": (DOC / "python3-pip/html", ""),
}
PYDOCS = next(
    (p / "shared/evalsets/pydocs" for p in ROOT.parents if (p / "shared/evalsets").is_dir()),
    ROOT.parent / "shared/evalsets/pydocs",
)


def pages(name: str) -> Iterator[tuple[Path, str]]:
    """``(file, source)`` of each line of ``data/NAME/pages.txt``: ``SOURCE TARGET`` with
    SOURCE below ``/usr/share/doc`` or absolute, or a bare page name (``SHIPPED``)."""
    for line in (DATA / name / "pages.txt").read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) == 2:
            yield DOC / parts[0], parts[1]
        elif len(parts) == 1:
            folder, suffix = SHIPPED[name]
            yield folder / f"{parts[0]}{suffix}", f"{parts[0]}{suffix}"


def documents(name: str) -> tuple[list[Document], Path]:
    """The loaded documents of collection ``name`` and its questions file."""
    if name == "library":
        return load_path(ROOT / "examples" / "library")[0], ROOT / "examples" / "questions.jsonl"
    if name == "pydocs":
        return load_path(PYDOCS / "corpus")[0], PYDOCS / "questions.jsonl"
    docs = []
    for path, source in pages(name):
        if not path.is_file():
            sys.exit(f"{path} not found: install the Debian package that ships it")
        doc = load_file(path, source)
        if not isinstance(doc, Document):
            sys.exit(f"{path} was not loaded: {doc.reason}")
        docs.append(doc)
    return docs, DATA / name / "questions.jsonl"


def flat(text: str) -> str:
    """Lower case, whitespace runs as one space."""
    return re.sub(r"\s+", " ", text).strip().lower()


def section_texts(docs: list[Document]) -> dict[str, list[str]]:
    """Each section id's passages (heading path, then chunk text), in order."""
    out: dict[str, list[str]] = defaultdict(list)
    for doc in docs:
        for chunk in chunk_document(doc):
            out[chunk.section].append(" > ".join(chunk.heading_path) + "\n" + chunk.text)
    for doc in docs:  # sections with no body still exist
        for section_id in section_ids(doc):
            out.setdefault(section_id, [])
    return out


def failures(question: dict[str, Any], texts: dict[str, list[str]]) -> list[str]:
    """What is wrong with one question's labels (empty when nothing)."""
    relevant = question.get("relevant", [])
    out = [f"relevant {r!r} is no section" for r in relevant if r not in texts]
    wanted = question.get("must_contain", [])
    chunks = [flat(t) for r in relevant for t in texts.get(r, [])]
    for s in [wanted] if isinstance(wanted, str) else wanted:
        if not any(flat(s) in c for c in chunks):
            out.append(f"must_contain {s!r} is in no passage of {', '.join(relevant) or '(none)'}")
    return out


def check(name: str, show: bool) -> int:
    """Print the failures of collection ``name`` (or, with ``show``, what to label); return
    the number of failures."""
    docs, questions_file = documents(name)
    texts = section_texts(docs)
    bad = labelled = unlabelled = 0
    for line in questions_file.read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        if not q.get("relevant"):
            continue
        labelled += "must_contain" in q
        unlabelled += "must_contain" not in q
        if show and "must_contain" not in q:
            print(f"\n### {q['id']}: {q.get('question') or q.get('q')}")
            for r in q["relevant"]:
                print(f"--- {r}\n" + "\n~~\n".join(texts.get(r, ["(NO SUCH SECTION)"])))
        for problem in [] if show else failures(q, texts):
            bad += 1
            print(f"{name} {q['id']}: {problem}")
    print(
        f"{name}: {labelled} answerable labelled, {unlabelled} without must_contain, {bad} failed"
    )
    return bad


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="collections (default: all of benchmarks/data)")
    parser.add_argument("--show", action="store_true", help="print what is left to label")
    args = parser.parse_args()
    names = args.names or sorted(p.name for p in DATA.iterdir() if (p / "pages.txt").is_file())
    bad = sum(check(name, args.show) for name in names)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
