"""Small builders shared by the hardening tests: a tiny index, a CLI run, byte flips."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import numpy as np
from docqa_cli import docqa_bytes

from docqa.types import Chunk

EMBEDDER = {"name": "hashing-8", "dim": 8, "config": {"seed": 1}}


def chunk(i: int, text: str) -> Chunk:
    return Chunk(
        id=f"doc#p{i}",
        section="doc#s",
        heading_path=("Doc",),
        source="doc.md",
        position=i,
        start_line=i + 1,
        end_line=i + 1,
        text=text,
        content_hash=hashlib.sha256(text.encode()).hexdigest(),
    )


def tagged(tag: int, n: int = 6) -> tuple[list[Chunk], np.ndarray]:
    """``n`` chunks whose text names ``tag`` and row, and vectors that encode the same pair,
    so a reader can tell whether vectors and texts came from one build."""
    chunks = [chunk(i, f"build {tag} row {i}") for i in range(n)]
    vectors = np.zeros((n, 8), np.float32)
    vectors[:, 0] = tag
    vectors[:, 1] = np.arange(n)
    return chunks, vectors


def docqa(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    """Run the docqa command in a subprocess (bytes out, so escapes are seen as sent)."""
    return docqa_bytes(*args, cwd=cwd, timeout=timeout)


def assert_one_line_error(result: subprocess.CompletedProcess[bytes]) -> str:
    """Exit 2, one stderr line starting ``docqa``, no traceback; returns the line."""
    err = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("docqa"), err
    assert "Traceback" not in err
    return lines[0]


def flip_byte(path: Path, offset: int) -> None:
    """Invert one byte of ``path`` in place (same size)."""
    data = bytearray(path.read_bytes())
    data[offset % len(data)] ^= 0xFF
    path.write_bytes(bytes(data))


def rewrite_manifest(root: Path, **changes: object) -> None:
    doc = json.loads((root / "manifest.json").read_text())
    doc.update(changes)
    (root / "manifest.json").write_text(json.dumps(doc))


def reseal(root: Path, rel: str) -> None:
    """Record ``rel``'s current size and sha256 in the manifest (a damage verify cannot see
    by checksum)."""
    doc = json.loads((root / "manifest.json").read_text())
    data = (root / rel).read_bytes()
    doc["files"][rel] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (root / "manifest.json").write_text(json.dumps(doc))
