"""The value types of the ``docqa`` command line's options (whole numbers with a least value,
questions) and its parser class, which reports a usage error as one line and exit code 2."""

from __future__ import annotations

import argparse
from typing import NoReturn

from docqa._checks import question
from docqa.cli.exits import EXIT_USAGE
from docqa.errors import InputError


class Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def whole(text: str, least: int) -> int:
    """``text`` as a whole number of at least ``least``."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be at least {least}, got {value}")
    return value


def positive(text: str) -> int:
    """A whole number of at least 1."""
    return whole(text, 1)


def non_negative(text: str) -> int:
    """A whole number of at least 0."""
    return whole(text, 0)


def at_least_two(text: str) -> int:
    """A whole number of at least 2."""
    return whole(text, 2)


def question_text(text: str) -> str:
    """A question to search for or answer: blank or too long (``docqa._checks.question``) is
    a usage error, as the service's 422."""
    if not text.strip():
        raise argparse.ArgumentTypeError("it is blank; give a question")
    try:
        return question(text, "it")
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def store_options(p: argparse.ArgumentParser, what: str) -> None:
    """``--store [URL]`` and ``--collection``, for a command that can run over a PostgreSQL +
    pgvector database (``what``: how the command uses it)."""
    p.add_argument(
        "--store",
        nargs="?",
        const="",
        default=None,
        metavar="URL",
        help=f"{what} (bare --store: the URL in DOCQA_STORE_URL)",
    )
    p.add_argument("--collection", default=None, help="collection in the store (default: default)")


def mode_option(p: argparse.ArgumentParser) -> None:
    """``--mode``, the retrieval mode of a command that searches in one."""
    p.add_argument(
        "--mode",
        choices=("dense", "keyword", "hybrid"),
        default="hybrid",
        help="hybrid (default): BM25 and the vectors fused (BM25 alone over a hashing index); "
        "dense; keyword",
    )
