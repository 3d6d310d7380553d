"""``docqa cache stats|clear``: the persistent embedding cache of the costly embedders."""

from __future__ import annotations

import argparse

from docqa.cli.exits import EXIT_OK
from docqa.cli.words import count


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """The ``cache`` subcommand and its two actions."""
    p = sub.add_parser("cache", help="show or clear the embedding cache of model embedders")
    p.add_argument(
        "action",
        choices=("stats", "clear"),
        help="stats: what the cache holds; clear: delete it",
    )
    p.add_argument("--path", default=None, help="cache file (default: $DOCQA_CACHE_DIR/...)")
    p.add_argument("--model", default=None, help="clear only this model fingerprint")


def _size(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB"


def run(args: argparse.Namespace) -> int:
    from docqa.embed.cache import EmbeddingCache

    cache = EmbeddingCache(args.path)
    if args.action == "clear":
        removed = cache.clear(args.model)
        what = f"model {args.model!r}" if args.model else "every model"
        print(f"removed {count(removed, 'cached vector')} of {what} from {cache.path}")
        return EXIT_OK
    stats = cache.stats()
    print(
        f"{stats.path}: {count(stats.entries, 'vector')}, {_size(stats.bytes)} of "
        f"{_size(stats.max_bytes)} (least recently used evicted beyond that)"
    )
    for model, entries in sorted(stats.models.items()):
        print(f"  {model}: {entries}")
    return EXIT_OK
