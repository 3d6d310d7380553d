"""``docqa serve``: its options (light: the parser imports them for every command; the runner,
with its sockets, signals and logging, is :mod:`docqa.cli.serving`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from docqa._checks import MAX_QUESTION_CHARS
from docqa.cli.arguments import store_options

Adder = Callable[[argparse.ArgumentParser], None]


def seconds(text: str) -> float:
    """A number of seconds > 0 (``--model-timeout``, ``--answer-deadline``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, got {text}")
    return value


def _question_limit(chars: int) -> int:
    """``--max-question``: at most the longest question docqa takes."""
    if chars > MAX_QUESTION_CHARS:
        raise argparse.ArgumentTypeError(
            f"must be at most {MAX_QUESTION_CHARS} (the longest question docqa takes), got {chars}"
        )
    return chars


def _store_options(p: argparse.ArgumentParser) -> None:
    """``--store`` and ``--collection``: serve a PostgreSQL + pgvector collection."""
    store_options(
        p,
        "serve a collection of a PostgreSQL + pgvector database instead of an index folder, "
        "with one worker and a tenant per key",
    )


def _limit_options(p: argparse.ArgumentParser, positive: Callable[[str], int]) -> None:
    """What one request may ask of the service and how long it may take."""
    p.add_argument(
        "--max-concurrency", type=positive, default=8, help="requests in work (429 past it)"
    )
    p.add_argument(
        "--max-question",
        type=lambda text: _question_limit(positive(text)),
        default=2000,
        help=f"question length limit (chars, at most {MAX_QUESTION_CHARS}; default 2000)",
    )
    p.add_argument(
        "--max-body", type=positive, default=64 * 1024, help="request body limit (bytes)"
    )
    p.add_argument("--model-timeout", type=seconds, default=60.0, help="seconds for one answer")
    p.add_argument(
        "--shutdown-timeout",
        type=seconds,
        default=10.0,
        help="seconds in-flight requests get on SIGTERM",
    )


def add_parser(
    sub: Any, index_options: Adder, model_options: Adder, positive: Callable[[str], int]
) -> None:
    """Add the ``serve`` subcommand to ``sub`` (the parser's subcommands)."""
    p = sub.add_parser(
        "serve",
        help="serve /search, /ask and /ask/stream over HTTP, with a web page at /",
        description="Keys come from DOCQA_SERVE_KEYS or --keys-file (JSON "
        '{"KEY": ["tenant", ...]} or KEY=tenant,tenant;KEY=tenant), never the command line. '
        "Without keys only a loopback address is served.",
    )
    index_options(p)
    _store_options(p)
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (0: any free one; default 8000)")
    p.add_argument("--keys-file", type=Path, default=None, help="file of keys and their tenants")
    p.add_argument(
        "--name",
        default=None,
        help="the collection's name on the web page (default: the index folder's name, or for "
        ".docqa/index the folder holding it)",
    )
    _limit_options(p, positive)
    p.add_argument("--min-score", type=float, default=None, help="guard threshold (as for ask)")
    p.add_argument(
        "--drift-model",
        choices=("auto", "embedder", "minilm"),
        default=None,
        help="which model judges the guard's drift check (as for ask; embedder spares the "
        "~230 MiB and ~30 ms MiniLM costs beside a lexical index)",
    )
    p.add_argument(
        "--workers",
        type=positive,
        default=1,
        help="processes on the same port, sharing the memory-mapped index (one per core; "
        "each has its own --max-concurrency)",
    )
    model_options(p)
