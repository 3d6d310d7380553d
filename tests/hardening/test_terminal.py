"""Class 2, document text on the terminal: shown as data in every command, never obeyed."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from docqa_cli import clean_env
from helpers import chunk
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from docqa.cli import render
from docqa.controls import BIDI, escape_controls
from docqa.types import Hit

ATTACK = "Red \x1b[31mALERT\x1b[0m, title \x1b]0;pwned\x07, bell \x07, C1 \x9b2J, over\rHIDDEN"
MARKUP = (
    "Close [/] and [bold]b[/bold]: mkdb [connection-option...] [option...] [dbname [description]]"
)
RAW = [b"\x1b", b"\x07", b"\r", "\x9b".encode()]


def is_unsafe(ch: str, keep: str) -> bool:
    return ch not in keep and (unicodedata.category(ch) == "Cc" or ch in BIDI)


@given(st.text())
def test_escape_controls_leaves_only_printable_text(text: str) -> None:
    out = escape_controls(text)
    assert not any(is_unsafe(c, "\n\t") for c in out)
    if not any(is_unsafe(c, "\n\t") for c in text):
        assert out == text
    assert "\n" not in escape_controls(text, keep="")


@given(st.lists(st.text(), min_size=1, max_size=4))
def test_any_text_renders_as_itself_in_the_hits_table(texts: list[str]) -> None:
    hits = [
        Hit(row=i, id=f"we[ird]{t[:5]}#p", section="s", score=1.0, chunk=chunk(i, t))
        for i, t in enumerate(texts)
    ]
    console = Console(file=io.StringIO(), width=400, highlight=False, color_system=None)
    console.print(render.hits_table(hits))  # no MarkupError, whatever the text
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    assert not any(is_unsafe(c, "\n") for c in shown)
    for hit in hits:
        assert render.cell(hit.id).plain in shown


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("term")
    docs = root / "docs"
    docs.mkdir()
    (docs / "esc.md").write_text(f"# Colours\n\n{ATTACK} colour codes explained.\n")
    (docs / "markup.md").write_text(f"# Closing tags\n\n{MARKUP} closing tags.\n")
    (docs / "we[ird].md").write_text("# Bracket name\n\nA weird file name about brackets.\n")
    (docs / "evil\x1b[2J.txt").write_bytes(b"caf\xe9")
    assert run("index", "docs", cwd=root).returncode == 0
    return root


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = clean_env()
    env["COLUMNS"] = "400"
    return subprocess.run(
        [sys.executable, "-m", "docqa", *args],
        check=False,
        cwd=cwd,
        env=env,
        capture_output=True,
        timeout=120,
    )


def assert_safe(data: bytes) -> str:
    for raw in RAW:
        assert raw not in data, raw
    return data.decode("utf-8")


def test_index_summary_escapes_a_file_name(workdir: Path) -> None:
    out = assert_safe(run("index", "docs", cwd=workdir).stdout)
    assert "evil\\x1b[2J.txt: not valid UTF-8" in out


@pytest.mark.parametrize("question", ["colour codes", "closing tags", "weird brackets"])
def test_search_table_shows_document_text_as_data(workdir: Path, question: str) -> None:
    result = run("search", question, "--mode", "keyword", cwd=workdir)
    assert result.returncode == 0, result.stderr
    out = assert_safe(result.stdout)
    if question == "colour codes":
        assert "\\x1b[31mALERT\\x1b[0m" in out and "\\x07" in out and "\\x9b2J" in out
    elif question == "closing tags":
        assert "Close [/] and [bold]b[/bold]: mkdb [connection-option...]" in out
        assert render._preview(f"{MARKUP} closing tags.") in out  # cut at 70, never mangled
    else:
        assert "we[ird]#bracket-name" in out


def test_search_json_keeps_the_text_exact_and_escaped(workdir: Path) -> None:
    result = run("search", "colour codes", "--mode", "keyword", "--json", cwd=workdir)
    assert_safe(result.stdout)
    data = json.loads(result.stdout)
    assert ATTACK.split("\r")[0] in data["hits"][0]["text"]  # the loader reads \r as a line end


def test_ask_and_show_prompt_are_safe(workdir: Path) -> None:
    result = run("ask", "colour codes", "--mode", "keyword", "--show-prompt", cwd=workdir)
    assert result.returncode == 0, result.stderr
    assert_safe(result.stdout)
    assert "\\x1b[31m" in assert_safe(result.stderr)


def test_an_error_naming_a_hostile_path_is_one_escaped_line(workdir: Path) -> None:
    result = run("search", "x", "--index", "no\x1b]0;t\x07where", cwd=workdir)
    assert result.returncode == 2
    err = assert_safe(result.stderr)
    assert len(err.strip().splitlines()) == 1 and "no\\x1b]0;t\\x07where" in err


def test_the_summary_of_docs_shows_bracketed_names_as_they_are(workdir: Path) -> None:
    result = run("search", "weird brackets", "--docs", "docs", "--index", "[red]ix", cwd=workdir)
    assert result.returncode == 0, result.stderr
    assert "into [red]ix;" in assert_safe(result.stderr)  # rich markup would drop "[red]"


def test_eval_table_shows_mode_names_and_figures_as_cells() -> None:
    from docqa.eval import Question, evaluate

    class Nothing:
        def search(self, question: str, k: int, *, mask: object = None) -> list[Hit]:
            return []

    questions = [Question("q1", "what?", ("a#b",))]
    report = evaluate(questions, {"[bold]x[/bold] :smile:": Nothing()}, ks=[1], rounds=10)
    console = Console(file=io.StringIO(), width=200, highlight=False, color_system=None)
    console.print(render.eval_table(report))
    assert "[bold]x[/bold] :smile:" in console.file.getvalue()  # type: ignore[attr-defined]
