"""``docqa index/search/ask --store URL``: the same commands over a PostgreSQL + pgvector store.

The URL comes from ``--store URL`` or, for a bare ``--store``, from ``$DOCQA_STORE_URL``; it is
only ever printed through ``describe`` (the password replaced by ``***``).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import TYPE_CHECKING

from docqa.build import IndexSettings
from docqa.cli.exits import EXIT_OK
from docqa.cli.words import count
from docqa.errors import InputError
from docqa.types import Retriever

if TYPE_CHECKING:
    from rich.console import Console

    from docqa.retrieve.guard import GuardRequest
    from docqa.stores.load import StoreReport
    from docqa.stores.pgvector import PgVectorStore

_STORE_ONLY = (("collection", "--collection"), ("ef_search", "--ef-search"))


def _file_index_options(args: argparse.Namespace) -> tuple[tuple[str, bool], ...]:
    """Index options a store has no use for, and whether each was given: the store keeps
    float32 vectors in its own table, and pgvector, not shards, spreads the work."""
    return (
        ("--storage int8", getattr(args, "storage", "float32") != "float32"),
        ("--shard-rows", getattr(args, "shard_rows", None) is not None),
        ("--ray", getattr(args, "ray", None) is not None),
    )


def uses_store(args: argparse.Namespace) -> bool:
    """Whether the command targets a store; InputError for store options without --store."""
    if getattr(args, "store", None) is not None:
        if getattr(args, "index", None) is not None:
            raise InputError("--index and --store name two different places; give one of them")
        for flag, given in _file_index_options(args):
            if given:
                raise InputError(f"{flag} applies to a file index; drop it with --store")
        return True
    for name, flag in _STORE_ONLY:
        if getattr(args, name, None) is not None:
            raise InputError(f"{flag} applies to a database store; add --store URL")
    return False


def _one_tenant(tenants: list[str] | None) -> str | None:
    """The store filters on one tenant; ``--tenant`` may be repeated for a file index only."""
    if tenants and len(tenants) > 1:
        raise InputError(
            f"--store searches one tenant at a time, got {len(tenants)} --tenant options; give one"
        )
    return tenants[0] if tenants else None


def _collection(args: argparse.Namespace) -> str:
    from docqa.stores.pgvector import DEFAULT_COLLECTION

    return str(args.collection or DEFAULT_COLLECTION)


def summary(report: StoreReport) -> str:
    """One line: what ``docqa index --store`` did."""
    from docqa.cli.summary import passed_over_text, skipped_text

    skipped = skipped_text(report.skipped)
    return (
        f"indexed {count(report.chunks, 'chunk')} into collection {report.collection!r} at "
        f"{report.where} ({report.upserted} written, {report.unchanged} unchanged, "
        f"{report.deleted} deleted); skipped {len(report.skipped)} ({skipped}); "
        f"{passed_over_text(report.passed_over)}"
        f"embedder {report.embedder}; {report.seconds:.2f} s"
    )


def cmd_index(args: argparse.Namespace, settings: IndexSettings, progress_console: Console) -> int:
    """``docqa index PATHS --store URL`` with the command line's ``settings`` (without
    ``--max-words``, the window size the collection was loaded with, as a folder index's
    update keeps its own)."""
    from docqa.cli import render
    from docqa.stores.load import index_to_store
    from docqa.stores.pgvector import PgVectorStore

    with (
        PgVectorStore(args.store or None, collection=_collection(args)) as store,
        render.progress(progress_console) as progress,
    ):
        record = store.record() if args.max_words is None else None
        recorded = None if record is None else record.settings.get("max_words")
        if isinstance(recorded, int) and recorded > 0:
            settings = dataclasses.replace(settings, max_words=recorded)
        report = index_to_store(args.paths, store, settings, progress=progress)
    from docqa.cli.summary import skipped_lines

    for line in skipped_lines(report.skipped):
        print(line, file=sys.stderr)
    print(summary(report))
    return EXIT_OK


def open_store(args: argparse.Namespace) -> PgVectorStore:
    """The store of ``--store`` / ``--collection`` (connected; the command's process owns it)."""
    from docqa.stores.pgvector import PgVectorStore

    return PgVectorStore(args.store or None, collection=_collection(args))


def _no_reranking(args: argparse.Namespace, modes: list[str]) -> None:
    """A store searches with its own retrievers: a reranker or rescorer needs a folder index."""
    given = [m for m in modes if m.endswith("+rerank")]
    given += [
        f for f, a in (("--rerank", "rerank"), ("--rescore", "rescore")) if getattr(args, a, 0)
    ]
    if given:
        raise InputError(f"{given[0]} works on an index folder, not with --store; leave it out")


def retriever(args: argparse.Namespace, guard: GuardRequest) -> Retriever:
    """The retriever ``docqa search/ask --store URL`` use (the store stays open for it)."""
    if args.docs is not None:
        raise InputError(
            "--docs indexes into a folder index; with --store run `docqa index PATHS --store` first"
        )
    _no_reranking(args, [])
    return open_store(args).retriever(
        args.mode,
        tenant=_one_tenant(args.tenant),
        ef_search=args.ef_search,
        guard=guard,
    )


def eval_retrievers(
    args: argparse.Namespace, modes: list[str]
) -> tuple[dict[str, Retriever], set[str]]:
    """``docqa eval --store``: the retriever of each mode over every tenant (guarded unless
    ``--no-guard``), and the collection's section ids (to check the labels against)."""
    _no_reranking(args, modes)
    if args.answers and args.context != "window":
        raise InputError("--context section needs a file index; drop it with --store")
    store = open_store(args)  # open until the command ends
    retrievers = {
        m: store.retriever(m, tenant=None, ef_search=args.ef_search, guard=not args.no_guard)
        for m in modes
    }
    return retrievers, store.sections()
