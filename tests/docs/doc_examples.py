"""Shell examples in Markdown: found, run in a scratch folder, masked and compared.

An example is a fenced block whose first line starts with ``$ `` and that runs ``docqa`` at
least once. Each ``$ `` line (with its ``\\`` continuation lines) is a command; the lines after
it, up to the next command, are its output (stdout and stderr, in the order printed). A line
``...`` or ``... (anything)`` in an output stands for any number of lines; a last line
``(exit N)`` is the command's exit code.

Two HTML comments, on the lines just above a block, steer it (invisible on a rendered page):

- ``<!-- doc-test: skip REASON -->``: the block is not run; the test shows REASON.
- ``<!-- doc-test: setup COMMAND -->``: COMMAND (a shell line; repeat the comment for several)
  runs before the block, its output unchecked: the state the page takes for granted. In it,
  ``$FIXTURES`` is ``tests/docs/fixtures`` (small folders to copy in).

Blocks are run in page order, in one scratch folder per page that starts with ``examples/``
and ``library/`` (a copy of ``examples/library``) and no index: a page builds what it uses.
A plain ``docqa ARGS`` line runs in this process (``docqa.cli.main.main``: the kernels compile
once for every page); any other line runs in bash with ``docqa`` on its PATH.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from docqa_cli import clean_env

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^(`{3,})")
DIRECTIVE = re.compile(r"^<!-- doc-test: (skip|setup) (.*) -->$")
SHELL = re.compile(r"[;&|<>`]|\$\(|^\w+=")  # a line bash must run (operators, VAR=value ...)
WILDCARD = re.compile(r"^\.\.\.( \(.*\))?$")
EXIT = re.compile(r"^\(exit (\d+)\)$")
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SHOWN_AT = "/tmp/docqa-demo"  # the scratch folder's path, as a rewritten page shows it


@dataclass
class Step:
    command: str  # without the "$ " (continuation lines joined with their backslashes)
    lines: list[str]  # the command's lines as written on the page
    expected: list[str]


@dataclass
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    first: int  # index in the page's lines of the block's first line (after the fence)
    last: int  # index of the closing fence
    steps: list[Step]
    skip: str | None = None
    setup: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    def commands(self) -> list[str]:
        return [s.command for s in self.steps]


NOTES = ROOT / "docs" / "notes"  # dated notes: what was printed that day, kept as written


def pages() -> list[Path]:
    """README.md and every Markdown page under docs/ but the dated notes."""
    found = sorted((ROOT / "docs").rglob("*.md"))
    return [ROOT / "README.md", *(page for page in found if not page.is_relative_to(NOTES))]


def blocks(page: Path) -> list[Block]:
    """The shell examples of ``page`` that run ``docqa``, in page order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        end = next(
            (j for j in range(i + 1, len(lines)) if lines[j].startswith(fence[1])), len(lines)
        )
        body = lines[i + 1 : end]
        if body and body[0].startswith("$ "):
            block = Block(page, i + 1, i + 1, end, _steps(body))
            _directives(block, lines, i)
            if any(_runs_docqa(c) for c in block.commands()):
                found.append(block)
        i = end + 1
    return found


def _steps(body: list[str]) -> list[Step]:
    steps: list[Step] = []
    i = 0
    while i < len(body):
        if body[i].startswith("$ "):
            written = [body[i]]
            while written[-1].endswith("\\") and i + 1 < len(body):
                i += 1
                written.append(body[i])
            command = "\n".join(written)[2:]
            steps.append(Step(command, written, []))
        elif steps:
            steps[-1].expected.append(body[i])
        i += 1
    return steps


def _directives(block: Block, lines: list[str], fence: int) -> None:
    j = fence - 1
    while j >= 0 and (m := DIRECTIVE.match(lines[j].strip())):
        if m[1] == "skip":
            block.skip = m[2].strip()
        else:
            block.setup.insert(0, m[2].strip())
        j -= 1


def _runs_docqa(command: str) -> bool:
    return re.search(r"(^|[\s;&|(])docqa\s", command + " ") is not None


