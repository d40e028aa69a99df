"""The project's import graph, read with ``ast`` (module- and function-level imports, relative ones
resolved): ``graph(root)`` -> {module: {imported project modules}}, and ``cycles(graph)``
(strongly connected components of more than one module). Used by test_layers."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGES = ("asmgen", "isa", "schedules")


def modules(root: Path) -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for f in sorted((root / pkg).rglob("*.py")):
            parts = list(f.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = f
    return out


def _targets(node, name: str, is_pkg: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        pkg = name.split(".") if is_pkg else name.split(".")[:-1]
        base = pkg[:len(pkg) - (node.level - 1)]
        mod = ".".join(base + ([node.module] if node.module else []))
    else:
        mod = node.module or ""
    return [mod] + [f"{mod}.{a.name}" for a in node.names]


def graph(root: Path) -> dict[str, set[str]]:
    mods = modules(root)
    g: dict[str, set[str]] = {m: set() for m in mods}
    for name, f in mods.items():
        tree = ast.parse(f.read_text(), str(f))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for t in _targets(node, name, f.name == "__init__.py"):
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                # a module importing its own package (or itself) is not an edge
                if t and t != name and not (mods[t].name == "__init__.py" and name.startswith(t + ".")):
                    g[name].add(t)
    return g


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(g):
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(g[w]))))
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
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out
