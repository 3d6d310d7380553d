"""The interim demo: loads and chunks a folder, prints a table, exits 2 on bad input."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from docqa.demo import run

LIBRARY = Path(__file__).parents[2] / "examples" / "library"


def test_demo_on_sample_library_prints_documents_and_examples() -> None:
    out = io.StringIO()
    code = run([str(LIBRARY)], Console(file=out, width=200))
    text = out.getvalue()
    assert code == 0
    assert "loans.md" in text and "rooms.html" in text and "hours.txt" in text
    assert "12 documents (1 html, 10 markdown, 1 text)" in text
    assert "0 files skipped" in text
    assert "Example chunks:" in text and "#" in text.split("Example chunks:")[1]


def test_demo_reports_skipped_files(tmp_path: Path) -> None:
    (tmp_path / "ok.md").write_text("# Ok\n\nfine\n", encoding="utf-8")
    (tmp_path / "bad.txt").write_bytes(b"caf\xe9\n")
    out = io.StringIO()
    assert run([str(tmp_path)], Console(file=out, width=200)) == 0
    assert "skipped bad.txt: not valid UTF-8" in out.getvalue()


def test_demo_bad_input_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run([str(tmp_path)], Console(file=io.StringIO())) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no .md, .txt, .html or .htm files found" in err
    assert run([str(tmp_path / "missing")], Console(file=io.StringIO())) == 2
