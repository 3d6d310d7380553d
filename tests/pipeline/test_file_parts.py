"""A large file's chunks go through the build in parts (``work.parts``), a long section's in
pieces: the index is the same bytes as when each file is one part, for any worker count and
on an update, with headings and without (one section); one file's peak of Python memory
stays within a few times its size."""

from __future__ import annotations

import filecmp
import json
import random
import shutil
import tracemalloc
from pathlib import Path

import pytest

from docqa.build import IndexSettings, build_index
from docqa.embed.hashing import HashingEmbedder
from docqa.pipeline import work
from docqa.text import reading
from docqa.text.loaders import parse_document
from docqa.text.records import chunk_records

LIBRARY = Path(__file__).resolve().parents[2] / "examples" / "library"
SETTINGS = IndexSettings(dim=32)
DATA = ("vectors.npy", "chunks.blob", "chunks.offsets.npy")


def same_index(a: Path, b: Path) -> None:
    names = [*DATA, *(f"arrays/{p.name}" for p in (a / "arrays").iterdir())]
    for name in names:
        assert filecmp.cmp(a / name, b / name, shallow=False), name
    files = [json.loads((ix / "manifest.json").read_text())["meta"]["files"] for ix in (a, b)]
    assert files[0] == files[1]  # each file's rows whole, however many parts held them


def long_text(n_bytes: int, seed: int = 7, headings: bool = True) -> str:
    """Paragraphs of made-up words under a numbered heading every ~20 paragraphs (none
    without ``headings``: the file is one section)."""
    rng = random.Random(seed)
    words = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(2, 9)))
             for _ in range(5000)]  # fmt: skip
    out, size, section = [], 0, 0
    while size < n_bytes:
        if headings and rng.random() < 0.05:
            section += 1
            para = (
                f"{section % 900 + 1}.{section % 7 + 1}. Section {section} on {rng.choice(words)}"
            )
        else:
            para = "\n".join(" ".join(rng.choices(words, k=10)) for _ in range(rng.randint(2, 8)))
        out.append(para)
        size += len(para) + 2
    return "\n\n".join(out) + "\n"


@pytest.mark.parametrize(("workers", "headings"), [(1, True), (2, True), (1, False), (2, False)])
def test_files_in_parts_give_the_same_index(tmp_path, monkeypatch, workers, headings) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(LIBRARY, docs)
    (docs / "long.txt").write_text(long_text(300_000, headings=headings))
    build_index([docs], tmp_path / "whole", SETTINGS, workers=1)
    monkeypatch.setattr(work, "PART_CHARS", 3000)  # every page (section) of more than 3,000
    monkeypatch.setattr("docqa.pipeline.stream.POOL_BYTES", 0)  # a pool even for a small corpus
    parted = build_index([docs], tmp_path / "parts", SETTINGS, workers=workers)
    assert parted.chunks == build_index([docs], tmp_path / "again", SETTINGS).chunks
    same_index(tmp_path / "whole", tmp_path / "parts")
    (docs / "long.txt").write_text(long_text(300_000, seed=8, headings=headings))  # an update
    update = build_index([docs], tmp_path / "parts", SETTINGS, workers=workers, rewrite=True)
    assert update.reused > 0  # the rest reused
    build_index([docs], tmp_path / "fresh", SETTINGS, workers=1)
    same_index(tmp_path / "fresh", tmp_path / "parts")


@pytest.mark.parametrize(("headings", "overlap", "part_chars"), [
    (True, 0, 5000), (False, 0, 5000), (False, 20, 4999), (False, 59, 777),
])  # fmt: skip
def test_a_tasks_parts_joined_are_its_whole_result(
    tmp_path, monkeypatch, headings, overlap, part_chars
) -> None:
    page = tmp_path / "long.txt"
    page.write_text(long_text(100_000, headings=headings))
    task = work.Task(((page, "long.txt"),), 60, overlap, True, HashingEmbedder(16), {})
    whole = work.run(task)
    monkeypatch.setattr(work, "PART_CHARS", part_chars)
    assert len(list(work.parts(task))) > 3
    joined = work.run(task)
    assert joined.files == whole.files and joined.records == whole.records
    assert (joined.vectors == whole.vectors).all()  # type: ignore[union-attr]
    for name in ("hashes", "rows", "tf", "lengths"):
        assert (getattr(joined.postings, name) == getattr(whole.postings, name)).all(), name


@pytest.mark.parametrize("headings", [True, False])
def test_one_large_files_peak_is_a_few_times_its_size(tmp_path: Path, headings: bool) -> None:
    page = tmp_path / "large.txt"
    page.write_text(long_text(20 << 20, headings=headings))
    size = page.stat().st_size
    task = work.Task(((page, "large.txt"),), 120, 0, True, HashingEmbedder(256), {})
    tracemalloc.start()
    try:
        rows = sum(result.record_lengths.size for result in work.parts(task))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert rows > 20_000
    # its bytes and text, then its text and one part's blocks, records, vectors and postings
    # (the text read as it is chunked): measured 3.2 with headings, 2.9 without (one section
    # windowed a piece at a time); 4.8 with the text parsed whole first, 10 with the whole
    # file's windows at once
    assert peak < 4 * size, peak / size


PLAIN = {
    "man.txt": "LS(1)\n\nNAME\n       ls - list\n\nSEE ALSO\n       dir(1)\n\nNOTE\n",
    "dump.txt": "fonts\n\nName\n\n   fonts.conf -- files\n\nUse\n\n   Two\n   lines.\n",
    "faq.txt": "FAQ\n\n1. GENERAL\n1.1. Intro\n\n2.3. Learn\n\n1. GENERAL\n\nAbout.\n\n"
    "2.3. Learn\n\nRead.\n",
    "ids.txt": "Loans p2\n========\n\nmore\n\nLoans\n=====\n\nfew words\n",  # like a window id
    "term.txt": "\x1b[1mBOLD\x1b[0m\r\n\r\nB\x08Bold text\x0cfeed\n\n\u2028",
}


@pytest.mark.parametrize("part_chars", [30, 2 << 20])
def test_a_plain_texts_rows_are_those_of_its_whole_document(tmp_path, monkeypatch, part_chars):
    files = {"long.txt": long_text(40_000), "flat.txt": long_text(20_000, headings=False)}
    files.update(PLAIN)
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8", newline="")
    monkeypatch.setattr(work, "PART_CHARS", part_chars)
    monkeypatch.setattr(reading, "STREAM_CHARS", 0)  # each text read as it is chunked
    task = work.Task(tuple((tmp_path / n, n) for n in files), 40, 5, True, None, {})
    got = work.run(task)
    docs = [parse_document(n, t) for n, t in files.items()]
    want = [r for d in docs for r in chunk_records(d, max_words=40, overlap=5)[0]]
    assert got.records == b"".join(want)  # the chunk store's bytes
    assert [f.chunks for f in got.files] == [
        len(chunk_records(d, max_words=40, overlap=5)[0]) for d in docs
    ]
