"""``docqa verify``: every check an index can be given, without changing it.

Opening runs the cheap structural checks (see :mod:`docqa.index.reader`); this command adds
the expensive ones: every file's checksum against the manifest, every vector finite, every
chunk record readable, and the BM25 arrays and recorded embedder consistent. Exit 0 and one
``ok`` line, or exit 2 and one line naming the first damaged file (as every docqa error).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from docqa.cli.arguments import store_options
from docqa.cli.words import count


def add_verify_parser(sub: Any) -> None:
    """Add the ``verify`` subcommand to the ``docqa`` subparsers ``sub``."""
    p = sub.add_parser("verify", help="check an index: checksums, vectors, chunks, BM25")
    p.add_argument(
        "--index",
        type=Path,
        default=None,
        help="index directory (default: .docqa/index under the current folder)",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    store_options(
        p,
        "check a collection in a PostgreSQL + pgvector database instead: counts, BM25 "
        "statistics, vectors",
    )


def cmd_verify(args: argparse.Namespace) -> int:
    """Run every check over the index (or the store); print what was checked."""
    from docqa.cli.store import uses_store

    if uses_store(args):
        return _verify_store(args)
    from docqa.build import default_index_dir
    from docqa.cli import render
    from docqa.collection import Collection

    root = args.index if args.index is not None else default_index_dir()
    collection = Collection.open(root)
    index = collection.index
    index.verify()
    for _ in index.chunks:  # each record decodes (IndexCorrupt names the first that does not)
        pass
    files = index.manifest.files
    size = sum(entry.size for entry in files.values())
    if args.json:
        report = {"index": str(index.root), "ok": True, "rows": len(index), "files": len(files)}
        print(render.dumps({**report, "bytes": size}, indent=None))
    else:
        from docqa.controls import escape_controls

        print(
            escape_controls(
                f"ok: {index.root}: {count(len(index), 'row')}, {count(len(files), 'file')}, "
                f"{count(size, 'byte')} "
                "checked (checksums, finite vectors, chunk records, BM25 arrays, embedder)"
            )
        )
    return 0


def _verify_store(args: argparse.Namespace) -> int:
    """``docqa verify --store``: exit 0 and one ``ok`` line, or, as for a damaged index, exit 2
    and one line naming every inconsistency found and what to do (``docqa.stores.verify``)."""
    from docqa.cli import render
    from docqa.cli.exits import EXIT_USAGE, error_line
    from docqa.cli.store import open_store
    from docqa.stores.verify import check

    with open_store(args) as store:
        found = check(store)
    where = f"collection {store.collection!r} at {store.where}"
    if args.json:
        report = {"store": store.where, "collection": store.collection, "ok": not found.problems}
        print(render.dumps({**report, "rows": found.rows, "terms": found.terms}, indent=None))
    if found.problems:
        error_line(f"{where} is inconsistent: {'; '.join(found.problems)}; {found.advice}")
        return EXIT_USAGE
    if not args.json:
        print(
            f"ok: {where}: {count(found.rows, 'row')}, {count(found.terms, 'term')} checked "
            "(row and token counts, df per term, row lengths, vector sizes, finite vectors, "
            "guard point, embedder)"
        )
    return 0
