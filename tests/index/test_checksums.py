"""Format-2 checksums (xxh3-128, hashed as written) against their definition, and indexes
written by the previous format (sha256, version 1) still opened, verified and updated."""

from __future__ import annotations

import hashlib
import json
import mmap
from pathlib import Path

import numpy as np
import pytest
import xxhash
from hypothesis import given
from hypothesis import strategies as st

from docqa.build import IndexSettings, build_index
from docqa.errors import IndexCorrupt
from docqa.index import checksum, open_index
from docqa.index import format as fmt
from docqa.index.builder import _Sink


def definition(data: bytes, head: int) -> str:
    return str(xxhash.xxh3_128(data[:head] + xxhash.xxh3_128(data[head:]).digest()).hexdigest())


@given(st.binary(max_size=3000), st.data())
def test_streaming_digest_is_the_definition(data: bytes, draw: st.DataObject) -> None:
    head = draw.draw(st.integers(0, len(data)))
    cuts = sorted(draw.draw(st.lists(st.integers(head, len(data)), max_size=4)))
    digest = checksum.Streaming()
    for a, b in zip([head, *cuts], [*cuts, len(data)], strict=True):
        digest.update(data[a:b])
    assert digest.finish(data[:head]) == definition(data, head)
    raw = np.frombuffer(data, dtype=np.uint8)
    assert checksum.digest_of(raw, checksum.XXH3, head) == definition(data, head)
    assert checksum.digest_of(raw, checksum.SHA256) == hashlib.sha256(data).hexdigest()


def test_mapped_file_in_many_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checksum, "BLOCK", mmap.PAGESIZE)  # many blocks, pages released each
    data = np.random.default_rng(0).integers(0, 256, 10 * mmap.PAGESIZE + 77, np.uint8).tobytes()
    path = tmp_path / "f"
    path.write_bytes(data)
    with open(path, "rb") as f:
        raw = np.frombuffer(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ), dtype=np.uint8)
    assert checksum.digest_of(raw, checksum.XXH3, 128) == definition(data, 128)
    assert raw.tobytes() == data  # released pages read back from the page cache


def test_sink_entry_matches_the_file(tmp_path: Path) -> None:
    sink = _Sink(tmp_path / "x.npy", b"\0" * 8)
    for part in (b"abc", b"", b"defg" * 1000):
        sink.write(part)
    entry = sink.finish(b"HEADER!!")
    data = (tmp_path / "x.npy").read_bytes()
    assert (entry.size, entry.head, entry.algo) == (len(data), 8, "xxh3_128")
    assert data.startswith(b"HEADER!!") and entry.digest == definition(data, 8)


def corpus(root: Path) -> Path:
    for i in range(5):
        (root / f"p{i}.md").parent.mkdir(parents=True, exist_ok=True)
        (root / f"p{i}.md").write_text(f"# Page {i}\n\nwords w{i} w{i * 2} common\n")
    return root


def as_format_1(ix: Path) -> None:
    """Rewrite ``ix``'s manifest as the previous format wrote it: version 1, sha256."""
    doc = json.loads((ix / fmt.MANIFEST).read_text())
    doc["version"] = 1
    doc["files"] = {
        rel: {"size": e["size"], "sha256": hashlib.sha256((ix / rel).read_bytes()).hexdigest()}
        for rel, e in doc["files"].items()
    }
    (ix / fmt.MANIFEST).write_text(json.dumps(doc))


def test_a_format_1_index_opens_verifies_and_updates(tmp_path: Path) -> None:
    docs = corpus(tmp_path / "docs")
    settings = IndexSettings(dim=16)
    build_index([docs], tmp_path / "ix", settings, workers=1)
    as_format_1(tmp_path / "ix")
    old = open_index(tmp_path / "ix")
    assert old.manifest.version == 1 and old.manifest.files[fmt.VECTORS].algo == "sha256"
    old.verify()
    (docs / "p1.md").write_text("# Page one\n\nedited words\n")
    report = build_index([docs], tmp_path / "ix", settings, workers=1)
    assert report.reused > 0 and not report.warnings  # its rows were reused
    new = open_index(tmp_path / "ix")
    assert new.manifest.version == fmt.FORMAT_VERSION == 2
    assert {e.algo for e in new.manifest.files.values()} == {"xxh3_128"}
    new.verify()
    build_index([docs], tmp_path / "fresh", settings, workers=1)
    for rel in new.manifest.files:
        assert (tmp_path / "ix" / rel).read_bytes() == (tmp_path / "fresh" / rel).read_bytes()


