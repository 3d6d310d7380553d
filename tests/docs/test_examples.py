"""Every shell example of README.md and the pages under docs/ that runs ``docqa`` is run, and its
output must be what the page shows (durations, timestamps, pids and absolute paths masked). The
dated notes (``docs/notes/``) are left out: they record what was printed on their day.

How the examples are found, run and compared, and the two comments that steer a block
(``<!-- doc-test: skip REASON -->``, ``<!-- doc-test: setup COMMAND -->``), are in
``doc_examples.py``. Each page runs in its own scratch folder holding ``examples/`` and
``library/`` (a copy of ``examples/library``) and no index, as a bare install: MiniLM is hidden
(``DOCQA_MINILM_DIR`` names an empty folder) and rich draws 80 columns. Blocks that cannot run
here are skipped by the rules in ``OFFLINE`` below, each with its reason (``pytest -rs`` lists
them).

Refreshing the pages after a change of output (the answer text, the citations line ...)::

    DOCQA_UPDATE_DOC_EXAMPLES=1 python -m pytest tests/docs/test_examples.py

rewrites, in place, the output of every command whose output no longer matches with what it
prints now (commands, comments and the outputs that still match are kept; a rewritten output
is whole, so put back any ``...`` elision by hand); review the diff and commit it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from doc_examples import ROOT, Block, Runner, blocks, matches, pages, rewrite

UPDATE = os.environ.get("DOCQA_UPDATE_DOC_EXAMPLES") == "1"

# What a block may not need here, and why it is skipped when it does (first match wins).
OFFLINE: list[tuple[str, str]] = [
    (r"\bdocqa (serve|watch)\b", "runs until stopped (a server or a watcher)"),
    (r"\bcurl\b", "needs a running docqa serve"),
    (r"--store\b|DOCQA_STORE_URL", "needs a PostgreSQL server with pgvector"),
    (r"--ray\b", "needs a Ray cluster"),
    (r"--(backend|judge|embedder) (anthropic|openai|ollama)\b", "needs a model server"),
    (r"minilm", "needs the MiniLM weights (the examples run as a bare install)"),  # or shows it
    (r"/usr/share/doc", "needs Debian's /usr/share/doc pages, which differ by machine"),
    (r"\.\./shared/|benchmarks/", "needs a corpus outside examples/"),
    (r"(?<![\w.])/(tmp|home|root|work|var)/", "uses absolute paths outside its scratch folder"),
]


def offline_reason(block: Block) -> str | None:
    """Why ``block`` cannot run here (its skip comment, else the first rule it meets)."""
    if block.skip:
        return block.skip
    text = "\n".join(block.setup + block.commands())
    shown = "\n".join(line for step in block.steps for line in step.expected)
    # an output of MiniLM's ("embedder minilm-l6-...", "by minilm-l6-..."); a bare install's
    # hint that names the minilm extra is not one
    if re.search(r"\b(embedder|by) minilm-", shown):
        text += "\nminilm"
    return next((why for pattern, why in OFFLINE if re.search(pattern, text)), None)


ALL = [block for page in pages() for block in blocks(page)]
_results: dict[Path, dict[int, str | None]] = {}


def page_results(page: Path, tmp: Path) -> dict[int, str | None]:
    """Run every block of ``page`` once, in order; per block (by its first line): None when
    its output matches, else the mismatch to report."""
    if page in _results:
        return _results[page]
    runner = Runner(tmp / "work")
    results: dict[int, str | None] = {}
    outputs: dict[int, list[tuple[str, int] | None]] = {}
    for block in blocks(page):
        if offline_reason(block):
            continue
        for command in block.setup:
            runner.run(command)
        actual = [runner.run(step.command) for step in block.steps]
        differ = [
            None if matches(s.expected, out, code, runner.workspace) else (out, code)
            for s, (out, code) in zip(block.steps, actual, strict=True)
        ]
        wrong = [
            f"$ {s.command}\n--- the page shows:\n{chr(10).join(s.expected)}\n"
            f"--- it prints (exit {d[1]}):\n{d[0]}"
            for s, d in zip(block.steps, differ, strict=True)
            if d is not None
        ]
        results[block.first] = "\n".join(wrong) or None
        if wrong:
            outputs[block.first] = differ
    if UPDATE and outputs:
        rewrite(page, outputs, runner.workspace)
    _results[page] = results
    return results


@pytest.mark.parametrize("block", ALL, ids=[b.name for b in ALL])
def test_the_example_prints_what_the_page_shows(
    block: Block, tmp_path_factory: pytest.TempPathFactory
) -> None:
    reason = offline_reason(block)
    if reason:
        pytest.skip(f"{block.name}: {reason}")
    wrong = page_results(block.page, tmp_path_factory.mktemp("docs"))[block.first]
    if wrong and UPDATE:
        pytest.skip("rewritten in place (DOCQA_UPDATE_DOC_EXAMPLES=1): review the diff")
    assert wrong is None, f"{block.name}: the example's output differs\n{wrong}"


def test_the_pages_hold_examples() -> None:
    runnable = [b for b in ALL if not offline_reason(b)]
    assert any(b.page == ROOT / "README.md" for b in runnable), "README.md runs no example"
    assert len(runnable) >= 10, [b.name for b in runnable]
