r"""How the ``docqa`` command shows things: tables, summaries, JSON shapes, progress.

Everything that came from a document (ids, sources, headings, text, file names) is data: table
cells are rich ``Text`` (never parsed as markup) and every string shown on a terminal goes
through :func:`safe` (controls escaped). JSON goes through :func:`dumps`: ``json.dumps``
escapes C0 controls itself, and C1 controls (``\x9b`` is a one-byte CSI), bidi controls and
line separators are written as ``\uXXXX`` escapes too (they can only occur inside strings).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table
from rich.text import Text

from docqa import support
from docqa.cli.words import count
from docqa.controls import BIDI, escape_controls
from docqa.types import Answer, Hit, Prompt

if TYPE_CHECKING:  # annotations only: `docqa index` must not import the query side (Numba)
    from docqa.eval import EvalReport
    from docqa.retrieve.guard import Verdict

PREVIEW = 70
_JSON_UNSAFE = re.compile(f"[\\x7f-\\x9f{BIDI}\\u2028\\u2029]")


def dumps(data: Any, indent: int | None = 2) -> str:
    """``data`` as JSON text that is safe on a terminal (and equal to it once parsed)."""
    text = json.dumps(data, ensure_ascii=False, indent=indent)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


def safe(text: str) -> str:
    """``text`` for a terminal: control characters shown as escapes, newlines kept."""
    return escape_controls(text)


def cell(text: str) -> Text:
    """A table cell holding ``text`` literally (no markup, no controls)."""
    return Text(escape_controls(text, keep=""))


@contextmanager
def progress(console: Console) -> Iterator[Callable[[str, int, int], None]]:
    """A callback ``(stage, done, total)`` drawing one bar per stage on ``console``."""
    bars = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=console,
        transient=True,
    )
    tasks: dict[str, Any] = {}

    def update(stage: str, done: int, total: int) -> None:
        if stage not in tasks:
            tasks[stage] = bars.add_task(stage, total=total)
        bars.update(tasks[stage], completed=done, total=total)

    with bars:
        yield update


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW else flat[: PREVIEW - 1] + "…"


def hits_table(hits: Sequence[Hit]) -> Table:
    table = Table()
    table.add_column("rank", justify="right", no_wrap=True, min_width=4)
    table.add_column("score", no_wrap=True, min_width=6)
    # ids are copied into questions and citations: never cut them
    width = max((len(cell(h.id)) for h in hits), default=2)
    table.add_column("id", no_wrap=True, min_width=width)
    table.add_column("text")
    for rank, hit in enumerate(hits, start=1):
        text = hit.chunk.text if hit.chunk else ""
        page = hit.chunk.metadata.get("page") if hit.chunk else None
        text = f"p. {page}: {text}" if page else text  # a PDF page, as a reader cites it
        table.add_row(str(rank), f"{hit.score:.4f}", cell(hit.id), cell(_preview(text)))
    return table


def hit_json(rank: int, hit: Hit) -> dict[str, Any]:
    chunk = hit.chunk
    return {
        "rank": rank,
        "id": hit.id,
        "section": hit.section,
        "score": hit.score,
        "source": chunk.source if chunk else None,
        "heading_path": list(chunk.heading_path) if chunk else [],
        "page": chunk.metadata.get("page") if chunk else None,
        "text": chunk.text if chunk else None,
        "components": {n: {"score": c.score, "rank": c.rank} for n, c in hit.components.items()},
    }


def hits_json(question: str, hits: Sequence[Hit]) -> dict[str, Any]:
    return {"question": question, "hits": [hit_json(i, h) for i, h in enumerate(hits, 1)]}


def prompt_text(prompt: Prompt) -> str:
    """The prompt exactly as sent, between marker lines (its text holds no controls but
    newlines and tabs: :func:`docqa.prompt.build_prompt` escapes the others)."""
    return f"--- system ---\n{prompt.system}\n--- user ---\n{prompt.user}\n--- end ---\n"


def answer_json(a: Answer) -> dict[str, Any]:
    return {
        "question": a.question,
        "answer": a.text,
        "refused": a.refused,
        "cited": list(a.cited_ids),
        "not_retrieved": list(a.not_retrieved),
        "claims": [
            {
                "text": c.text,
                "cited": list(c.cited),
                "supported": c.supported,
                "supported_by": list(c.supported_by),
                "not_supported_by": list(c.unsupported_by),
            }
            for c in a.claims
        ],
        "hits": [hit_json(i, h) for i, h in enumerate(a.hits, 1)],
        "usage": None
        if a.usage is None
        else {
            "input_tokens": a.usage.input_tokens,
            "output_tokens": a.usage.output_tokens,
            "estimated": a.usage.estimated,
        },
        "cost": a.cost,
    }


def verdict_text(verdict: Verdict, mode: str, k: int) -> str:
    """The guard's verdict as ``guard: passed|refused (mode, k=N)`` and one line per check."""
    head = f"guard: {'passed' if verdict.passed else 'refused'} ({mode}, k={k})"
    return "\n".join([head, *(f"  {line}" for line in verdict.reasons)])


