"""The ``docqa`` command: index, search, ask, eval.

Results go to stdout, progress and errors to stderr. Exit codes: 0 success, 1 the answer was
refused or nothing was found, 2 bad usage or bad input (one line saying what to do, never a
traceback).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from docqa.errors import DocqaError

EXIT_OK, EXIT_EMPTY, EXIT_USAGE = 0, 1, 2
BACKENDS = ("extractive", "fake", "anthropic", "openai", "ollama")


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def _whole(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be at least {least}, got {value}")
    return value


def _positive(text: str) -> int:
    return _whole(text, 1)


def _non_negative(text: str) -> int:
    return _whole(text, 0)


def _index_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--index",
        type=Path,
        default=None,
        help="index directory (default: .docqa/index under the current folder)",
    )


def _retrieval_options(p: argparse.ArgumentParser, default_k: int) -> None:
    _index_options(p)
    p.add_argument(
        "--docs",
        type=Path,
        default=None,
        help="index this folder first (reused while nothing in it changed)",
    )
    p.add_argument("-k", type=_positive, default=default_k, help="how many passages")
    p.add_argument("--mode", choices=("dense", "keyword", "hybrid"), default="hybrid")
    p.add_argument(
        "--min-score",
        type=float,
        default=None,
        help="guard threshold for the mode (cosine for dense, share of the best "
        "attainable BM25 score for keyword; both for hybrid)",
    )
    p.add_argument("--no-guard", action="store_true", help="return hits however weak")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="docqa", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p = sub.add_parser("index", help="index folders or files of .md, .txt and .html")
    p.add_argument("paths", nargs="+", type=Path)
    _index_options(p)
    p.add_argument("--embedder", choices=("hashing", "tfidf"), default="hashing")
    p.add_argument("--dim", type=_positive, default=256, help="hashing embedder dimension")
    p.add_argument("--max-words", type=_positive, default=120)
    p.add_argument("--overlap", type=_non_negative, default=0)
    p.add_argument(
        "--no-headings",
        action="store_true",
        help="embed chunk text without its heading path in front",
    )
    p.add_argument("--verify", action="store_true", help="checksum every file after writing")
    p.add_argument(
        "--workers",
        type=_positive,
        default=None,
        help="processes that parse and embed (default: the cores available); "
        "the index is the same bytes for any number",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar, only the summary")
    p = sub.add_parser("search", help="print the passages that best match a question")
    p.add_argument("question")
    _retrieval_options(p, default_k=5)
    p = sub.add_parser("ask", help="answer a question from the passages, with citations")
    p.add_argument("question")
    _retrieval_options(p, default_k=3)
    _model_options(p)
    p.add_argument("--show-prompt", action="store_true", help="print exactly what was sent")
    p = sub.add_parser("eval", help="recall@k, MRR and guard figures on labelled questions")
    p.add_argument("questions", type=Path)
    _index_options(p)
    p.add_argument(
        "--mode", default="dense,keyword,hybrid", help="comma-separated modes to compare"
    )
    p.add_argument("-k", default="1,3,5,10", help="comma-separated cut-offs")
    p.add_argument("--no-guard", action="store_true")
    p.add_argument(
        "--answers",
        action="store_true",
        help="also answer every question and check must_contain and citations",
    )
    _model_options(p)
    p.add_argument("--json", action="store_true")
    return parser


def _model_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", choices=BACKENDS, default="extractive")
    p.add_argument("--model", default=None, help="model name (else DOCQA_MODEL)")
    p.add_argument(
        "--max-tokens", type=_positive, default=None, help="reply limit (else DOCQA_MAX_TOKENS)"
    )
    p.add_argument("--base-url", default=None, help="OpenAI-compatible server URL")
    p.add_argument(
        "--fake-reply",
        action="append",
        default=None,
        help="scripted reply for --backend fake (repeat for several questions)",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    from docqa.cli import commands
    from docqa.text import SkippedFileWarning

    args = build_parser().parse_args(argv)
    try:
        with warnings.catch_warnings():
            # skipped files are listed, with their reasons, in the index summary line
            warnings.simplefilter("ignore", SkippedFileWarning)
            return commands.run(args)
    except DocqaError as exc:
        print(f"docqa: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("docqa: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (`docqa search ... | head`): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
