"""``docqa search-batch`` and the sharded / Ray forms of ``docqa index``.

QUESTIONS is JSONL (``{"id": ..., "question": ...}`` per line; ``id`` defaults to the line
number) or plain text (one question per non-blank line, id = line number); a ``.jsonl`` name
or a first line starting with ``{`` means JSONL. RESULTS gets one JSON line per question, in
input order: ``{"id", "question", "rows", "chunk_ids", "scores"}``, written to a temporary
sibling and renamed into place.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docqa.cli.arguments import mode_option
from docqa.cli.words import count
from docqa.errors import InputError

if TYPE_CHECKING:
    from rich.progress import Progress

    from docqa.build import IndexSettings
    from docqa.types import Hit

BATCH = 1024  # questions per kernel call (and per progress step)


def add_parsers(sub: Any, positive: Any) -> None:
    """The ``search-batch`` subcommand (``positive`` parses a whole number >= 1)."""
    p = sub.add_parser("search-batch", help="search many questions at once, JSONL out")
    p.add_argument("questions", type=Path, help="JSONL ({id, question}) or one question a line")
    p.add_argument("--index", type=Path, default=None, help="index directory")
    p.add_argument("--out", type=Path, required=True, help="RESULTS file (JSONL)")
    p.add_argument("-k", type=positive, default=10, help="hits per question")
    mode_option(p)
    ray_option(p)
    p.add_argument("--actors", type=positive, default=2, help="Ray actors owning the shards")


def ray_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="run on Ray: the cluster at ADDRESS, else RAY_ADDRESS, else a local one",
    )


def read_questions(path: Path) -> list[tuple[Any, str]]:
    """``(id, question)`` pairs from a QUESTIONS file; ``InputError`` names the bad line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read questions from {path} ({exc}); give a UTF-8 file")
    first = next((line for line in lines if line.strip()), "")
    jsonl = path.suffix.lower() == ".jsonl" or first.lstrip().startswith("{")
    out = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            out.append(_json_question(path, number, line) if jsonl else (number, line.strip()))
    if not out:
        raise InputError(f"{path} holds no questions; put one question a line")
    return out


def _json_question(path: Path, number: int, line: str) -> tuple[Any, str]:
    try:
        doc = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path} line {number} is not JSON ({exc.msg}); fix or remove it")
    if not isinstance(doc, dict) or not isinstance(doc.get("question"), str):
        raise InputError(f'{path} line {number} needs a "question" string')
    return doc.get("id", number), doc["question"]


def result_line(qid: Any, question: str, hits: list[Hit]) -> str:
    doc = {
        "id": qid,
        "question": question,
        "rows": [h.row for h in hits],
        "chunk_ids": [h.id for h in hits],
        "scores": [h.score for h in hits],
    }
    return json.dumps(doc, ensure_ascii=False)


@contextmanager
def _atomic_lines(path: Path) -> Iterator[Any]:
    """A text file written beside ``path`` and renamed onto it when the block succeeds."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _progress() -> Progress:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    console = Console(stderr=True)
    return Progress(
        TextColumn("search"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[rate]:.0f} questions/s"), console=console, transient=True,
    )  # fmt: skip


def cmd_search_batch(args: argparse.Namespace) -> int:
    from docqa.build import default_index_dir
    from docqa.collection import Collection

    questions = read_questions(args.questions)
    index_dir = args.index if args.index is not None else default_index_dir()
    texts = [q for _, q in questions]
    started_ray = False
    if args.ray is not None:
        from docqa.distributed import connect, open_ray

        started_ray = connect(args.ray or None)
        collection: Any = open_ray(index_dir, args.actors)
    else:
        collection = Collection.open(index_dir)
    try:
        with _atomic_lines(args.out) as out, _progress() as bar:
            task, start = bar.add_task("search", total=len(texts), rate=0.0), time.perf_counter()
            for lo in range(0, len(texts), BATCH):
                hits = collection.search_batch(texts[lo : lo + BATCH], args.k, mode=args.mode)
                for (qid, q), h in zip(questions[lo : lo + BATCH], hits, strict=True):
                    out.write(result_line(qid, q, h) + "\n")
                done = min(lo + BATCH, len(texts))
                bar.update(task, completed=done, rate=done / (time.perf_counter() - start))
    finally:
        if args.ray is not None:
            collection.searcher.close()
        if started_ray:
            from docqa.distributed import require_ray

            require_ray().shutdown()
    seconds = time.perf_counter() - start
    print(f"searched {count(len(texts), 'question')} ({args.mode}, k={args.k}) into {args.out}; "
          f"{seconds:.2f} s, {len(texts) / seconds:.0f} questions/s")  # fmt: skip
    return 0


def cmd_index_sharded(args: argparse.Namespace, settings: IndexSettings) -> int:
    """``docqa index`` with ``--shard-rows`` and/or ``--ray``."""
    from docqa.build import default_index_dir
    from docqa.cli.summary import build_summary, skipped_lines
    from docqa.shards.build import DEFAULT_SHARD_ROWS, build_sharded

    target = args.index if args.index is not None else default_index_dir()
    rows = args.shard_rows or DEFAULT_SHARD_ROWS
    if args.ray is None:
        report = build_sharded(args.paths, target, settings, shard_rows=rows)
    else:
        from docqa.distributed import build_on_ray, connect, require_ray

        started = connect(args.ray or None)
        try:
            report = build_on_ray(args.paths, target, settings, shard_rows=rows)
        finally:
            if started:
                require_ray().shutdown()
    if args.verify:
        from docqa.index.shards import open_sharded

        open_sharded(target).verify()
    for line in skipped_lines(report.skipped):
        print(line, file=sys.stderr)
    print(build_summary(report) + f"; {count(-(-report.chunks // rows), 'shard')}")
    return 0
