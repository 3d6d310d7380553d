"""docqa's reStructuredText reader beside docutils, the reference parser, on real RST.

Reads every ``*.rst``, ``*.rst.gz`` and ``*.rst.txt`` below the roots (default: CMake's help
and ``/usr/share/doc``) with docqa's reader (``parse_document``, what ``docqa index`` runs)
and, when it is installed (``pip install '.[bench]'``), with docutils' ``publish_doctree``
(Sphinx's roles and directives unknown to it, reported at level 5 so nothing prints). Prints:

- files, MB, errors (exceptions) of each; docutils' error messages (its ``system_message``
  nodes: each an unknown role or directive, or markup it could not read);
- section titles: how many files give the same titles in the same order by both readers (a
  title holding a Sphinx role differs by design: docutils keeps ``:command:`x``` as written);
- words: the share of the words of docutils' text (its error messages, comments and targets
  left out, and the role names it keeps in ``:command:`x``` as written) that docqa's text
  holds, counted with repeats; then the pages with the most words missing;
- text blocks of docqa's where markup is left (`` `` ``, ``:role:```, ``.. ``), with a seeded
  sample to read;
- speed: MB/s of each, ``--rounds`` rounds, the two readers interleaved on each file in
  every round (warm-up round first, not timed), median of the rounds and their ratio
  (``--rounds 0``: no timing).

    .venv/bin/python benchmarks/quality/rst_read.py [--root DIR ...] [--rounds 3] [--sample 8]
"""

from __future__ import annotations

import argparse
import gzip
import random
import re
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

from docqa.text.documents import Document
from docqa.text.loaders import parse_document

ROOTS = [Path("/usr/share/cmake-3.25/Help"), Path("/usr/share/doc")]
_RST = re.compile(r"\.rst(?:\.gz|\.txt)?$")
_LEFT = re.compile(r":\w+:`|``|^\.\. |\s\.\. \w+::")


def rst_files(roots: list[Path]) -> list[tuple[str, str]]:
    """``(name, text)`` of every RST file below ``roots`` that is UTF-8."""
    out = []
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.is_file() and _RST.search(p.name)):
            raw = path.read_bytes()
            try:
                text = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode("utf-8-sig")
            except (UnicodeDecodeError, OSError):
                continue
            name = path.name.removesuffix(".gz").removesuffix(".txt")
            out.append((name, text))
    return out


def docutils_reader() -> Any:
    """docutils' ``publish_doctree`` with quiet settings, or None when docutils is missing."""
    try:
        from docutils.core import publish_doctree
    except ImportError:
        return None
    quiet = {
        "report_level": 5,
        "halt_level": 5,
        "file_insertion_enabled": False,
        "raw_enabled": False,
        "doctitle_xform": False,
    }
    return lambda text: publish_doctree(text, settings_overrides=quiet)


def titles_of_tree(tree: Any) -> list[str]:
    from docutils import nodes

    return [
        " ".join(n.astext().split())
        for n in tree.findall(nodes.title)
        if isinstance(n.parent, nodes.section)
    ]


_WORD = re.compile(r"[A-Za-z0-9]+")
_ROLE = re.compile(r":[\w:+.-]+:`")


def words_of_tree(tree: Any) -> Counter[str]:
    """The words of docutils' text of ``tree``: what a page shows, as docutils reads it."""
    from docutils import nodes

    hidden = (nodes.system_message, nodes.comment, nodes.substitution_definition, nodes.target)
    for node in list(tree.findall(lambda n: isinstance(n, hidden))):
        node.parent.remove(node)
    return Counter(w.lower() for w in _WORD.findall(_ROLE.sub("`", tree.astext())))


def words_of(document: Document) -> Counter[str]:
    parts = [document.title, *(s.heading for s in document.sections)]
    parts += [b.text for s in document.sections for b in s.blocks]
    return Counter(w.lower() for w in _WORD.findall(" ".join(parts)))


