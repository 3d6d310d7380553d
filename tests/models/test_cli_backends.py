"""``docqa ask`` with the network backends, as a user runs it: a missing SDK is one line naming
the extra to install, and a server that only sends keep-alives ends at ``--answer-deadline``."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from backends import BACKENDS, KEY, MODEL, Backend
from docqa_cli import clean_env
from standin import StandIn

from docqa.build import build_index

KEEPALIVE = {"anthropic": b": ping\n\n", "openai": b": keep-alive\n\n", "ollama": b"\n"}
BLOCKER = """
import importlib.abc, os, sys

class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in os.environ["BLOCKED_MODULES"].split(","):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Blocker())
"""


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli-backends")
    (root / "docs").mkdir()
    (root / "docs" / "loans.md").write_text("# Loans\n\nBooks go out for three weeks.\n")
    build_index([root / "docs"], root / "ix")
    return root / "ix"


def ask(index: Path, *options: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``docqa ask`` in a subprocess with ``env`` added to a clean environment."""
    base = {k: v for k, v in clean_env().items() if not k.startswith("OLLAMA_")}
    base |= {"ANTHROPIC_API_KEY": KEY, "OPENAI_API_KEY": KEY, **env}
    command = [sys.executable, "-m", "docqa", "ask", "How long do loans last?"]
    command += ["--index", str(index), "--no-guard", "--model", MODEL, "--max-tokens", "64"]
    return subprocess.run(
        [*command, *options], env=base, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize(
    ("backend", "blocked"),
    [("anthropic", "anthropic"), ("anthropic", "httpx2"), ("openai", "openai")],
)
def test_a_missing_sdk_is_one_line_naming_the_extra(
    index: Path, tmp_path: Path, backend: str, blocked: str
) -> None:
    (tmp_path / "sitecustomize.py").write_text(BLOCKER)
    # the blocker first, then whatever path the tests run with (the package stays installed)
    path = [str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {"PYTHONPATH": os.pathsep.join(path), "BLOCKED_MODULES": blocked}
    result = ask(index, "--backend", backend, env=env)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("docqa: error: ")
    assert f"needs the {blocked} package" in line
    assert f"`pip install 'docqa[{backend}]'`" in line


@pytest.mark.parametrize("backend", BACKENDS, ids=[b.name for b in BACKENDS])
def test_keepalives_forever_end_at_the_answer_deadline_option(
    index: Path, server: StandIn, backend: Backend
) -> None:
    reply = backend.ok(["Half an answer"], stop=False)
    server.script = [dataclasses.replace(reply, keepalive=KEEPALIVE[backend.name])]
    where = {
        "anthropic": ({"ANTHROPIC_BASE_URL": server.url}, []),
        "openai": ({}, ["--base-url", f"{server.url}/v1"]),
        "ollama": ({"OLLAMA_HOST": server.url}, []),
    }
    env, options = where[backend.name]
    started = time.monotonic()
    result = ask(index, "--backend", backend.name, *options, "--answer-deadline", "1.5", env=env)
    took = time.monotonic() - started
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "no complete answer within the deadline of 1.5 s" in line, line
    assert took < 9  # the stand-in sends keep-alives for 10 s; start-up is ~1-2 s of this
    assert len(server.requests) == 1  # a deadline is not retried
