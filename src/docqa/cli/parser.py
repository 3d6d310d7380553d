"""The ``docqa`` command line's parser: every subcommand and its options (``docqa --help``).

Built before any heavy import, so ``docqa --help`` and a usage error are fast; a usage error is
one line and exit code 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from docqa import __version__
from docqa.cli import batch, serve
from docqa.cli.arguments import Parser as _Parser
from docqa.cli.arguments import at_least_two as _at_least_two
from docqa.cli.arguments import mode_option, store_options
from docqa.cli.arguments import non_negative as _non_negative
from docqa.cli.arguments import positive as _positive
from docqa.cli.arguments import question_text as _question

BACKENDS = ("extractive", "fake", "anthropic", "openai", "ollama")
EMBEDDERS = ("auto", "hashing", "tfidf", "minilm", "ollama", "openai")  # docqa.embed.choices

_QUESTIONS = (
    "labelled questions, JSON Lines: question, relevant section ids ([] for one the documents "
    "do not answer), optional kind and must_contain"
)


def _index_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--index",
        type=Path,
        default=None,
        help="index directory (default: .docqa/index under the current folder)",
    )


def _store_options(p: argparse.ArgumentParser, *, query: bool) -> None:
    """``--store`` and what goes with it (runner: ``docqa.cli.store``)."""
    store_options(p, "a PostgreSQL + pgvector database instead of an index folder")
    if query:
        p.add_argument(
            "--ef-search",
            type=_positive,
            default=None,
            help=(
                "approximate dense search through the store's HNSW index with this ef_search "
                "(default: exact, the hits of a folder index)"
            ),
        )


def _retrieval_options(p: argparse.ArgumentParser, default_k: int) -> None:
    _index_options(p)
    p.add_argument(
        "--docs",
        type=Path,
        default=None,
        help="index this folder first (reused while nothing in it changed)",
    )
    p.add_argument("-k", type=_positive, default=default_k, help="how many passages")
    mode_option(p)
    p.add_argument(
        "--min-score",
        type=float,
        default=None,
        help="extra guard threshold for the mode (cosine for dense, share of the best "
        "attainable BM25 score for keyword; both for hybrid)",
    )
    p.add_argument(
        "--min-coverage",
        type=float,
        default=None,
        help="guard: share of the question's IDF mass the best passage must hold "
        "(default: the index's calibrated value, else 0.15)",
    )
    p.add_argument(
        "--drift-model",
        choices=("auto", "embedder", "minilm"),
        default=None,
        help="guard: which model judges whether a word the collection never uses pulls the "
        "question away from the passages (default auto: the index's embedder if it is "
        "semantic, else MiniLM when installed)",
    )
    p.add_argument("--no-guard", action="store_true", help="return hits however weak")
    p.add_argument(
        "--explain-guard", action="store_true", help="print why the guard passed or refused"
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    _store_options(p, query=True)
    p.add_argument(
        "--tenant",
        action="append",
        default=None,
        help="search only this tenant's passages (repeat for several)",
    )
    _rerank_options(p)


def _rerank_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--rerank",
        action="store_true",
        help="reorder the best hits with the cross-encoder of --rerank-model",
    )
    p.add_argument(
        "--rerank-model",
        type=Path,
        default=None,
        help="folder of a BERT cross-encoder (else DOCQA_RERANK_MODEL)",
    )
    p.add_argument("--rerank-top", type=_positive, default=30, help="hits to rerank")
    p.add_argument(
        "--rescore",
        action="store_true",
        help="hybrid mode over a lexical index: rank BM25's best --rescore-top passages by "
        "MiniLM's cosines fused with their BM25 scores (needs MiniLM)",
    )
    p.add_argument(
        "--rescore-top", type=_positive, default=50, help="BM25 hits --rescore ranks (default 50)"
    )


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of ``index`` alone when ``command`` is "index" (the
    others' options take ~2 ms to build, 1% of an update that changes 1% of 100 MB)."""
    parser = _Parser(
        prog="docqa",
        description="Answer questions from your own documents, with checked citations.",
        epilog="Run `docqa COMMAND --help` for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"docqa {__version__}")
    sub = parser.add_subparsers(
        dest="command", required=True, parser_class=_Parser, metavar="COMMAND", title="commands"
    )
    _index_parser(sub)
    if command != "index":
        _query_parsers(sub)
    return parser


def _index_parser(sub: Any) -> None:
    p = sub.add_parser(
        "index",
        help="index folders or files of .md, .rst, .adoc, .txt, .html and .pdf and manual pages",
    )
    _build_options(p)
    p.add_argument(
        "--verify",
        action="store_true",
        help="hash every source file (no stat shortcut); checksum the index after writing",
    )
    p.add_argument(
        "--rewrite",
        action="store_true",
        help="write the whole index even when the changes would fit in a delta",
    )
    _store_options(p, query=False)
    p.add_argument(
        "--shard-rows", type=_positive, default=None, help="write shards of at most N rows"
    )
    batch.ray_option(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar, only the summary")


def _build_options(p: argparse.ArgumentParser) -> None:
    """What ``docqa index`` and ``docqa watch`` build: the paths, the index and its settings."""
    p.add_argument(
        "paths",
        nargs="+",
        type=Path,
        help="folders and files to read: .md, .rst, .adoc, .txt, .html, .pdf, man pages; also .gz",
    )
    _index_options(p)
    p.add_argument(
        "--embedder",
        choices=EMBEDDERS,
        default="auto",
        help="auto (default): the index's own when updating it; for a new index minilm when "
        "installed, else hashing",
    )
    p.add_argument("--dim", type=_positive, default=256, help="hashing embedder dimension")
    p.add_argument(
        "--max-words",
        type=_positive,
        default=None,  # docqa.text.windows.MAX_WORDS, not imported before the parse
        help="words a passage holds at most (a longer section is cut into windows); default: "
        "the index's own when updating it, else 300",
    )
    p.add_argument(
        "--overlap",
        type=_non_negative,
        default=0,
        help="words each window of a long section repeats from the one before (default 0)",
    )
    p.add_argument(
        "--no-headings",
        action="store_true",
        help="embed chunk text without its heading path in front",
    )
    p.add_argument(
        "--heading-weight",
        type=_positive,
        default=None,  # docqa.text.sections.HEADING_WEIGHT, not imported before the parse
        help="times a chunk's heading path counts in its keyword (BM25) row "
        "(default 2; 1: once, as it is embedded)",
    )
    p.add_argument(
        "--storage",
        choices=("float32", "int8"),
        default="float32",
        help="int8: also store int8 codes, searched with exact results (a quarter of the bytes)",
    )
    p.add_argument(
        "--tenant-from-folder",
        action="store_true",
        help="each file's tenant is its first folder under the indexed folder",
    )
    p.add_argument(
        "--workers",
        type=_positive,
        default=None,
        help="processes that parse and embed (default: the cores available); "
        "the index is the same bytes for any number",
    )


def _watch_parser(sub: Any) -> None:
    """``docqa watch`` (runner: ``docqa.cli.watch``)."""
    p = sub.add_parser(
        "watch",
        help="index folders, then update the index whenever their files change",
        description="Build or update the index, then update it after every burst of changes "
        "to the folders (new, edited, moved or deleted files) until Ctrl-C. Each update is "
        "the one `docqa index` makes, without a command's start-up; `docqa serve` on the "
        "same index reloads it. A folder index only (no --store, --shard-rows or --ray).",
    )
    _build_options(p)
    p.add_argument(
        "--debounce",
        type=_positive,
        default=1600,
        metavar="MS",
        help="longest wait for a burst of changes to settle before updating (default 1600; "
        "a burst ends sooner, 50 ms after its last change)",
    )
    p.add_argument(
        "--poll",
        action="store_true",
        help="look for changes by polling (network file systems, some containers)",
    )
    p.add_argument("--quiet", action="store_true", help="only the summary line of each update")


def _query_parsers(sub: Any) -> None:
    p = sub.add_parser("search", help="print the passages that best match a question")
    p.add_argument("question", type=_question, help="the question, quoted")
    _retrieval_options(p, default_k=5)
    p = sub.add_parser("ask", help="answer a question from the passages, with citations")
    p.add_argument("question", type=_question, help="the question, quoted")
    _retrieval_options(p, default_k=3)
    _model_options(p)
    _context_options(p)
    p.add_argument("--show-prompt", action="store_true", help="print exactly what was sent")
    p = sub.add_parser("eval", help="recall@k, MRR and guard figures on labelled questions")
    p.add_argument("questions", type=Path, help=_QUESTIONS)
    _index_options(p)
    p.add_argument(
        "--mode",
        default="dense,keyword,hybrid",
        help="comma-separated modes to compare (a mode ending in +rerank uses --rerank-model)",
    )
    _rerank_options(p)
    p.add_argument("-k", default="1,3,5,10", help="comma-separated cut-offs")
    p.add_argument(
        "--no-guard", action="store_true", help="measure the retrievers without the guard"
    )
    p.add_argument(
        "--answers",
        action="store_true",
        help="also answer every question and check must_contain and citations",
    )
    _model_options(p)
    _context_options(p)
    p.add_argument(
        "--judge",
        choices=BACKENDS,
        default=None,
        help="with --answers: ask this backend whether each answer is supported by the "
        "passages it cites",
    )
    _store_options(p, query=True)
    p.add_argument("--judge-model", default=None, help="judge model name (else DOCQA_MODEL)")
    p.add_argument(
        "--judge-reply",
        action="append",
        default=None,
        help="scripted verdict for --judge fake (repeat for several answers)",
    )
    p.add_argument("--json", action="store_true", help="print every figure as JSON")
    from docqa.cli.verify import add_verify_parser

    add_verify_parser(sub)
    serve.add_parser(sub, _index_options, _model_options, _positive)
    _watch_parser(sub)
    from docqa.cli import cache

    cache.add_parser(sub)
    _calibrate_parser(sub)
    batch.add_parsers(sub, _positive)
    from docqa.cli import store_local

    store_local.add_parser(sub)


def _calibrate_parser(sub: Any) -> None:
    """``docqa calibrate`` (runner: ``docqa.cli.calibrate``)."""
    p = sub.add_parser(
        "calibrate",
        help="fit the guard to labelled questions and store it in the index",
        description="Fit the weak-retrieval guard to labelled questions (answerable and "
        "unanswerable), print the kept / refused trade-off and store the chosen settings in "
        "the index manifest, where every mode uses them. Re-run it after re-indexing.",
    )
    p.add_argument("questions", type=Path, help=_QUESTIONS)
    _index_options(p)
    mode_option(p)
    p.add_argument("-k", type=_positive, default=5, help="passages judged per question")
    p.add_argument(
        "--min-kept",
        type=float,
        default=0.9,
        help="share of the answerable questions the guard must keep (default 0.9)",
    )
    p.add_argument(
        "--folds",
        type=_at_least_two,
        default=5,
        help="folds of the held-out estimate: each fold judged by the setting fitted on the "
        "others (default 5)",
    )
    p.add_argument("--dry-run", action="store_true", help="print the curve, store nothing")
    p.add_argument("--json", action="store_true", help="print the curve and choice as JSON")
    _store_options(p, query=False)


def _context_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--context",
        choices=("window", "section"),
        default="window",
        help="what the model reads: the retrieved windows, or the whole section of each hit",
    )
    p.add_argument(
        "--max-context-tokens",
        type=_positive,
        default=2000,
        help="token budget of --context section over all passages (default 2000)",
    )


def _model_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--backend",
        choices=BACKENDS,
        default="extractive",
        help="what writes the answer: extractive (default, offline: the passages' own "
        "sentences), a hosted model (anthropic, openai), ollama, or fake (scripted)",
    )
    p.add_argument("--model", default=None, help="model name (else DOCQA_MODEL)")
    p.add_argument(
        "--max-tokens", type=_positive, default=None, help="reply limit (else DOCQA_MAX_TOKENS)"
    )
    p.add_argument("--base-url", default=None, help="OpenAI-compatible server URL")
    p.add_argument(
        "--answer-deadline",
        type=serve.seconds,
        default=300.0,
        metavar="SECONDS",
        help="longest wait for one whole answer from a model backend, retries and keep-alives "
        "included (default 300)",
    )
    p.add_argument(
        "--fake-reply",
        action="append",
        default=None,
        help="scripted reply for --backend fake (repeat for several questions)",
    )
