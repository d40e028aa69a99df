"""The project's import graph from the source (ast: module- and function-level imports, also those
under ``if TYPE_CHECKING``), for tests that keep the layers one-way. Reusable: ``graph(packages)``
builds the graph of any top-level packages of the repository, ``cycles(g, prefix)`` lists the
strongly connected components (each an import cycle) among the modules under ``prefix``, and
``imports_of(g, src_prefix, dst_prefix)`` the edges from one part of the tree into another.

A module importing its own package's ``__init__`` is not counted (Python runs the package first
anyway); ``from pkg import name`` counts as an import of ``pkg.name`` when that is a module.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def modules(packages: tuple[str, ...], root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file under the given top-level packages."""
    out: dict[str, Path] = {}
    for pkg in packages:
        for f in sorted((root / pkg).rglob("*.py")):
            parts = list(f.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = f
    return out


def _targets(node: ast.AST, pkg: str) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        if node.level:
            base = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
            mod = ".".join(base + ([node.module] if node.module else []))
        else:
            mod = node.module or ""
        return [mod] + [f"{mod}.{a.name}" for a in node.names]
    return []


def graph(packages: tuple[str, ...], root: Path = ROOT) -> dict[str, set[str]]:
    """module -> the project modules it imports (within ``packages``)."""
    mods = modules(packages, root)
    g: dict[str, set[str]] = {m: set() for m in mods}
    for name, f in mods.items():
        tree = ast.parse(f.read_text(), str(f))
        pkg = name if f.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            for t in _targets(node, pkg):
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if not t or t == name or (mods[t].name == "__init__.py" and name.startswith(t + ".")):
                    continue
                g[name].add(t)
    return g


def cycles(g: dict[str, set[str]], prefix: str = "") -> list[list[str]]:
    """The import cycles (strongly connected components of more than one module, or a module
    importing itself) among the modules whose name starts with ``prefix`` (Tarjan, iterative)."""
    nodes = sorted(m for m in g if m.startswith(prefix))
    sub = {m: sorted(t for t in g[m] if t.startswith(prefix)) for m in nodes}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        work = [(root, iter(sub[root]))]
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sub[w])))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1 or v in sub[v]:
                    out.append(sorted(comp))
    return out


def imports_of(g: dict[str, set[str]], src_prefix: str, dst_prefix: str) -> list[tuple[str, str]]:
    """Edges (a, b) with a under ``src_prefix`` importing b under ``dst_prefix``."""
    return sorted((a, b) for a, ts in g.items() if a.startswith(src_prefix)
                  for b in ts if b.startswith(dst_prefix))