def titles_of(document: Document) -> list[str]:
    return [" ".join(s.heading.split()) for s in document.sections if s.level]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", type=Path, action="append")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sample", type=int, default=8)
    args = parser.parse_args()
    files = rst_files(args.root or ROOTS)
    size = sum(len(text.encode()) for _, text in files) / 1e6
    reference = docutils_reader()
    docs: list[Document | None] = []
    trees: list[Any] = []
    errors = {"docqa": 0, "docutils": 0}
    for name, text in files:  # the warm-up round: what each reader makes of each file
        try:
            docs.append(parse_document(name, text))
        except Exception:  # noqa: BLE001 - counted: that is the measurement
            errors["docqa"] += 1
            docs.append(None)
        if reference is not None:
            try:
                trees.append(reference(text))
            except Exception:  # noqa: BLE001
                errors["docutils"] += 1
                trees.append(None)
    print(f"{len(files)} files, {size:.2f} MB; errors: docqa {errors['docqa']}", end="")
    print(f", docutils {errors['docutils']}" if reference else " (docutils not installed)")
    blocks = [b.text for d in docs if d for s in d.sections for b in s.blocks if b.kind == "text"]
    left = [t for t in blocks if _LEFT.search(t)]
    print(f"docqa: {sum(len(titles_of(d)) for d in docs if d)} section titles; "
          f"{len(left)} of {len(blocks)} text blocks with markup left")  # fmt: skip
    if reference is not None:
        from docutils import nodes

        messages = sum(
            sum(1 for n in t.findall(nodes.system_message) if n["level"] >= 3)
            for t in trees
            if t is not None
        )
        both = [(d, t) for d, t in zip(docs, trees, strict=True) if d and t is not None]
        same = sum(titles_of(d) == titles_of_tree(t) for d, t in both)
        print(f"docutils: {messages} error messages; the same section titles in "
              f"{same} of {len(both)} files")  # fmt: skip
        lost: list[tuple[float, str, Counter[str]]] = []
        total = missing = 0
        for (name, _), d, t in zip(files, docs, trees, strict=True):
            if d and t is not None:
                theirs = words_of_tree(t)
                gone = theirs - words_of(d)
                total, missing = total + theirs.total(), missing + gone.total()
                lost.append((gone.total() / max(theirs.total(), 1), name, gone))
        print(f"words of docutils' text docqa holds: {1 - missing / max(total, 1):.4f} "
              f"({missing} of {total} missing)")  # fmt: skip
        for share, name, gone in sorted(lost, key=lambda x: -x[2].total())[: args.sample]:
            print(f"  {share:.2f} {name}: {dict(gone.most_common(5))}")
    for text in random.Random(7).sample(left, min(args.sample, len(left))):
        print(f"  left: {text[:150]}")
    if args.rounds == 0:
        return
    timings: dict[str, list[float]] = {"docqa": [], "docutils": []}
    for _ in range(args.rounds):
        spent = {"docqa": 0.0, "docutils": 0.0}
        for name, text in files:
            t0 = time.perf_counter()
            parse_document(name, text)
            spent["docqa"] += time.perf_counter() - t0
            if reference is not None:
                t0 = time.perf_counter()
                reference(text)
                spent["docutils"] += time.perf_counter() - t0
        for key, seconds in spent.items():
            timings[key].append(seconds)
    ours = statistics.median(timings["docqa"])
    print(f"docqa: {size / ours:.1f} MB/s (median of {args.rounds} rounds)", end="")
    if reference is not None:
        theirs = statistics.median(timings["docutils"])
        ratio = statistics.median(t / o for o, t in zip(timings["docqa"], timings["docutils"]))
        print(f"; docutils: {size / theirs:.2f} MB/s; docqa {ratio:.1f}x docutils (paired)")
    else:
        print()


if __name__ == "__main__":
    main()
