"""Which ``.txt`` files docqa reads as AsciiDoc (or, with ``--format rst``, as
reStructuredText): every ``*.txt`` and ``*.txt.gz`` below the roots.

Prints the files read, how many the detector (``docqa.text.asciidoc_detect``,
``docqa.text.rst_detect``, as ``docqa.text.reading.text_format`` asks them) claims, by folder,
and every claimed file outside the folders given with ``--expect`` (the folders known to hold
that markup: git's documentation for AsciiDoc, lighttpd's and Docutils' for
reStructuredText, by default), to read by eye; then the files of the expected folders it does
not claim. Run:

    .venv/bin/python benchmarks/quality/txt_formats.py [--format asciidoc|rst]
        [--root DIR ...] [--expect DIR ...]
"""

from __future__ import annotations

import argparse
import gzip
from collections import Counter
from pathlib import Path

from docqa.text.reading import format_of, text_format

ROOTS = [Path("/usr/share/doc")]
EXPECT = {
    "asciidoc": [Path("/usr/share/doc/git-doc"), Path("/usr/share/doc/git/contrib")],
    "rst": [Path("/usr/share/doc/lighttpd"), Path("/usr/share/doc/docutils-doc")],
}
NAMES = {"asciidoc": "AsciiDoc", "rst": "reStructuredText"}


def text_files(roots: list[Path]) -> list[tuple[Path, str]]:
    """``(path, text)`` of every ``.txt`` file below ``roots`` (gzipped too), UTF-8 or not."""
    out = []
    for root in roots:
        for path in sorted(root.rglob("*")):
            if not (path.is_file() and format_of(path.name) == "text"):
                continue
            raw = path.read_bytes()
            try:
                data = gzip.decompress(raw) if path.suffix == ".gz" else raw
            except OSError:
                continue
            out.append((path, data.decode("utf-8", "replace")))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--format", choices=sorted(EXPECT), default="asciidoc")
    parser.add_argument("--root", type=Path, action="append")
    parser.add_argument("--expect", type=Path, action="append")
    args = parser.parse_args()
    expect = args.expect or EXPECT[args.format]
    files = text_files(args.root or ROOTS)
    claimed = [(p, t) for p, t in files if text_format(t) == args.format]
    expected = [p for p, _ in files if any(p.is_relative_to(e) for e in expect)]
    print(f"{len(files)} .txt files; {len(claimed)} read as {NAMES[args.format]}")
    for folder, count in Counter(str(p.parent) for p, _ in claimed).most_common():
        print(f"  {count:4d} {folder}")
    unexpected = [p for p, _ in claimed if not any(p.is_relative_to(e) for e in expect)]
    print(f"claimed outside {', '.join(map(str, expect))}: {len(unexpected)}")
    for path in unexpected:
        print(f"  {path}")
    missed = sorted(set(expected) - {p for p, _ in claimed})
    print(f"not claimed inside them: {len(missed)} of {len(expected)}")
    for path in missed:
        print(f"  {path}")


if __name__ == "__main__":
    main()
