"""``docqa index`` is parsed by a parser holding only its own subcommand (faster to build):
it must read every command line as the parser of every command does."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from docqa.cli.main import build_parser

LINES = [
    ["index", "docs"],
    ["index", "a", "b", "--index", "ix", "--quiet", "--workers", "2", "--rewrite"],
    ["index", "docs", "--embedder", "tfidf", "--max-words", "80", "--overlap", "20"],
    ["index", "docs", "--storage", "int8", "--verify", "--no-headings", "--shard-rows", "9"],
    ["index", "docs", "--tenant-from-folder", "--dim", "64"],
]
BAD = [
    ["index"],
    ["index", "docs", "--workers", "0"],
    ["index", "docs", "--embedder", "nope"],
    ["index", "docs", "--no-such-option"],
]


@pytest.mark.parametrize("argv", LINES)
def test_the_index_parser_reads_as_the_whole_one(argv: list[str]) -> None:
    assert vars(build_parser("index").parse_args(argv)) == vars(build_parser().parse_args(argv))


@pytest.mark.parametrize("argv", BAD)
def test_the_index_parser_refuses_as_the_whole_one(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    errors = []
    for parser in (build_parser("index"), build_parser()):
        with pytest.raises(SystemExit) as stop:
            parser.parse_args(argv)
        assert stop.value.code == 2
        errors.append(capsys.readouterr().err)
    assert errors[0] == errors[1] and "error:" in errors[0]


def test_other_commands_get_the_whole_parser() -> None:
    for command in (None, "search", "--help", "indexx"):
        names = build_parser(command)._subparsers._group_actions[0].choices  # type: ignore[union-attr]
        assert {"index", "search", "ask", "serve", "calibrate"} <= set(names)
    only = build_parser("index")._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert set(only) == {"index"}


def _parsers(
    parser: argparse.ArgumentParser, name: str
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, child in action.choices.items():
                yield from _parsers(child, f"{name} {sub}")


def test_every_argument_of_every_command_says_what_it_is() -> None:
    """``docqa X --help`` names no option or argument without a line saying what it does."""
    silent = [
        f"{name}: {action.dest}"
        for name, parser in _parsers(build_parser(), "docqa")
        for action in parser._actions
        if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))
        and not action.help
    ]
    assert silent == []
