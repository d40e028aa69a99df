"""Layers that import one way (issue 12): the ast import graph of asmgen/ and schedules/ has no
cycle, nothing in asmgen/ imports ``schedules`` (recipes are registered from above, through
``asmgen.recipes``), every import goes down the layer order cli -> api/driver -> kinds ->
recipes/runtime/profiling -> sched/passes/emit -> ir/core -> isa, and no module outside the
kinds' own folders (in asmgen/ and schedules/) compares a kernel kind's name (``"gemm" == ...``, ``kind in ("gemm", ...)``,
a dict keyed by kind names): they ask ``asmgen.kinds.registry``. (The cycles inside isa/ belong
to the emulator's owners and are left to their own test.)"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

import import_graph

ROOT = Path(__file__).resolve().parents[2]
# (module prefix, layer): the longest matching prefix wins; higher layers may import lower ones
LAYERS = (
    ("asmgen.cli", 7), ("asmgen.__main__", 7),
    ("asmgen", 6),                       # the package: the public Python API
    ("asmgen.api", 6), ("asmgen.cache", 6), ("asmgen.fuzz", 6),
    ("asmgen.driver", 5),
    ("asmgen.kinds", 4),
    ("schedules", 3.5),                  # the recipes (above the scheduler they drive)
    ("asmgen.recipes", 3), ("asmgen.runtime", 3), ("asmgen.profiling", 3),
    ("asmgen.passes", 2), ("asmgen.sched", 2), ("asmgen.dag", 2), ("asmgen.emit", 2),
    ("asmgen.toolchain", 2),
    ("asmgen.ir", 1), ("asmgen.program", 1), ("asmgen.builder", 1), ("asmgen.kernel", 1),
    ("asmgen.kernarg", 1), ("asmgen.outputs", 1), ("asmgen.target", 1), ("asmgen.dtypes", 1), ("asmgen.errors", 1),
    ("isa", 0),
)


# A kind's tag vocabulary (``asmgen/kinds/<kind>/tags.py``, ``asmgen/kinds/common/tags.py``) is a
# leaf declaration beside the IR's own tags (``asmgen.ir.tags``): the kind's template and its
# recipes (``schedules``, below the kinds) both name its members.
KIND_TAGS_LAYER = 1


def layer(mod: str) -> tuple[str, float]:
    parts = mod.split(".")
    if len(parts) == 4 and parts[:2] == ["asmgen", "kinds"] and parts[3] == "tags":
        return "asmgen.kinds.*.tags", KIND_TAGS_LAYER
    hits = [(p, r) for p, r in LAYERS if mod == p or mod.startswith(p + ".")]
    assert hits, f"{mod} is in no layer of {__name__}.LAYERS (add it)"
    return max(hits, key=lambda h: len(h[0]))


@functools.lru_cache(maxsize=1)
def project_graph() -> dict[str, set[str]]:
    return import_graph.graph(("asmgen", "isa", "schedules"), ROOT)


def _ours(g):
    return {m: {t for t in ts if not t.startswith("isa")} for m, ts in g.items()
            if not m.startswith("isa")}


# Cycles owned by another piece of work, named so every other cycle fails: the CFG IR package
# (branch cfg, issue 12 "A CFG IR") has nodes -> kernel under TYPE_CHECKING. Remove the entry
# when it is gone (test_known_cycles_still_exist fails then, so the list cannot go stale).
KNOWN_ELSEWHERE: tuple = ()


def test_no_import_cycle_in_asmgen_or_schedules():
    found = [c for c in import_graph.cycles(_ours(project_graph()), "")
             if tuple(c) not in KNOWN_ELSEWHERE]
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_known_cycles_still_exist():
    found = {tuple(c) for c in import_graph.cycles(_ours(project_graph()), "")}
    gone = [c for c in KNOWN_ELSEWHERE if c not in found]
    assert not gone, f"these cycles are gone, drop them from KNOWN_ELSEWHERE: {gone}"


def test_asmgen_never_imports_schedules():
    up = sorted((m, t) for m, ts in project_graph().items() if m.startswith("asmgen")
                for t in ts if t.split(".")[0] == "schedules")
    assert not up, f"asmgen imports the recipes package from below: {up}"


def test_imports_go_down_the_layers():
    bad = []
    for m, ts in sorted(_ours(project_graph()).items()):
        for t in sorted(ts):
            (pm, rm), (pt, rt) = layer(m), layer(t)
            if rt > rm:
                bad.append(f"{m} ({pm}, layer {rm}) imports {t} ({pt}, layer {rt})")
    assert not bad, "upward imports:\n" + "\n".join(bad)


def test_the_graph_sees_a_function_level_relative_cycle_and_an_upward_import(tmp_path):
    """The graph reader resolves relative and function-level imports (so the tests above can fail)."""
    pkg = tmp_path / "asmgen"
    (pkg / "kinds").mkdir(parents=True)
    (tmp_path / "schedules").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "kinds" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from .kinds import b\n")
    (pkg / "kinds" / "b.py").write_text("from ..a import f\nimport schedules.x\n")
    (tmp_path / "schedules" / "__init__.py").write_text("")
    (tmp_path / "schedules" / "x.py").write_text("")
    g = import_graph.graph(("asmgen", "schedules"), tmp_path)
    assert import_graph.cycles(g, "asmgen") == [["asmgen.a", "asmgen.kinds.b"]]
    assert "schedules.x" in g["asmgen.kinds.b"]


# --- kind names ---------------------------------------------------------------------------------
def _kind_names() -> set[str]:
    from asmgen.kinds import registry
    return set(registry.names())


def _kind_folders() -> list[Path]:
    return [ROOT / "asmgen" / "kinds" / name for name in _kind_names()]


def kind_comparisons(tree: ast.AST, names: set[str]) -> list[tuple[int, str]]:
    """Lines where a kind name is compared: ``==``/``!=``/``in``/``not in`` with the literal (or a
    tuple/list/set of literals), a dict literal keyed by it, or a ``match`` case on it."""
    def lits(node) -> set[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return {node.value} & names
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return set().union(*(lits(e) for e in node.elts)) if node.elts else set()
        return set()

    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            found = lits(node.left).union(*(lits(c) for c in node.comparators))
            if found:
                out.append((node.lineno, f"compares {sorted(found)}"))
        elif isinstance(node, ast.Dict):
            found = set().union(*(lits(k) for k in node.keys if k is not None)) if node.keys else set()
            if found:
                out.append((node.lineno, f"dict keyed by {sorted(found)}"))
        elif isinstance(node, ast.MatchValue) and lits(node.value):
            out.append((node.lineno, f"match case {sorted(lits(node.value))}"))
    return out


def test_no_kind_name_is_compared_outside_the_kinds():
    names, folders = _kind_names(), _kind_folders()
    assert {"gemm", "attention"} <= names
    bad = []
    for f in sorted([*(ROOT / "asmgen").rglob("*.py"), *(ROOT / "schedules").rglob("*.py")]):
        if any(folder in f.parents for folder in folders):
            continue
        for line, what in kind_comparisons(ast.parse(f.read_text(), str(f)), names):
            bad.append(f"{f.relative_to(ROOT)}:{line}: {what}")
    assert not bad, "kind names compared outside the registry:\n" + "\n".join(bad)


def test_the_kind_name_scan_finds_each_form():
    src = ('if kind == "gemm": pass\nif k in ("attention", "x"): pass\nT = {"gemm": 1}\n'
           'match k:\n    case "attention": pass\nok = registry.get("gemm")\n')
    found = kind_comparisons(ast.parse(src), {"gemm", "attention"})
    assert [line for line, _ in found] == [1, 2, 3, 5]
