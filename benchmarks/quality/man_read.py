"""How close docqa's manual-page reader comes to what ``man`` prints: per page, the share of
the words groff prints that docqa's text holds (nothing lost) and the share of docqa's words
that groff prints (no macro name or escape read as text), over the pages given.

Needs groff (``groff -mandoc -Tutf8``, as ``man`` runs it, man(7) and mdoc(7) pages alike). Words are runs of letters and digits,
compared as multisets; groff's header and footer lines and its hyphenation at line ends are
undone first. Run:

    .venv/bin/python benchmarks/quality/man_read.py /usr/share/man/man1/git*.1.gz
        [--worst 5]
"""

from __future__ import annotations

import argparse
import gzip
import re
import statistics
import subprocess
from collections import Counter
from pathlib import Path

from docqa.errors import InputError
from docqa.text.documents import Block, Heading
from docqa.text.man import is_mdoc, man_items
from docqa.text.mdoc import mdoc_items

_WORD = re.compile(r"[^\W_]+")


def groff_text(roff: str) -> str:
    """The page as ``man`` prints it, its header and footer lines dropped, words hyphenated at
    a line's end joined again."""
    out = subprocess.run(
        ["groff", "-mandoc", "-Tutf8", "-P", "-cbou", "-rLL=200n", "-rHY=0"],
        input=roff,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    ).stdout
    lines = [ln for ln in out.splitlines() if ln.strip()]
    return "\n".join(lines[1:-1])


def docqa_text(roff: str) -> str:
    """The page's text as docqa reads it (its headings and blocks, a line each)."""
    items = mdoc_items(roff) if is_mdoc(roff) else man_items(roff)
    return "\n".join(item.text for item in items if isinstance(item, Heading | Block))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="+", type=Path)
    parser.add_argument("--worst", type=int, default=5, help="pages listed with the lowest recall")
    args = parser.parse_args()
    rows = []
    for page in args.pages:
        data = page.read_bytes()
        roff = (gzip.decompress(data) if page.suffix == ".gz" else data).decode("utf-8", "replace")
        try:
            ours = Counter(_WORD.findall(docqa_text(roff).lower()))
        except InputError as exc:
            print(f"{page.name}: skipped ({exc})")
            continue
        theirs = Counter(_WORD.findall(groff_text(roff).lower()))
        if not theirs:
            continue
        common = sum((ours & theirs).values())
        rows.append((common / sum(theirs.values()), common / max(1, sum(ours.values())), page.name))
    recall = [r for r, _, _ in rows]
    precision = [p for _, p, _ in rows]
    print(f"{len(rows)} pages: groff's words docqa holds median {statistics.median(recall):.4f} "
          f"min {min(recall):.4f}; docqa's words groff prints median "
          f"{statistics.median(precision):.4f} min {min(precision):.4f}")  # fmt: skip
    for r, p, name in sorted(rows)[: args.worst]:
        print(f"  {name}: held {r:.4f}, printed {p:.4f}")


if __name__ == "__main__":
    main()
