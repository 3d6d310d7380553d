"""How the plain-text reader cuts text it was not written on: every text file under a folder.

Reads every ``*.txt``, ``*.txt.gz``, ``README``, ``NEWS``, ``FAQ`` and ``TODO`` (also gzipped)
below ``--root`` (default ``/usr/share/doc``) as docqa reads a ``.txt`` file, and prints the
files read, parse errors, the headings found and in how many files, then a seeded sample of
headings (and of the long ones, 7 words or more) to read by eye for false headings. Run:

    .venv/bin/python benchmarks/quality/plain_headings.py [--root DIR] [--sample 50]
"""

from __future__ import annotations

import argparse
import gzip
import random
from pathlib import Path

from docqa.text.loaders import parse_document

NAMES = {"README", "NEWS", "FAQ", "TODO"}


def text_files(root: Path) -> list[Path]:
    def wanted(p: Path) -> bool:
        name = p.name.removesuffix(".gz")
        return name.endswith(".txt") or name in NAMES

    return sorted(p for p in root.rglob("*") if p.is_file() and wanted(p))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", type=Path, default=Path("/usr/share/doc"))
    parser.add_argument("--sample", type=int, default=50)
    args = parser.parse_args()
    files = text_files(args.root)
    heads: list[tuple[str, str, int]] = []
    errors = 0
    for f in files:
        raw = f.read_bytes()
        try:
            data = gzip.decompress(raw) if f.suffix == ".gz" else raw
            name = f.name.removesuffix(".gz")
            doc = parse_document(name if name.endswith(".txt") else f"{name}.txt", data.decode(
                "utf-8", "replace"))  # fmt: skip
        except Exception as exc:  # noqa: BLE001 - counted and shown: that is the measurement
            errors += 1
            print(f"error: {f}: {exc!r}")
            continue
        rel = str(f.relative_to(args.root))
        heads += [(rel, s.heading, s.level) for s in doc.sections if s.heading]
    print(f"{len(files)} files, {errors} errors, {len(heads)} headings in "
          f"{len({h[0] for h in heads})} files")  # fmt: skip
    rng = random.Random(7)
    long = [h for h in heads if len(h[1].split()) >= 7]
    for title, group in (("sample", heads), ("sample of long headings", long)):
        print(f"\n{title}:")
        for rel, heading, level in rng.sample(group, min(args.sample, len(group))):
            print(f"  {rel[:45]:45s} | {level} {heading[:80]}")


if __name__ == "__main__":
    main()
