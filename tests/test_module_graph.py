"""The package's import graph: no cycles, and no module importing another module's private names.

Every module under ``src/docqa`` is parsed with ``ast``; each ``import`` and ``from ... import``
anywhere in it (at module level or inside a function) is an edge to the module it names, the
most specific one (``from docqa.retrieve import evidence`` is an edge to
``docqa.retrieve.evidence``). Imports under ``if TYPE_CHECKING:`` are left out: they are read
by the type checker only. A private name is one with a leading underscore (not a dunder); a
private *module* (``docqa._checks``, the native ``docqa._tokenize``) is the package's own
home for what it holds and may be imported by any module of the package.

Run as a script (``python tests/test_module_graph.py [SRC]``) it prints the cycles and the
private imports of a tree, which is how the figures before a change are taken.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


@dataclass(frozen=True)
class Import:
    importer: str
    line: int
    target: str  # the module imported from
    name: str | None  # the name taken from it (None: the module itself)


def modules(src: Path) -> dict[str, Path]:
    """Every module of the ``docqa`` package under ``src``, by dotted name."""
    out = {}
    stubs = sorted((src / "docqa").glob("_*.pyi"))  # native modules (no .py to parse)
    for path in [*stubs, *sorted((src / "docqa").rglob("*.py"))]:
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking_only(tree: ast.Module) -> set[int]:
    """The ids of the import nodes inside ``if TYPE_CHECKING:`` blocks."""
    skipped = set()
    for node in ast.walk(tree):
        test = node.test if isinstance(node, ast.If) else None
        name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
        if name == "TYPE_CHECKING":
            assert isinstance(node, ast.If)
            for inner in node.body:
                skipped.update(id(n) for n in ast.walk(inner))
    return skipped


def imports(name: str, path: Path, known: dict[str, Path]) -> Iterator[Import]:
    """The imports of module ``name`` (at ``path``) of modules in ``known``."""
    if path.suffix == ".pyi":
        return
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skipped = _type_checking_only(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    yield Import(name, node.lineno, alias.name, None)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, *([base] if base else [])])
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in known:
                    yield Import(name, node.lineno, sub, None)
                elif base in known:
                    yield Import(name, node.lineno, base, alias.name)


def _private(name: str | None) -> bool:
    return bool(name) and name.startswith("_") and not name.startswith("__")  # type: ignore[union-attr]


def attribute_uses(name: str, path: Path, known: dict[str, Path]) -> Iterator[Import]:
    """The private names module ``name`` reads as attributes of a module it imported
    (``from docqa.index import writer`` ... ``writer._install``)."""
    if path.suffix == ".pyi":
        return
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    bound: dict[str, str] = {}  # a local name -> the module it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name in known:
                    bound[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if f"{node.module}.{alias.name}" in known:
                    bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            target = bound.get(node.value.id)
            if target and target != name and _private(node.attr):
                yield Import(name, node.lineno, target, node.attr)


def graph(src: Path) -> tuple[dict[str, set[str]], list[Import]]:
    """The import edges between modules, and every import of a private name across modules
    (taken by ``from ... import`` or read as an attribute of an imported module)."""
    known = modules(src)
    edges: dict[str, set[str]] = {m: set() for m in known}
    private = []
    for name, path in known.items():
        for imp in imports(name, path, known):
            if imp.target != name:
                edges[name].add(imp.target)
            if _private(imp.name):
                private.append(imp)
        private.extend(attribute_uses(name, path, known))
    return edges, private


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(edges)))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found)


def test_the_graph_sees_the_package() -> None:
    edges, _ = graph(SRC)
    assert len(edges) > 100
    assert "docqa.retrieve.evidence" in edges["docqa.retrieve.guard_rules"]
    assert "docqa.collection" in edges["docqa.cli.commands"]


def test_no_import_cycles() -> None:
    edges, _ = graph(SRC)
    assert cycles(edges) == []


def test_no_module_imports_another_modules_private_names() -> None:
    _, private = graph(SRC)
    assert [f"{i.importer}:{i.line} {i.target}.{i.name}" for i in private] == []


def test_the_checker_finds_a_cycle_and_a_private_import(tmp_path: Path) -> None:
    package = tmp_path / "docqa"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from docqa.b import _g\n")
    (package / "b.py").write_text("from docqa import a\n\ndef _g():\n    pass\n")
    (package / "c.py").write_text("from docqa import b\n\nb._g()\n")
    edges, private = graph(tmp_path)
    assert cycles(edges) == [["docqa.a", "docqa.b"]]
    found = [(i.importer, i.target, i.name) for i in private]
    assert found == [("docqa.a", "docqa.b", "_g"), ("docqa.c", "docqa.b", "_g")]


if __name__ == "__main__":
    found_edges, found_private = graph(Path(sys.argv[1]) if len(sys.argv) > 1 else SRC)
    found_cycles = cycles(found_edges)
    for component in found_cycles:
        print("cycle:", " ".join(component))
    for imp in found_private:
        print(f"private: {imp.importer}:{imp.line} {imp.target}.{imp.name}")
    print(f"{len(found_cycles)} cycles, {len(found_private)} private imports")