@pytest.mark.parametrize("version", [1, 2])
def test_damage_fails_its_checksum_in_either_format(tmp_path: Path, version: int) -> None:
    build_index([corpus(tmp_path / "docs")], tmp_path / "ix", IndexSettings(dim=16), workers=1)
    if version == 1:
        as_format_1(tmp_path / "ix")
    blob = tmp_path / "ix" / fmt.BLOB
    data = bytearray(blob.read_bytes())
    data[len(data) // 2] ^= 1
    blob.write_bytes(bytes(data))
    algo = "sha256" if version == 1 else "xxh3_128"
    with pytest.raises(IndexCorrupt, match=rf"chunks.blob fails its checksum \({algo} "):
        open_index(tmp_path / "ix").verify()
    # an update that checks the index (a delta links its base unread) does not copy from the
    # damaged index: it says so and re-embeds every file
    report = build_index(
        [tmp_path / "docs"], tmp_path / "ix", IndexSettings(dim=16), workers=1, verify=True
    )
    assert report.reused == 0 and "previous index not reused" in report.warnings[0]
    open_index(tmp_path / "ix").verify()


def test_malformed_entries_are_refused(tmp_path: Path) -> None:
    build_index([corpus(tmp_path / "docs")], tmp_path / "ix", IndexSettings(dim=16), workers=1)
    manifest = tmp_path / "ix" / fmt.MANIFEST
    good = json.loads(manifest.read_text())
    for bad in ({"xxh3_128": "00"}, {"head": -1}, {"head": 10**12}, {"xxh3_128": "x" * 32}):
        doc = json.loads(json.dumps(good))
        doc["files"][fmt.VECTORS].update(bad)
        manifest.write_text(json.dumps(doc))
        with pytest.raises(IndexCorrupt, match="malformed entry for 'vectors.npy'"):
            open_index(tmp_path / "ix")


def mapped_kb(array: np.ndarray) -> int:
    """Resident kB of the mapping that holds ``array``'s data (/proc/self/smaps): the pages of
    that file mapped into this process, whatever else the process allocates meanwhile."""
    address = array.__array_interface__["data"][0]
    inside = False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split(maxsplit=1)[0]
        if "-" in head and not head.endswith(":"):
            start, end = (int(x, 16) for x in head.split("-"))
            inside = start <= address < end
        elif inside and head == "Rss:":
            return int(line.split()[1])
    raise AssertionError("array is not in a mapping of this process")


SMAPS = pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="reads /proc")


@SMAPS
def test_verify_releases_the_pages_it_read(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(np.random.default_rng(1).integers(0, 256, 64 << 20, np.uint8).tobytes())
    with open(path, "rb") as f:
        raw = np.frombuffer(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ), dtype=np.uint8)
    checksum.digest_of(raw, checksum.XXH3, 0)
    assert mapped_kb(raw) < 16 << 10  # 64 MiB read, well under 16 MiB kept


@SMAPS
def test_release_view_keeps_the_bytes(tmp_path: Path) -> None:
    arr = np.arange(3 << 20, dtype=np.int32)
    np.save(tmp_path / "a.npy", arr)
    build_index([corpus(tmp_path / "docs")], tmp_path / "ix", IndexSettings(dim=16), workers=1)
    with open(tmp_path / "a.npy", "rb") as f:
        raw = np.frombuffer(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ), dtype=np.uint8)
    view = raw[128:].view(np.int32)
    total = int(view[1000:].sum(dtype=np.int64))
    assert mapped_kb(raw) > 8 << 10  # 12 MiB read: resident
    checksum.release_view(view[1000:])
    assert mapped_kb(raw) < 4 << 10  # its pages dropped again
    assert int(view[1000:].sum(dtype=np.int64)) == total  # read back from the cache
    checksum.release_view(np.arange(5))  # not mapped: nothing to do
    checksum.release_view(open_index(tmp_path / "ix").array("bm25_rows")[1:])
