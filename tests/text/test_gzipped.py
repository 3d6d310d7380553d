"""Gzipped pages (``guide.md.gz``, as Debian ships documentation) load as their unpacked twin."""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
from dataclasses import replace
from pathlib import Path, PurePosixPath

import pytest
from docqa_cli import docqa as run_docqa
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa.text import chunk_document, load_paths
from docqa.text.documents import Document, SkippedFile
from docqa.text.loaders import FORMATS, document_from_bytes, find_files, format_of

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "examples" / "library"


def parsed(source: str, data: bytes) -> Document | SkippedFile:
    return document_from_bytes(source, data, hashlib.sha256(data).hexdigest())


@pytest.mark.parametrize(
    ("name", "kind"),
    [("guide.md.gz", "markdown"), ("a/b.HTML.GZ", "html"), ("notes.txt.gz", "text"),
     ("scan.pdf.gz", "pdf"), ("guide.md", "markdown"), ("changelog.gz", None),
     ("README.gz", "text"), ("copyright", None), (".gz", None), ("x.tar.gz", None), ("guide.md.gz.gz", None)],
)  # fmt: skip
def test_the_format_looks_through_one_gz(name: str, kind: str | None) -> None:
    assert format_of(name) == kind


@pytest.mark.parametrize("name", sorted(p.name for p in LIBRARY.iterdir()))
def test_every_sample_file_gzipped_is_the_same_document(name: str) -> None:
    data = (LIBRARY / name).read_bytes()
    plain = parsed(name, data)
    packed = parsed(f"{name}.gz", gzip.compress(data))
    assert isinstance(plain, Document) and isinstance(packed, Document)
    assert packed.source == f"{name}.gz"
    assert replace(packed, source=name, content_hash=plain.content_hash) == plain
    # the ids are the unpacked file's: loans.md.gz#loan-periods is loans#loan-periods
    assert [c.id for c in chunk_document(packed)] == [c.id for c in chunk_document(plain)]


def test_members_and_padding_are_read_as_gzip_does() -> None:
    from docqa.text.reading import _gunzip

    text = b"# Parking\n\nThe car park closes at 9 p.m.\n"
    two = gzip.compress(text[:12]) + gzip.compress(text[12:]) + b"\0\0\0"
    for packed in (gzip.compress(b""), gzip.compress(text), two, two + gzip.compress(b"x")):
        assert _gunzip(packed) == gzip.decompress(packed)  # the unbounded reference
    document = parsed("park.md.gz", two)
    assert isinstance(document, Document)
    assert document.sections[0].blocks[0].text == "The car park closes at 9 p.m."


def test_a_broken_gzip_file_is_skipped_with_its_reason() -> None:
    data = gzip.compress(b"# Parking\n\nThe car park closes at 9 p.m.\n")
    bad_crc = data[:-8] + bytes([data[-8] ^ 0xFF]) + data[-7:]
    broken = parsed("a.md.gz", bad_crc)
    assert isinstance(broken, SkippedFile)
    assert broken.reason.startswith("not a readable gzip file (") and "unpack it" in broken.reason
    cut = parsed("a.md.gz", data[:-10])
    assert isinstance(cut, SkippedFile)
    assert cut.reason == "a truncated gzip file; unpack it to index it"
    plain = parsed("a.md.gz", b"# not gzipped at all\n")
    assert isinstance(plain, SkippedFile) and "not a readable gzip file" in plain.reason


def test_a_gzip_bomb_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from docqa.text import reading

    monkeypatch.setattr(reading, "MAX_GUNZIPPED", 1000)
    bomb = gzip.compress(b"a" * 1001)
    assert len(bomb) < 100
    result = parsed("bomb.txt.gz", bomb)
    assert isinstance(result, SkippedFile)
    assert result.reason == "unpacks to more than 0 MiB; unpack it to index it"
    ok = parsed("fine.txt.gz", gzip.compress(b"a" * 1000))
    assert isinstance(ok, Document)
    # the bound holds across members too
    many = parsed("bomb.txt.gz", gzip.compress(b"a" * 600) * 2)
    assert isinstance(many, SkippedFile) and "unpacks to more than" in many.reason


def test_a_folder_of_gzipped_pages_loads_and_counts_the_rest(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "loans.md.gz").write_bytes(gzip.compress((LIBRARY / "loans.md").read_bytes()))
    (docs / "changelog.Debian.gz").write_bytes(gzip.compress(b"docqa (1.0) unstable"))
    documents, report = load_paths([docs])
    assert [d.source for d in documents] == ["loans.md.gz"] and not report.skipped
    from collections import Counter

    others: Counter[str] = Counter()
    find_files([docs], others)
    assert others == {".gz": 1}  # a gzipped file of no type docqa reads is passed over


def test_the_cli_indexes_and_cites_a_gzipped_page(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "renewals.md.gz").write_bytes(gzip.compress((LIBRARY / "renewals.md").read_bytes()))

    def docqa(*args: str) -> subprocess.CompletedProcess[str]:
        return run_docqa(*args, cwd=tmp_path)

    built = docqa("index", "docs", "--index", "ix")
    assert built.returncode == 0, built.stderr
    assert "indexed 1 document" in built.stdout and "passed over" not in built.stdout
    found = docqa("search", "What does error RNW-409 mean?", "--index", "ix", "--json", "-k", "1")
    assert found.returncode == 0, found.stderr
    (hit,) = json.loads(found.stdout)["hits"]
    assert hit["id"] == "renewals#when-a-renewal-is-refused"
    assert "RNW-409" in hit["text"]


SEGMENTS = st.text(alphabet="ab.MDmdhtlgzHTML", min_size=1, max_size=8).filter(
    lambda s: s not in (".", "..")
)


@settings(max_examples=400, deadline=None)
@given(st.lists(SEGMENTS, min_size=1, max_size=3).map("/".join))
def test_the_format_is_that_of_the_path_suffix(name: str) -> None:
    # format_of reads the suffix of a file's name or source without making a path; the rule
    # is PurePosixPath's
    stripped = name[: -len(".gz")] if name.lower().endswith(".gz") else name
    assert format_of(name) == FORMATS.get(PurePosixPath(stripped).suffix.lower())
