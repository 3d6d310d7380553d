"""A small generated corpus (two tenants, repeated phrases so scores tie) and comparisons."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from docqa.index import open_index
from docqa.index.shards import open_sharded

TOPICS = ["loans", "fines", "printing", "holds", "events", "laptops", "naïve café"]


def write_corpus(root: Path, n_files: int = 9) -> Path:
    """``n_files`` Markdown files (some in a subfolder) of several sections each."""
    for i in range(n_files):
        topic = TOPICS[i % len(TOPICS)]
        tenant = "north" if i % 3 else "south"
        sections = "\n\n".join(
            f"## {topic.title()} part {j}\n\n"
            + " ".join(f"The {topic} rule {j} says item {i * j % 5} costs {j} coins." for _ in range(j + 1))
            for j in range(1 + i % 4)
        )  # fmt: skip
        folder = root / ("sub" if i % 2 else "")
        folder.mkdir(parents=True, exist_ok=True)
        text = f"---\ntenant: {tenant}\n---\n# {topic.title()} {i}\n\n{sections}\n"
        (folder / f"page-{i:02d}.md").write_text(text, encoding="utf-8")
    return root


QUESTIONS = [
    "how much do fines cost",
    "printing rule 2",
    "laptops item 3 coins",
    "naïve café",
    "nothing matches zebra",
    "the loans rule says",
    "holds part 1",
    "events costs 2 coins",
    "rule",
]


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by relative path; manifests with their times taken out."""
    out = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.name == "manifest.json":
            doc = json.loads(data)
            doc.pop("created")
            for shard in doc.get("shards", []):
                shard.pop("manifest_sha256")  # covers the shard manifest's time
            data = json.dumps(doc, sort_keys=True).encode()
        out[str(path.relative_to(root))] = data
    return out


def same_rows(single: Path, sharded: Path) -> None:
    """The sharded index holds the one-directory index's rows, vectors and chunks in order."""
    one, many = open_index(single), open_sharded(sharded)
    assert len(one) == len(many)
    assert np.array_equal(one.vectors, np.concatenate([s.vectors for s in many.shards]))
    assert list(one.chunks) == list(many.chunks)
    assert [many.chunks[i] for i in range(len(many))] == list(one.chunks)
    assert many.chunks[-1] == one.chunks[-1] and many.chunks[1:3] == one.chunks[1:3]
