"""The folder walk (``docqa.text.walk``, under ``find_files``) against its reference: the
``sorted(folder.rglob("*"))`` walk it replaced, over generated trees of files, folders,
hidden entries, symbolic links (to files, to folders, dangling, in loops), pages in two
formats and file names that are not UTF-8."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa.text.documents import SkippedFile
from docqa.text.ids import id_base
from docqa.text.loaders import FORMATS, _walk_problem, find_files, format_of, printable_name
from docqa.text.walk import tree


def reference(given: Path) -> tuple[list[tuple[Path, str]], list[SkippedFile]]:
    """``find_files([given])`` for a folder as it was written over ``rglob``."""
    found: list[tuple[Path, str]] = []
    unknown: list[SkippedFile] = []
    for path in sorted(given.rglob("*")):
        relative = path.relative_to(given)
        if any(part.startswith(".") for part in relative.parts):
            continue
        problem = _problem(path, relative)
        wanted = path.suffix.lower() in FORMATS
        if problem is not None and (wanted or "folder" in problem):
            unknown.append(SkippedFile(printable_name(relative), problem))
        elif problem is None and wanted and path.is_file():
            found.append((path, relative.as_posix()))
    return _copies_left_out(found), unknown


RANK = ["markdown", "rst", "html", "text", "pdf"]  # AsciiDoc ranks with reStructuredText


def _copies_left_out(found: list[tuple[Path, str]]) -> list[tuple[Path, str]]:
    """``found`` less the copies the loader passes over, by its rules written again: a file
    met twice is read under its first name that is not a link; of the files whose ids would
    be the same, the one of the first format in ``RANK``, the first met among equals."""
    by_file: dict[tuple[int, int], tuple[bool, int]] = {}
    for i, (path, _) in enumerate(found):
        st = path.stat()
        by_file[st.st_dev, st.st_ino] = min(by_file.get((st.st_dev, st.st_ino), (True, i)),
                                            (path.is_symlink(), i))  # fmt: skip
    once = [f for i, f in enumerate(found) if i in {j for _, j in by_file.values()}]
    by_id: dict[str, tuple[int, int]] = {}
    for i, (_, source) in enumerate(once):
        kind = format_of(source) or "text"
        rank = (RANK.index("rst" if kind == "asciidoc" else kind), i)
        by_id[id_base(source)] = min(by_id.get(id_base(source), rank), rank)
    return [f for i, f in enumerate(once) if i in {j for _, j in by_id.values()}]


def _problem(path: Path, relative: Path) -> str | None:
    # the classification is the loader's own; what this twin checks is the walk: which paths
    # it meets, in which order, and how it tells a symlink (``Path.is_symlink``, not a
    # ``DirEntry``)
    return _walk_problem(str(relative), path if path.is_symlink() else None)


NAMES = st.sampled_from(
    [
        "a",
        "b.md",
        "B.md",
        "b.html",  # the same ids as b.md: one is read
        "c.txt",
        "c.md",
        "c.adoc",  # AsciiDoc: ranked with reStructuredText, before HTML and text
        "d.asciidoc",
        "d.html",
        "e.HTM",
        "f.pdf",
        "g.png",
        ".h",
        ".i.md",
        "j.md.md",
        "k.",
        "a.md",
        "l_m.md",
        "é.md",
        "z",
    ]
)
KINDS = st.sampled_from(["file", "folder", "link-file", "link-folder", "dangling", "loop"])


def _build(root: Path, items: list[tuple[list[str], str]], raw_name: bool) -> None:
    for parts, kind in items:
        parent = root.joinpath(*parts[:-1])
        if not parent.is_dir() or parent.is_symlink():
            continue
        path = parent / parts[-1]
        if os.path.lexists(path):
            continue
        if kind == "file":
            path.write_text("# T\n\nx\n")
        elif kind == "folder":
            path.mkdir()
        elif kind == "link-file":
            (root / "target.md").write_text("# T\n\nx\n")
            path.symlink_to(root / "target.md")
        elif kind == "link-folder":
            path.symlink_to(root)
        elif kind == "dangling":
            path.symlink_to(root / "nowhere.md")
        else:
            path.symlink_to(path)
    if raw_name:
        with open(os.path.join(os.fsencode(root), b"caf\xe9.md"), "wb") as out:
            out.write(b"# T\n\nx\n")


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.lists(NAMES, min_size=1, max_size=3), KINDS), max_size=25),
    st.booleans(),
)
def test_find_files_equals_the_rglob_walk(items: list[tuple[list[str], str]], raw: bool) -> None:
    root = Path(tempfile.mkdtemp(prefix="walk-"))
    try:
        _build(root, items, raw)
        stats: list[os.stat_result] = []
        found = find_files([root], None, stats)
        assert found == reference(root)
        # each file's stat, taken by the walk, is its path's (a symlink's: its target's)
        assert stats == [path.stat() for path, _ in found[0]]
        named = root / "target.md"
        if named.is_file():  # a file given by name gets its stat too, after the folder's
            stats.clear()
            assert find_files([root, named], None, stats)[0][-1] == (named, "target.md")
            assert stats == [path.stat() for path, _ in found[0]] + [named.stat()]
    finally:
        shutil.rmtree(root)


def test_hidden_folders_are_not_entered_and_order_is_by_parts(tmp_path: Path) -> None:
    for rel in ["b/x.md", "a-b.md", "a/z.md", ".git/objects/q.md", "a/.h/y.md", "A.md"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("# T\n\nx\n")
    got = [parts for parts, _ in tree(tmp_path)]
    assert got == [("A.md",), ("a",), ("a", "z.md"), ("a-b.md",), ("b",), ("b", "x.md")]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every folder")
def test_an_unreadable_folder_is_passed_over_as_rglob_does(tmp_path: Path) -> None:
    (tmp_path / "shut").mkdir()
    (tmp_path / "shut" / "x.md").write_text("# T\n\nx\n")
    (tmp_path / "y.md").write_text("# T\n\nx\n")
    (tmp_path / "shut").chmod(0)
    try:
        assert find_files([tmp_path]) == reference(tmp_path)
        assert [s for _, s in find_files([tmp_path])[0]] == ["y.md"]
    finally:
        (tmp_path / "shut").chmod(0o755)
