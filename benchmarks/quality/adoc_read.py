"""docqa's AsciiDoc reader beside Asciidoctor, the reference implementation, on real AsciiDoc.

Reads every ``*.adoc`` and ``*.asciidoc`` (gzipped too) below the roots, and every ``*.txt``
that docqa reads as AsciiDoc (git's manual pages, ``apt-get install git-doc``), with docqa's
reader (``parse_document``, what ``docqa index`` runs) and with Asciidoctor
(``apt-get install asciidoctor``; ``benchmarks/quality/adoc_reference.rb``, one Ruby process for all
files: includes not followed, git's ``linkgit:`` macro as git's build shows it, the ``.txt``
sources read in ``compat-mode`` as git builds them). Prints:

- files, MB, errors of each;
- section titles: how many files give the same titles in the same order (Asciidoctor's
  document title first, then its section and discrete titles; its typography, curly quotes
  for straight ones and dashes for ``--``, undone);
- words: the share of the words of Asciidoctor's HTML body (tags dropped) that docqa's text
  holds, counted with repeats, and the words docqa's text holds beyond them (markup left, the
  branches of a conditional Asciidoctor leaves out); then the pages with the most words missing;
- text blocks of docqa's where markup is left (``linkgit:``, ``link:...[``, ``include::``,
  ``<<id>>``, ``[[id]]``, an attribute entry), with a seeded sample to read;
- with ``--rounds N`` (default 0: no timing), speed: MB/s of each over N rounds and their
  ratio (Asciidoctor's time measured inside its process, per file, load and convert).

    .venv/bin/python benchmarks/quality/adoc_read.py [--root DIR ...] [--rounds 0] [--sample 8]
"""

from __future__ import annotations

import argparse
import gzip
import html
import json
import random
import re
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

from docqa.text.documents import Document
from docqa.text.loaders import parse_document

ROOTS = [Path("/usr/share/doc")]
REFERENCE = Path(__file__).with_name("adoc_reference.rb")
_ADOC = re.compile(r"\.(?:adoc|asciidoc|txt)(?:\.gz)?$")
_LEFT = re.compile(r"linkgit:|\blink:\S+\[|include::|<<[\w#:.-]+>>|\[\[[\w:.-]+\]\]|^:[\w-]+:")
_WORD = re.compile(r"[A-Za-z0-9]+")
_TAG = re.compile(r"<[^>]+>")


def adoc_files(roots: list[Path]) -> list[tuple[str, str, Document]]:
    """``(path, text, docqa's document)`` of every UTF-8 AsciiDoc file below ``roots``."""
    out = []
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.is_file() and _ADOC.search(p.name)):
            raw = path.read_bytes()
            try:
                text = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode("utf-8-sig")
            except (UnicodeDecodeError, OSError):
                continue
            document = parse_document(path.name, text)
            if document.metadata["format"] == "asciidoc":
                out.append((str(path), text, document))
    return out


