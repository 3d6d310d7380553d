"""``docqa index`` is parsed by a parser holding only its own subcommand (faster to build):
it must read every command line as the parser of every command does."""

from __future__ import annotations

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
