"""Which ``.txt`` files docqa reads as AsciiDoc: every ``*.txt`` and ``*.txt.gz`` below the roots.

Prints the files read, how many the detector (``docqa.text.asciidoc_detect``) claims, by
folder, and every claimed file outside the folders given with ``--expect`` (the folders known
to hold AsciiDoc sources: git's documentation by default), to read by eye; then the files of
the expected folders it does not claim. Run:

    .venv/bin/python benchmarks/quality/adoc_detect.py [--root DIR ...] [--expect DIR ...]
"""

from __future__ import annotations

import argparse
import gzip
from collections import Counter
from pathlib import Path

from docqa.text.asciidoc_detect import looks_like_asciidoc

ROOTS = [Path("/usr/share/doc")]
EXPECT = [Path("/usr/share/doc/git-doc"), Path("/usr/share/doc/git/contrib")]


def text_files(roots: list[Path]) -> list[tuple[Path, str]]:
    """``(path, text)`` of every ``.txt`` file below ``roots`` (gzipped too), UTF-8 or not."""
    out = []
    for root in roots:
        for path in sorted(root.rglob("*")):
            name = path.name.removesuffix(".gz")
            if not (path.is_file() and name.endswith(".txt")):
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
    parser.add_argument("--root", type=Path, action="append")
    parser.add_argument("--expect", type=Path, action="append")
    args = parser.parse_args()
    expect = args.expect or EXPECT
    files = text_files(args.root or ROOTS)
    claimed = [(p, t) for p, t in files if looks_like_asciidoc(t)]
    expected = [p for p, _ in files if any(p.is_relative_to(e) for e in expect)]
    print(f"{len(files)} .txt files; {len(claimed)} read as AsciiDoc")
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
