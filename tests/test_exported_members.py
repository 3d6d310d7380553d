"""The front door: every exported name resolves lazily, and importing docqa stays light."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import docqa


def test_all_names_resolve_to_docqa_objects() -> None:
    assert sorted(docqa.__all__) == sorted([*docqa._EXPORTS, "__version__"])
    for name in docqa.__all__:
        value = getattr(docqa, name)
        if name in ("__version__", "REFUSAL"):
            assert isinstance(value, str) and value
            continue
        assert value.__module__.startswith("docqa."), (name, value.__module__)
        assert getattr(value, "__name__", name) == name


def test_dir_lists_the_public_names() -> None:
    assert dir(docqa) == sorted(docqa.__all__)


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        docqa.nope  # noqa: B018


def _modules_after(code: str) -> set[str]:
    """Module names loaded by a fresh interpreter running ``code``."""
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True, timeout=60
    ).stdout
    return set(json.loads(out.splitlines()[-1]))


HEAVY = ("numba", "llvmlite", "markdown_it", "yaml", "httpx", "numpy", "rich")


def test_import_docqa_loads_nothing_heavy() -> None:
    loaded = _modules_after("import docqa")
    assert not [m for m in HEAVY if m in loaded]


def test_help_loads_nothing_heavy() -> None:
    code = (
        "import contextlib, io\n"
        "from docqa.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
    )
    loaded = _modules_after(code)
    assert not [m for m in HEAVY if m in loaded]


def test_first_use_loads_the_implementation() -> None:
    loaded = _modules_after("import docqa\ndocqa.topk")
    assert "docqa.search.api" in loaded and "numba" not in loaded  # Numba: when a kernel runs
    run = "import numpy as np, docqa\ndocqa.topk(np.eye(3, dtype=np.float32), np.ones(3), 1)"
    assert "numba" in _modules_after(run)


def _cli(args: list[str]) -> str:
    """Code for ``_modules_after`` that runs ``docqa ARGS`` and checks it succeeded."""
    return (
        "import contextlib, io\n"
        "from docqa.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main({args!r}) == 0\n"
    )


def test_index_command_loads_no_query_side(tmp_path: Path) -> None:
    """`docqa index` with the default embedder builds BM25 arrays without the search kernels
    (Numba) or the model clients; `docqa search` afterwards searches this small index with the
    NumPy twins (``docqa.search.oneoff``), still without Numba."""
    docs, ix = tmp_path / "docs", tmp_path / "ix"
    docs.mkdir()
    (docs / "a.md").write_text("# Loans\n\nBooks are lent for three weeks.\n", encoding="utf-8")
    loaded = _modules_after(_cli(["index", str(docs), "--index", str(ix)]))
    assert (ix / "manifest.json").is_file()
    assert not [m for m in ("numba", "llvmlite", "docqa.answering", "httpx") if m in loaded]
    assert not [m for m in ("yaml", "markdown_it") if m in loaded]  # no front matter: no YAML
    searched = _modules_after(_cli(["search", "lent", "--index", str(ix)]))
    assert "docqa.search.oneoff" in searched and "numba" not in searched
    (docs / "b.md").write_text("---\ntenant: a\n---\n# Fines\n\nTen cents.\n", encoding="utf-8")
    with_matter = _modules_after(_cli(["index", str(docs), "--index", str(ix)]))
    assert "yaml" in with_matter and "markdown_it" not in with_matter
