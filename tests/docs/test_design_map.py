"""docs/design.md draws today's modules: every file it names is a file of the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "docqa"
PAGE = ROOT / "docs" / "design.md"


def named_files(text: str) -> set[str]:
    """The module files the page names (``build.py``, ``index/reader.py``)."""
    return set(re.findall(r"(?<![\w/.])((?:[a-z_]+/)*[a-z_]+\.py)\b", text))


def named_native(text: str) -> set[str]:
    """The native modules the page names as boxes (``_parse``, ``_compact``)."""
    return set(re.findall(r"(?<![\w./])(_[a-z0-9]+)\b(?!\.)", text)) - {"_checks"}


def exists(name: str) -> bool:
    if (PACKAGE / name).is_file():
        return True
    return "/" not in name and any(PACKAGE.rglob(name))  # a bare name in a box beside its folder


def test_every_file_the_map_names_exists() -> None:
    text = PAGE.read_text(encoding="utf-8")
    names = named_files(text)
    assert len(names) >= 40, sorted(names)  # the map names the modules, not a few
    assert [name for name in sorted(names) if not exists(name)] == []


def test_every_native_module_the_map_names_is_built_from_csrc() -> None:
    text = PAGE.read_text(encoding="utf-8")
    native = named_native(text)
    assert {"_parse", "_compact", "_tokenize"} <= native, native
    assert [m for m in sorted(native) if not (ROOT / "csrc" / f"{m}.pyx").is_file()] == []


def test_the_map_points_at_nothing_outside_the_repository() -> None:
    assert "../shared" not in PAGE.read_text(encoding="utf-8")
