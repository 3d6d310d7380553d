"""A folder of real documentation replicated to a size, for the end-to-end indexing benchmark.

The seed is the pydocs evaluation corpus (Sphinx HTML pages of the Python docs) plus every
Markdown file over 2 kB found under ``/usr`` and ``/root`` (Node.js API docs and the like),
copied under distinct names; the seed is then copied into ``rep-0000``, ``rep-0001``, ... until
the folder holds the size asked for. Nothing is committed; the folder is built once per size.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

MB = 1_000_000
# shared/ lies beside the repository (or beside the folder of its worktrees)
PYDOCS = next(
    (
        found
        for root in Path(__file__).resolve().parents[2:4]
        if (found := root / "shared" / "evalsets" / "pydocs" / "corpus").is_dir()
    ),
    Path(__file__).resolve().parents[2] / "shared" / "evalsets" / "pydocs" / "corpus",
)
MARKDOWN_ROOTS = (Path("/usr"), Path("/root"))


def _markdown_files() -> list[Path]:
    found = []
    for root in MARKDOWN_ROOTS:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                path = Path(dirpath) / name
                if name.endswith(".md") and path.is_file() and path.stat().st_size > 2048:
                    found.append(path)
    return found


def seed(where: Path, pydocs: Path = PYDOCS) -> Path:
    """One copy of the real documents under ``where/seed``."""
    out = where / "seed"
    if out.exists():
        return out
    tmp = where / "seed.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    if pydocs.is_dir():
        shutil.copytree(pydocs, tmp / "pydocs")
    md = tmp / "markdown"
    md.mkdir(parents=True)
    for i, path in enumerate(_markdown_files()):
        shutil.copyfile(path, md / f"{i:04d}-{path.name}")
    tmp.rename(out)
    return out


def size_of(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def replicated(where: Path, megabytes: int) -> Path:
    """``where/corpus-<megabytes>MB``: copies of the seed until it holds ``megabytes``."""
    out = where / f"corpus-{megabytes}MB"
    if out.exists():
        return out
    base = seed(where)
    per_copy = size_of(base)
    tmp = where / f"corpus-{megabytes}MB.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    copies = max(1, -(-megabytes * MB // per_copy))
    for i in range(copies):
        shutil.copytree(base, tmp / f"rep-{i:04d}")
    tmp.rename(out)
    return out
