"""MkDocs hook: the API reference covers the public API, and every object it shows is documented.

Run by ``mkdocs build`` (``hooks:`` in mkdocs.yml). Before the pages are built it reads
``src/docqa`` with griffe, statically (nothing is imported), and logs a warning, which
``--strict`` turns into a failed build, for:

- a name of ``docqa.__all__`` that no ``::: path`` directive of ``docs/reference/`` shows (itself
  or the module holding it);
- an object a directive shows, or a public class, function or method inside it, without a
  docstring (names starting with ``_`` and imported names are left out, as the pages leave
  them out).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import griffe

log = logging.getLogger("mkdocs.hooks.docstrings")
DIRECTIVE = re.compile(r"^:::\s+([\w.]+)", re.MULTILINE)


def on_pre_build(config: Any) -> None:
    """Check the reference pages against the package before anything is built."""
    root = Path(config["config_file_path"]).parent
    package = griffe.load(
        "docqa",
        search_paths=[str(root / "src")],
        allow_inspection=False,
        resolve_aliases=True,
        resolve_external=False,
    )
    shown = _directives(Path(config["docs_dir"]) / "reference")
    for path in sorted(p for p in _exported(package) if not _covered(p, shown)):
        log.warning("docqa exports %s, which no page of docs/reference/ shows (::: %s)", path, path)
    for path in sorted(shown):
        try:
            obj = package[path.removeprefix("docqa.")] if path != "docqa" else package
        except KeyError:
            log.warning("docs/reference/ shows %s, which is not in src/docqa", path)
            continue
        for missing in _undocumented(obj):
            log.warning("%s has no docstring (it is shown in the API reference)", missing)


def _covered(path: str, shown: set[str]) -> bool:
    """Whether a directive shows ``path`` itself or a module or class holding it."""
    parts = path.split(".")
    return any(".".join(parts[:i]) in shown for i in range(1, len(parts) + 1))


def _directives(folder: Path) -> set[str]:
    return {m[1] for page in folder.glob("*.md") for m in DIRECTIVE.finditer(page.read_text())}


def _exported(package: Any) -> set[str]:
    names = [str(name) for name in package.exports or ()]
    return {
        _target(package.members[name]).path
        for name in names
        if name in package.members and not name.startswith("__")
    }


def _target(obj: Any) -> Any:
    return obj.final_target if obj.is_alias else obj


def _undocumented(obj: Any) -> list[str]:
    obj = _target(obj)
    missing = [] if obj.docstring else [obj.path]
    if obj.is_module or obj.is_class:
        for name, member in obj.members.items():
            if name.startswith("_") or member.is_alias:
                continue
            if member.is_class or member.is_function:
                missing += _undocumented(member)
    return missing