def mask(text: str, workspace: Path | None = None) -> str:
    """``text`` with what changes from run to run replaced by placeholders: durations and
    rates, timestamps, process ids, absolute paths (the scratch folder's among them)."""
    if workspace is not None:
        text = text.replace(str(workspace), SHOWN_AT)
    stamp = r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:[+-]\d\d:\d\d|Z)?"
    text = re.sub(stamp, "<TIME>", text)
    text = re.sub(r"\b\d+(?:\.\d+)? (s|ms|us|[a-z]+/s)\b", r"<N> \1", text)
    text = re.sub(r"\bpid \d+", "pid <N>", text)
    text = re.sub(r"(?<![\w.])/(?:tmp|home|root|work|var)/[^\s'\";,)]*", "<PATH>", text)
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def matches(expected: list[str], actual: str, code: int, workspace: Path) -> bool:
    """Whether ``actual`` output and exit ``code`` show what the page's ``expected`` lines
    show, masked."""
    shown_lines = mask("\n".join(expected)).splitlines()  # trailing blank lines dropped
    if shown_lines and (exit := EXIT.match(shown_lines[-1])):
        if int(exit[1]) != code:
            return False
        shown_lines.pop()
    pattern = []
    for line in shown_lines:
        pattern.append(r"(?:[^\n]*\n)*?" if WILDCARD.match(line) else re.escape(line) + r"\n")
    shown = mask(actual, workspace)
    return re.fullmatch("".join(pattern), shown + "\n" if shown else "") is not None


class Runner:
    """Runs commands in one scratch folder, ``docqa`` in this process where it can."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        shutil.copytree(ROOT / "examples", workspace / "examples")
        shutil.copytree(ROOT / "examples" / "library", workspace / "library")
        self.bin = workspace.parent / f"{workspace.name}-bin"
        self.bin.mkdir()
        shim = self.bin / "docqa"
        shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m docqa "$@"\n')
        shim.chmod(0o755)
        (workspace.parent / f"{workspace.name}-no-minilm").mkdir()
        self.env = clean_env()
        self.env.update(
            COLUMNS="80",  # rich's width when the output is not a terminal, as on the pages
            PYTHONUNBUFFERED="1",
            DOCQA_MINILM_DIR=str(workspace.parent / f"{workspace.name}-no-minilm"),
            PATH=f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}",
            FIXTURES=str(FIXTURES),
        )

    def run(self, command: str) -> tuple[str, int]:
        """stdout and stderr of ``command``, interleaved as printed, and its exit code."""
        argv = None if SHELL.search(command) else shlex.split(command, comments=True)
        if argv and argv[0] == "docqa":
            return self._in_process(argv[1:])
        done = subprocess.run(
            ["bash", "-c", command], cwd=self.workspace, env=self.env, check=False,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120,
        )  # fmt: skip
        return done.stdout.decode("utf-8", "replace"), done.returncode

    def _in_process(self, args: list[str]) -> tuple[str, int]:
        from docqa.cli.main import main

        raw = io.BytesIO()
        with _swapped(self.env, self.workspace, raw):
            try:
                code = main(args)
            except SystemExit as stop:  # argparse: --help, --version, usage errors
                code = stop.code if isinstance(stop.code, int) else 1
        return raw.getvalue().decode("utf-8", "replace"), code


@contextmanager
def _swapped(env: dict[str, str], cwd: Path, raw: io.BytesIO) -> Iterator[None]:
    """The process's environment, folder, stdout and stderr set for one in-process run (both
    streams into ``raw``, in the order written), then put back."""
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_out, saved_err = sys.stdout, sys.stderr
    out = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)
    err = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    sys.stdout, sys.stderr = out, err
    try:
        yield
    finally:
        out.flush()
        err.flush()
        sys.stdout, sys.stderr = saved_out, saved_err
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        out.detach()
        err.detach()


def rewrite(page: Path, outputs: dict[int, list[tuple[str, int] | None]], workspace: Path) -> None:
    """Put the actual output and exit code of each step that did not match (None: it did) of
    each block (by ``Block.first``) into ``page`` in place of what it shows: its exit code
    where the page showed one, its blank lines after it kept; the scratch folder's path is
    written as ``SHOWN_AT``. A step that matched is left as written."""
    lines = page.read_text(encoding="utf-8").splitlines()
    for block in sorted(blocks(page), key=lambda b: b.first, reverse=True):
        if block.first not in outputs:
            continue
        body: list[str] = []
        for step, result in zip(block.steps, outputs[block.first], strict=True):
            body += step.lines
            if result is None:
                body += step.expected
                continue
            actual, code = result
            shown = actual.replace(str(workspace), SHOWN_AT).rstrip("\n")
            body += [line.rstrip() for line in shown.splitlines()]
            kept = "\n".join(step.expected).rstrip("\n").splitlines()
            if kept and EXIT.match(kept[-1].strip()):
                body.append(f"(exit {code})")
            body += [""] * (len(step.expected) - len(kept))  # the blank lines that followed
        lines[block.first : block.last] = body
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
