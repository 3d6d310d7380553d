"""``docqa calibrate QUESTIONS --index DIR`` (or ``--store URL --collection C``): fit the guard,
print the curve, store the choice (in the manifest's ``meta["guard"]``, or the collection's
``collections.guard`` row), where every retriever over that collection reads it."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from docqa.build import default_index_dir
from docqa.cli.exits import EXIT_OK
from docqa.cli.store import uses_store
from docqa.cli.words import count
from docqa.collection import Collection
from docqa.eval import load_questions
from docqa.eval.calibrate import Calibration, Point, calibrate
from docqa.index.meta import replace_meta
from docqa.keyword import BM25Index
from docqa.retrieve.guard import GuardConfig, resolve_guard
from docqa.types import Retriever


@dataclass
class Target:
    """What is calibrated: the guarded retriever to judge with, the collection's term
    statistics and stored point, where the fit goes (``save``) and how to name it."""

    retriever: Retriever
    bm25: BM25Index
    base: GuardConfig
    save: Callable[[GuardConfig, dict[str, Any]], None]
    where: str


def _index_target(args: argparse.Namespace) -> Target:
    root = args.index if args.index is not None else default_index_dir()
    collection = Collection.open(root)  # one directory, sharded or delta-updated

    def save(point: GuardConfig, fit: dict[str, Any]) -> None:
        replace_meta(root, {"guard": point.to_dict(), "guard_calibration": fit})

    retriever = collection.retriever(args.mode, guard=collection.guard)  # judged as it will be
    where = f"{root / 'manifest.json'} (meta.guard)"
    return Target(retriever, collection.bm25, collection.guard, save, where)


def _store_target(args: argparse.Namespace) -> Target:
    from docqa.cli.store import open_store

    store = open_store(args)  # open until the command ends
    record, _ = store.open_collection()
    base = resolve_guard(store.guard_point(record))

    def save(point: GuardConfig, fit: dict[str, Any]) -> None:
        store.save_guard(record, point, fit)

    retriever = store.retriever(args.mode, tenant=None, guard=base)
    where = f"collection {record.name!r} at {store.where} (collections.guard)"
    return Target(retriever, store.term_statistics(record), base, save, where)


def run(args: argparse.Namespace) -> int:
    target = _store_target(args) if uses_store(args) else _index_target(args)
    questions = load_questions(args.questions)
    fit = calibrate(
        questions,
        target.retriever,
        target.bm25,
        k=args.k,
        min_kept=args.min_kept,
        base=target.base,
        folds=args.folds,
    )
    stored = not args.dry_run
    if stored:
        target.save(fit.chosen.config, _record(fit, args))
    if args.json:
        print(json.dumps({**_record(fit, args), "stored": stored, "curve": _curve(fit)}, indent=2))
    else:
        print(report(fit, args, target.where if stored else None))
    return EXIT_OK


def frontier(points: Sequence[Point], chosen: Point | None = None) -> list[Point]:
    """The points no other point beats on both kept and refused, by threshold (of settings
    that tie, ``chosen`` when it is one of them)."""
    best = [
        p
        for p in points
        if not any(
            (o.kept >= p.kept and o.refused > p.refused)
            or (o.kept > p.kept and o.refused >= p.refused)
            for o in points
        )
    ]
    unique = {(p.kept, p.refused): p for p in sorted(best, key=lambda p: -p.config.min_coverage)}
    if chosen is not None and (chosen.kept, chosen.refused) in unique and chosen in best:
        unique[chosen.kept, chosen.refused] = chosen
    return sorted(unique.values(), key=lambda p: (-p.kept, p.refused))


def _describe(p: Point) -> str:
    c = p.config
    unknown = "yes" if c.unknown_from is not None else "no"
    share = c.unknown_share_from
    when = "off" if share is None else "always" if share == 0 else f"from {count(share, 'term')}"
    return (
        f"min_coverage={c.min_coverage}, unknown words as names: {unknown}, unknown share: {when}"
    )


def report(fit: Calibration, args: argparse.Namespace, stored_in: str | None) -> str:
    total = fit.answerable + fit.unanswerable
    head = f"calibrated on {count(total, 'question')} ({fit.answerable} answerable, "
    lines = [
        f"{head}{fit.unanswerable} unanswerable), mode {args.mode}, k={args.k}",
        "trade-off (settings no other setting beats on both):",
        "   kept  refused  setting",
    ]
    for p in frontier(fit.points, fit.chosen):
        mark = "  <- chosen" if p == fit.chosen else ""
        lines.append(f"  {p.kept:5.2f}  {p.refused:7.2f}  {_describe(p)}{mark}")
    c = fit.chosen
    goal = "" if fit.reached else f" (no setting keeps {args.min_kept}: kept the most)"
    lines.append(f"chosen: {_describe(c)}: keeps {c.kept:.2f}, refuses {c.refused:.2f}{goal}")
    lines.append(_held_out_line(fit))
    if stored_in is None:
        lines.append("not stored (--dry-run)")
    else:
        lines.append(f"stored in {stored_in}, used in every mode")
    return "\n".join(lines)


def _held_out_line(fit: Calibration) -> str:
    h = fit.held_out
    if h is None:
        return "held out: not estimated (it needs two answerable and two unanswerable questions)"
    return (
        f"held out ({count(h.folds, 'fold')}, each judged by the setting fitted on the others): "
        f"keeps {h.kept:.2f}, refuses {h.refused:.2f}"
    )


def _record(fit: Calibration, args: argparse.Namespace) -> dict[str, Any]:
    return {
        "questions": fit.answerable + fit.unanswerable,
        "mode": args.mode,
        "k": args.k,
        "min_kept": args.min_kept,
        "kept": fit.chosen.kept,
        "refused": fit.chosen.refused,
        "reached": fit.reached,
        "held_out": None if fit.held_out is None else asdict(fit.held_out),
        "guard": fit.chosen.config.to_dict(),
    }


def _curve(fit: Calibration) -> list[dict[str, Any]]:
    return [{"guard": p.config.to_dict(), "kept": p.kept, "refused": p.refused} for p in fit.points]
