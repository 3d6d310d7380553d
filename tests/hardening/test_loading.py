"""Class 7, files that cannot be loaded: reported as skipped with a reason, never silent and
never fatal to the rest of the build."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import docqa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docqa.text import load_paths
from docqa.text.loaders import SkippedFileWarning

GOOD = "# Parking\n\nThe car park closes at 9 p.m.\n"


def skipped(folder: Path) -> dict[str, str]:
    with pytest.warns(SkippedFileWarning):
        _, report = load_paths([folder])
    return {s.path: s.reason for s in report.skipped}


def test_symlink_problems_are_reported(tmp_path: Path) -> None:
    (tmp_path / "ok.md").write_text(GOOD)
    (tmp_path / "sub").mkdir()
    (tmp_path / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    (tmp_path / "loop1.md").symlink_to(tmp_path / "loop2.md")
    (tmp_path / "loop2.md").symlink_to(tmp_path / "loop1.md")
    (tmp_path / "linked").symlink_to(tmp_path / "sub")
    reasons = skipped(tmp_path)
    assert reasons["dangling.md"].startswith("dangling symlink (points to ")
    assert reasons["loop1.md"] == reasons["loop2.md"] == "symlink loop"
    assert reasons["linked"].startswith("symlinked folder, not followed")


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(offset=st.integers(0, 64 << 10))
def test_a_nul_byte_anywhere_marks_the_file_binary(tmp_path_factory, offset: int) -> None:
    folder = tmp_path_factory.mktemp("nul")
    (folder / "ok.md").write_text(GOOD)
    body = bytearray(b"word " * (13 << 10))
    body[min(offset, len(body) - 1)] = 0
    (folder / "bin.txt").write_bytes(bytes(body))
    assert skipped(folder)["bin.txt"].startswith("binary file (NUL bytes)")


def test_a_file_name_that_is_not_utf8_is_skipped_and_the_build_goes_on(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ok.md").write_text(GOOD)
    with open(os.path.join(os.fsencode(docs), b"caf\xe9.md"), "w") as f:
        f.write(GOOD)
    assert skipped(docs) == {"caf\\xe9.md": "the file name is not valid UTF-8; rename the file"}
    result = docqa("index", "docs", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert b"indexed 1 document" in result.stdout and b"caf\\xe9.md: the file name" in result.stdout
