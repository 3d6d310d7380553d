"""What each ``docqa`` subcommand does (the parser lives in ``docqa.cli``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.console import Console

from docqa.answer import answer_stream
from docqa.build import IndexSettings, build_index, default_index_dir, ensure_index
from docqa.cli import render
from docqa.cli.progress import build_progress
from docqa.collection import Collection
from docqa.errors import InputError
from docqa.eval import evaluate, load_questions
from docqa.pricing import load_prices
from docqa.retrieve.guard import GuardConfig
from docqa.types import Answer, ModelClient, Prompt, Retriever

EXIT_OK, EXIT_EMPTY = 0, 1


def run(args: argparse.Namespace) -> int:
    handler = {"index": cmd_index, "search": cmd_search, "ask": cmd_ask, "eval": cmd_eval}
    return handler[args.command](args)


def _err() -> Console:
    return Console(stderr=True, highlight=False)


def _index_dir(args: argparse.Namespace) -> Path:
    return args.index if args.index is not None else default_index_dir()


def cmd_index(args: argparse.Namespace) -> int:
    settings = IndexSettings(
        embedder=args.embedder,
        dim=args.dim,
        max_words=args.max_words,
        overlap=args.overlap,
        headings=not args.no_headings,
    )
    with build_progress(_err(), quiet=args.quiet) as progress:
        report = build_index(
            args.paths,
            _index_dir(args),
            settings,
            progress=progress,
            verify=args.verify,
            workers=args.workers,
        )
    print(render.build_summary(report))
    return EXIT_OK


def _guard(args: argparse.Namespace) -> GuardConfig | None:
    if args.min_score is None:
        return None
    if args.mode == "dense":
        return GuardConfig(min_cosine=args.min_score)
    if args.mode == "keyword":
        return GuardConfig(min_keyword=args.min_score)
    return GuardConfig(min_cosine=args.min_score, min_keyword=args.min_score)


def _retriever(args: argparse.Namespace) -> Retriever:
    index_dir = _index_dir(args)
    if args.docs is not None:
        with render.progress(_err()) as progress:
            report = ensure_index([args.docs], index_dir, progress=progress)
        if report is not None:
            _err().print(render.build_summary(report))
    collection = Collection.open(index_dir)
    return collection.retriever(args.mode, guard=_guard(args), guarded=not args.no_guard)


def cmd_search(args: argparse.Namespace) -> int:
    hits = _retriever(args).search(args.question, args.k)
    if args.json:
        print(json.dumps(render.hits_json(args.question, hits), ensure_ascii=False, indent=2))
    elif hits:
        Console(highlight=False).print(render.hits_table(hits))
    else:
        _err().print("nothing relevant found (the guard found no passage strong enough)")
    return EXIT_OK if hits else EXIT_EMPTY


class RecordingModel:
    """Passes prompts through to ``model`` and keeps the last one (for --show-prompt)."""

    def __init__(self, model: ModelClient) -> None:
        self.model = model
        self.name = getattr(model, "name", None)
        self.prompt: Prompt | None = None

    def stream(self, prompt: Prompt) -> Iterator[str]:
        self.prompt = prompt
        return self.model.stream(prompt)


def make_model(args: argparse.Namespace) -> ModelClient:
    """The model client named by ``--backend`` (imports an SDK only when it is chosen)."""
    from docqa import models

    if args.backend == "extractive":
        return models.ExtractiveModel()
    if args.backend == "fake":
        replies = args.fake_reply or ["This is a scripted reply."]
        return models.FakeModel(replies * 1000)
    if args.backend == "anthropic":
        return models.AnthropicModel(args.model, max_tokens=args.max_tokens)
    if args.backend == "openai":
        return models.OpenAICompatibleModel(
            args.model, max_tokens=args.max_tokens, base_url=args.base_url
        )
    return models.OllamaModel(args.model, max_tokens=args.max_tokens)


def cmd_ask(args: argparse.Namespace) -> int:
    retriever = _retriever(args)
    model = RecordingModel(make_model(args))
    prices = load_prices()
    final: Answer | None = None
    for item in answer_stream(args.question, retriever, model, args.k, prices=prices):
        if isinstance(item, Answer):
            final = item
        elif not args.json:
            sys.stdout.write(item)
            sys.stdout.flush()
    assert final is not None
    if args.show_prompt and model.prompt is not None:
        _err().print(render.prompt_text(model.prompt), markup=False)
    if args.json:
        print(json.dumps(render.answer_json(final), ensure_ascii=False, indent=2))
    else:
        print()
        print(render.answer_footer(final))
    return EXIT_EMPTY if final.refused else EXIT_OK


def _csv(text: str, what: str) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise InputError(f"{what} needs at least one value, got {text!r}")
    return items


def cmd_eval(args: argparse.Namespace) -> int:
    questions = load_questions(args.questions)
    modes = _csv(args.mode, "--mode")
    try:
        ks = [int(k) for k in _csv(args.k, "-k")]
    except ValueError:
        raise InputError(f"-k takes whole numbers separated by commas, got {args.k!r}") from None
    if min(ks) < 1:
        raise InputError(f"every -k must be at least 1, got {args.k!r}")
    collection = Collection.open(_index_dir(args))
    retrievers = {m: collection.retriever(m, guarded=not args.no_guard) for m in modes}
    report = evaluate(questions, retrievers, ks=ks)
    data: dict[str, Any] = report.to_json()
    if args.answers:
        from docqa.eval.answers import check_answers

        data["answers"] = check_answers(questions, retrievers, make_model(args))
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        Console(highlight=False).print(render.eval_table(report))
        if args.answers:
            print(render.answers_summary(data["answers"]))
    return EXIT_OK