def asciidoctor(files: list[tuple[str, str, Document]]) -> list[dict[str, Any]]:
    """Asciidoctor's reading of each file (``adoc_reference.rb``)."""
    given = "".join(
        json.dumps({"text": text, "compat": path.removesuffix(".gz").endswith(".txt")}) + "\n"
        for path, text, _ in files
    )
    done = subprocess.run(
        ["ruby", str(REFERENCE)], input=given, capture_output=True, text=True, check=True
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def shown(fragment: str) -> str:
    return " ".join(html.unescape(_TAG.sub(" ", fragment)).split())


# Asciidoctor's typography (curly quotes, dashes, ellipses; compat-mode's quotes dropped),
# which docqa does not apply: titles are compared with it undone on both sides
_REPLACED = {"—": "--", "…": "...", "→": "->", "⇒": "=>", "←": "<-", "⇐": "<="}
_TYPOGRAPHY = str.maketrans({**dict.fromkeys("’‘“”'\"`\u200b"), **_REPLACED})


def plain_title(title: str) -> str:
    return " ".join(title.translate(_TYPOGRAPHY).split())


def titles_of(document: Document) -> list[str]:
    return [plain_title(s.heading) for s in document.sections if s.level]


def reference_titles(read: dict[str, Any]) -> list[str]:
    first = [read["doctitle"]] if read.get("doctitle") else []
    return [plain_title(html.unescape(_TAG.sub("", t))) for t in first + read["titles"]]


def words(text: str) -> Counter[str]:
    return Counter(w.lower() for w in _WORD.findall(text))


def words_of(document: Document) -> Counter[str]:
    parts = [s.heading for s in document.sections]
    parts += [b.text for s in document.sections for b in s.blocks]
    return words(" ".join(parts))


def compare(
    files: list[tuple[str, str, Document]], reads: list[dict[str, Any]], sample: int
) -> None:
    both = [(p, d, r) for (p, _, d), r in zip(files, reads, strict=True) if "error" not in r]
    same = [p for p, d, r in both if titles_of(d) == reference_titles(r)]
    print(f"Asciidoctor: {len(reads) - len(both)} errors; the same section titles in "
          f"{len(same)} of {len(both)} files")  # fmt: skip
    differ = [(p, d, r) for p, d, r in both if p not in set(same)]
    for path, d, r in differ[:sample]:
        ours, theirs = titles_of(d), reference_titles(r)
        first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), None)
        at = min(len(ours), len(theirs)) if first is None else first
        print(f"  {path}: {len(ours)} / {len(theirs)} titles; at {at}: "
              f"{ours[at:at + 1]} / {theirs[at:at + 1]}")  # fmt: skip
    total = missing = 0
    lost: list[tuple[int, str, Counter[str]]] = []
    extra: Counter[str] = Counter()
    for path, d, r in both:
        theirs = words(shown(r["html"]) + " " + (r.get("doctitle") or ""))
        gone = theirs - words_of(d)
        extra += words_of(d) - theirs
        total, missing = total + theirs.total(), missing + gone.total()
        lost.append((gone.total(), path, gone))
    print(f"words of Asciidoctor's text docqa holds: {1 - missing / max(total, 1):.4f} "
          f"({missing} of {total} missing); docqa's words beyond them: {extra.total()} "
          f"({dict(extra.most_common(8))})")  # fmt: skip
    for count, path, gone in sorted(lost, key=lambda x: -x[0])[:sample]:
        print(f"  {count} {path}: {dict(gone.most_common(6))}")


def speed(files: list[tuple[str, str, Document]], rounds: int, size: float) -> None:
    """MB/s of each reader, ``rounds`` rounds (docqa timed here; Asciidoctor in its process)."""
    ours, theirs = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for path, text, _ in files:
            parse_document(Path(path).name.removesuffix(".gz"), text)
        ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        asciidoctor(files)
        theirs.append(time.perf_counter() - t0)
    a, b = sorted(ours)[rounds // 2], sorted(theirs)[rounds // 2]
    print(f"docqa: {size / a:.1f} MB/s; Asciidoctor (one process, start-up included): "
          f"{size / b:.2f} MB/s; docqa {b / a:.1f}x Asciidoctor (medians of {rounds})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", type=Path, action="append")
    parser.add_argument("--rounds", type=int, default=0)
    parser.add_argument("--sample", type=int, default=8)
    args = parser.parse_args()
    files = adoc_files(args.root or ROOTS)
    size = sum(len(text.encode()) for _, text, _ in files) / 1e6
    txt = sum(p.removesuffix(".gz").endswith(".txt") for p, _, _ in files)
    print(f"{len(files)} files ({txt} .txt read as AsciiDoc), {size:.2f} MB; docqa 0 errors")
    blocks = [b.text for *_, d in files for s in d.sections for b in s.blocks if b.kind == "text"]
    left = [t for t in blocks if _LEFT.search(t)]
    print(f"docqa: {sum(len(titles_of(d)) for *_, d in files)} section titles; "
          f"{len(left)} of {len(blocks)} text blocks with markup left")  # fmt: skip
    compare(files, asciidoctor(files), args.sample)
    for text in random.Random(7).sample(left, min(args.sample, len(left))):
        print(f"  left: {text[:150]}")
    if args.rounds:
        speed(files, args.rounds, size)


if __name__ == "__main__":
    main()
