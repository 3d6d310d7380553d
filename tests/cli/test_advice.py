"""Every ``docqa ...`` command an error message suggests parses with the real parser, and the
rebuild advice of an embedder mismatch names options that build that embedder."""

from __future__ import annotations

import ast
import re
import shlex
from pathlib import Path

import pytest

import docqa
from docqa.build import build_index
from docqa.cli.main import build_parser
from docqa.embed import HashingEmbedder, TfidfEmbedder
from docqa.embed.choices import index_command, make_embedder
from docqa.errors import EmbedderMismatch
from docqa.index import format as fmt
from docqa.index import open_index
from docqa.retrieve import guard

SRC = Path(docqa.__file__).parent
COMMAND = re.compile(r"`(docqa [^`]*)`")


def _text(node: ast.expr) -> str | None:
    """A string constant, or an f-string with each placeholder written as ``x``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "x" for v in node.values)
    return None


def raised_texts() -> list[tuple[str, str]]:
    """``(where, text)`` of every string inside a ``raise`` statement of the package, with
    adjacent parts of a message joined."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and node.exc is not None:
                inner = {
                    id(part)
                    for f in ast.walk(node.exc)
                    if isinstance(f, ast.JoinedStr)
                    for part in ast.walk(f)
                    if part is not f
                }
                parts = [
                    t
                    for n in ast.walk(node.exc)
                    if id(n) not in inner and (t := _text(n)) is not None  # type: ignore[arg-type]
                ]
                found.append((f"{path.relative_to(SRC)}:{node.lineno}", "".join(parts)))
    return found


ADVICE = [(where, command) for where, text in raised_texts() for command in COMMAND.findall(text)]
CONSTANTS = [fmt.REBUILD, fmt.REPLACE, guard.RECALIBRATE]


def parses(command: str) -> bool:
    """Whether ``command`` (starting ``docqa``) parses with the CLI's parser."""
    argv = shlex.split(command)
    assert argv[0] == "docqa"
    try:
        build_parser().parse_args(argv[1:])
    except SystemExit:
        return False
    return True


def test_the_scan_finds_the_messages() -> None:
    assert len(ADVICE) >= 8, ADVICE


@pytest.mark.parametrize(("where", "command"), ADVICE, ids=[w for w, _ in ADVICE])
def test_every_suggested_command_parses(where: str, command: str) -> None:
    assert parses(command), f"{where}: {command}"


@pytest.mark.parametrize("text", CONSTANTS)
def test_the_shared_advice_parses(text: str) -> None:
    commands = COMMAND.findall(text)
    assert commands and all(parses(c) for c in commands), text


def _fitted_tfidf() -> TfidfEmbedder:
    embedder = TfidfEmbedder()
    embedder.fit(["books go out for three weeks", "renew loans online"])
    return embedder


CONFIGS = {
    "hashing-256": HashingEmbedder(256).config(),
    "hashing-64": HashingEmbedder(64).config(),
    "tfidf": _fitted_tfidf().config(),
    "minilm": {"kind": "minilm", "version": 1, "model": "all-MiniLM-L6-v2", "precision": "fp32"},
    "ollama": {"kind": "ollama", "version": 1, "model": "nomic-embed-text", "dim": 768},
    "openai": {"kind": "openai", "version": 1, "model": "text-embedding-3-small", "dim": 1536},
}


@pytest.mark.parametrize("name", CONFIGS)
def test_index_command_builds_that_embedder(name: str) -> None:
    config = CONFIGS[name]
    advice = index_command(config, "ix")
    assert advice is not None
    (command,) = COMMAND.findall(advice)
    args = build_parser().parse_args(shlex.split(command)[1:])
    assert args.embedder == config["kind"] and args.index == Path("ix")
    if config["kind"] == "hashing":
        assert make_embedder(args.embedder, dim=args.dim).config() == config
    if config["kind"] in ("ollama", "openai"):
        assert advice.endswith(f"={config['model']}")


def test_hashing_with_other_token_settings_has_no_command() -> None:
    assert index_command(HashingEmbedder(256, stop_words=False).config()) is None


def test_an_embedder_mismatch_advises_a_command_that_runs(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "loans.md").write_text("# Loans\n\nBooks go out for three weeks.\n")
    build_index([tmp_path / "docs"], tmp_path / "ix")  # hashing-256, the default
    with pytest.raises(EmbedderMismatch) as caught:
        open_index(tmp_path / "ix").check_embedder(HashingEmbedder(64))
    message = str(caught.value)
    assert "hashing-64-v1" in message
    (command,) = COMMAND.findall(message)
    args = build_parser().parse_args(shlex.split(command)[1:])
    assert (args.embedder, args.dim, args.index) == ("hashing", 64, tmp_path / "ix")
