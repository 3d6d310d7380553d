"""The model embedder, the embedding cache and reranking through the docqa command."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from docqa_cli import docqa as run_docqa

from docqa.cli.main import EMBEDDERS as CLI_EMBEDDERS
from docqa.embed.choices import AUTO, EMBEDDERS

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "examples" / "library"


def test_cli_choices_match_the_registry() -> None:
    assert CLI_EMBEDDERS == (AUTO, *EMBEDDERS)


def _entries(stats: str) -> int:
    return int(stats.split(": ", 1)[1].split(" vectors")[0])


def test_minilm_index_search_and_the_cache(tmp_path: Path) -> None:
    docs, cache = tmp_path / "library", tmp_path / "cache"
    shutil.copytree(LIBRARY, docs)
    index = str(tmp_path / "index")
    built = docqa(
        "index", str(docs), "--index", index, "--embedder", "minilm", cwd=tmp_path, cache=cache
    )
    assert built.returncode == 0, built.stderr
    assert "embedder minilm-l6-v2-int8-v2" in built.stdout
    first = docqa("cache", "stats", cwd=tmp_path, cache=cache)
    n = _entries(first.stdout)
    assert first.returncode == 0 and n > 20 and "minilm-l6-v2-int8-v2:" in first.stdout
    # the index is deleted and one file changes: only that file's new chunks reach the model
    shutil.rmtree(index)
    hours = docs / "hours.txt"
    hours.write_text(
        hours.read_text(encoding="utf-8") + "\n\nThe reading room closes at noon on Sundays.\n"
    )
    again = docqa(
        "index", str(docs), "--index", index, "--embedder", "minilm", cwd=tmp_path, cache=cache
    )
    assert again.returncode == 0, again.stderr
    grown = _entries(docqa("cache", "stats", cwd=tmp_path, cache=cache).stdout) - n
    assert 1 <= grown <= 3
    found = docqa("search", "When can I borrow a laptop and for how long?", "--index", index,
                  "--mode", "hybrid", "--json", cwd=tmp_path, cache=cache)  # fmt: skip
    assert found.returncode in (0, 1), found.stderr
    cleared = docqa("cache", "clear", cwd=tmp_path, cache=cache)
    assert cleared.returncode == 0 and f"removed {n + grown} cached vectors" in cleared.stdout
    assert _entries(docqa("cache", "stats", cwd=tmp_path, cache=cache).stdout) == 0


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("search", "q", "--rerank"), "--rerank needs a cross-encoder"),
        (("search", "q", "--rerank", "--rerank-model", "/nonexistent"), "is not a folder"),
    ],
)
def test_rerank_errors_are_one_line(tmp_path: Path, args: tuple[str, ...], needle: str) -> None:
    cache = tmp_path / "cache"
    index = str(tmp_path / "index")
    assert docqa("index", str(LIBRARY), "--index", index, cwd=tmp_path, cache=cache).returncode == 0
    result = docqa(*args, "--index", index, cwd=tmp_path, cache=cache)
    assert result.returncode == 2 and needle in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def docqa(*args: str, cwd: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    return run_docqa(*args, cwd=cwd, env={"DOCQA_CACHE_DIR": str(cache)}, timeout=600)