def answer_footer(a: Answer) -> str:
    if a.refused and not a.hits:
        return "refused: no passage was relevant enough, so no model was called"
    lines = [f"citations: {support.summary(a.cited_ids, a.not_retrieved, a.claims)}"]
    lines.extend(
        f"  not supported by [{', '.join(c.unsupported_by)}]: {c.text}"
        for c in a.claims
        if not c.supported
    )
    if a.usage is not None:
        mark = " (estimated)" if a.usage.estimated else ""
        cost = "cost not configured" if a.cost is None else f"cost ${a.cost:.6f}"
        lines.append(
            f"tokens: {a.usage.input_tokens} in, {a.usage.output_tokens} out{mark}; {cost}"
        )
    return safe("\n".join(lines))


def _cell(value: float, low: float, high: float) -> str:
    return f"{value:.3f} [{low:.2f}, {high:.2f}]"


def eval_table(report: EvalReport, answers: dict[str, Any] | None = None) -> Table:
    modes = list(report.modes.values())
    table = Table(title=f"{count(report.questions, 'question')} (95% bootstrap intervals)")
    table.add_column("figure")
    for m in modes:  # headers are cells too: a mode name is never read as markup
        table.add_column(cell(m.mode))
    keys = list(modes[0].figures) if modes else []
    for key in keys:
        table.add_row(
            cell(key), *(_cell(f.value, f.low, f.high) for f in (m.figures[key] for m in modes))
        )
    if answers is not None:
        facts = [answers.get(m.mode, {}).get("figures", {}).get("facts") for m in modes]
        table.add_row(
            "facts (answer holds must_contain)",
            *("-" if f is None else _cell(f["value"], f["low"], f["high"]) for f in facts),
        )
    kinds = sorted({k for m in modes for k in m.recall5_by_kind})
    for kind in kinds:
        table.add_row(
            cell(f"recall@5 {kind}"),
            *(
                f"{m.recall5_by_kind[kind].value:.3f}" if kind in m.recall5_by_kind else "-"
                for m in modes
            ),
        )
    for label, attr in (
        ("refused unanswerable", "refused_unanswerable"),
        ("refused answerable", "refused_answerable"),
    ):
        table.add_row(
            label,
            *("-" if getattr(m, attr) is None else f"{getattr(m, attr).value:.3f}" for m in modes),
        )
    return table


def answers_summary(data: dict[str, Any]) -> str:
    lines = []
    for mode, v in data.items():
        lines.append(
            f"answers ({mode}): must_contain {v['must_contain_ok']}/{v['must_contain_checked']}, "
            f"citations not retrieved in {v['bad_citations']}, refused {v['refused']} of "
            f"{v['asked']}"
        )
        figures = v.get("figures", {})
        shown = [
            f"{name} {_cell(f['value'], f['low'], f['high'])} (n={f['n']})"
            for name, f in figures.items()
        ]
        if shown:
            lines.append(f"  {'; '.join(shown)}")
        if "judge" in v:
            lines.append(f"  judge: unclear replies {v['judge']['unclear']}")
    return safe("\n".join(lines))
