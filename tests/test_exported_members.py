"""The front door: every exported name resolves lazily, and importing docqa stays light."""

from __future__ import annotations

import json
import subprocess
import sys

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
    assert "numba" in loaded and "docqa.search.api" in loaded
