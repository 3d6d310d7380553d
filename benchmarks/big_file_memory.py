"""Peak memory of ``docqa index`` on one large ``.txt`` file, with and without headings.

Writes, in a temporary folder, a file of ``--mb`` megabytes of real prose lines (the
docstrings of ``corpus.english_text``, each line kept only when it starts with a lower-case
letter, so none can read as a heading: no number, capital, ``#`` or underline starts one),
as paragraphs of four lines; ``--headings`` puts a numbered heading (``12.3. Section 45``)
before every twentieth paragraph. Then runs

    /usr/bin/time -v docqa index FILE --index DIR --embedder hashing --workers 1 --quiet

and prints the file's size, the peak RSS (``Maximum resident set size``) and their ratio.
Everything written is deleted at the end. Run (one run is enough: RSS is not timing-sensitive):

    PYTHONPATH=src .venv/bin/python benchmarks/big_file_memory.py [--mb 200] [--headings]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from corpus import english_text

from docqa.text.loaders import parse_document

MB = 1_000_000
PARAGRAPH_LINES = 4
HEADING_EVERY = 20  # paragraphs
_PROSE = re.compile(r"[a-z][^\[\]:<>|`*_=#]{29,99}")  # nothing AsciiDoc or a heading reads


def prose_paragraphs() -> list[str]:
    """The corpus' prose lines, in order, as paragraphs of ``PARAGRAPH_LINES`` lines."""
    text, _ = english_text(20.0)
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if _PROSE.fullmatch(line)]
    return [
        "\n".join(lines[i : i + PARAGRAPH_LINES])
        for i in range(0, len(lines) - PARAGRAPH_LINES + 1, PARAGRAPH_LINES)
    ]


def write_text(path: Path, megabytes: float, headings: bool) -> int:
    """Write the file (module doc) and return its size in bytes."""
    paragraphs = prose_paragraphs()
    sample = parse_document("sample.txt", "\n\n".join(paragraphs[:2000]) + "\n")
    if len(sample.sections) != 1:  # the filter let a heading through: fix ``_PROSE``
        raise SystemExit(f"prose sample has {len(sample.sections)} sections, wanted 1")
    size, at, written = int(megabytes * MB), 0, 0
    with path.open("w", encoding="utf-8") as out:
        while written < size:
            if headings and at % HEADING_EVERY == 0:
                n = at // HEADING_EVERY
                written += out.write(f"{n % 900 + 1}.{n % 7 + 1}. Section {n}\n\n")
            written += out.write(paragraphs[at % len(paragraphs)] + "\n\n")
            at += 1
    return path.stat().st_size


def peak_rss(path: Path, index: Path) -> int:
    """``docqa index``'s maximum resident set size in bytes (``/usr/bin/time -v``)."""
    docqa = Path(sys.executable).with_name("docqa")
    cmd = ["/usr/bin/time", "-v", str(docqa), "index", str(path), "--index", str(index)]
    cmd += ["--embedder", "hashing", "--workers", "1", "--quiet"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    print(done.stdout.strip())
    kb = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    if kb is None:
        raise SystemExit(f"no peak RSS in /usr/bin/time's output:\n{done.stderr}")
    return int(kb.group(1)) * 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=200.0)
    parser.add_argument("--headings", action="store_true")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="docqa-big-file-"))
    try:
        path = folder / "big.txt"
        size = write_text(path, args.mb, args.headings)
        peak = peak_rss(path, folder / "index")
        kind = "with headings" if args.headings else "without headings"
        print(f"{size / MB:.0f} MB .txt {kind}: peak RSS {peak / MB:.0f} MB, "
              f"{peak / size:.1f}x the file")  # fmt: skip
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
